// SPDX-License-Identifier: GPL-2.0
/*
 * tungro_complete: what gro_complete leaves in the delivered GRO packet: lengths, IPv4 header
 * checksums, the TCP pseudo-header checksum of CHECKSUM_PARTIAL, gso_size, gso_segs and gso_type
 * bits; plus the GSO round trip.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <net/ip6_checksum.h>
#include <net/ip.h>
#include <net/tcp.h>

#include "tungro_kunit.h"

static u16 be16_at(const u8 *p) { return (p[0] << 8) | p[1]; }

/* A checksum's 16 bits as a plain number for KUNIT_EXPECT_EQ (sparse keeps __sum16 apart). */
static u16 csum_bits(__sum16 sum) { return (__force u16)sum; }

static void run_one(struct kunit *test, enum tgk_encap encap, struct tgk_result *res)
{
	struct tgk_seg first, *s = tgk_segs(test, 8);
	struct tgk_opts o = {};

	tgk_default(&first, encap);
	tgk_train(s, 8, &first, 0);
	tgk_run(test, s, 8, &o, res);
	TGK_EXPECT(test, res, 8);
	KUNIT_EXPECT_EQ(test, res->roundtrip_checked, 1u);
}

static void tungro_complete_ipip_headers(struct kunit *test)
{
	struct tgk_result *res = kunit_kzalloc(test, sizeof(*res), GFP_KERNEL);
	const struct tgk_pkt *p;
	const u8 *h;
	__sum16 pseudo;

	KUNIT_ASSERT_NOT_NULL(test, res);
	run_one(test, TGK_IPIP, res);
	p = &res->pkt[0];
	h = p->hdr;
	KUNIT_EXPECT_EQ(test, p->len, 60u + 8 * 1400);
	KUNIT_EXPECT_EQ(test, be16_at(h + 2), p->len);			/* outer total length */
	KUNIT_EXPECT_EQ(test, csum_bits(ip_fast_csum(h, 5)), 0);	/* outer header checksum */
	KUNIT_EXPECT_EQ(test, be16_at(h + 22), p->len - 20);		/* inner total length */
	KUNIT_EXPECT_EQ(test, csum_bits(ip_fast_csum(h + 20, 5)), 0);	/* inner header checksum */
	pseudo = ~tcp_v4_check(p->len - 40, ((struct iphdr *)(h + 20))->saddr,
			       ((struct iphdr *)(h + 20))->daddr, 0);
	/* the CHECKSUM_PARTIAL seed */
	KUNIT_EXPECT_EQ(test, csum_bits(*(__sum16 *)(h + 40 + 16)), csum_bits(pseudo));
	KUNIT_EXPECT_EQ(test, p->ip_summed, (u8)CHECKSUM_PARTIAL);
	KUNIT_EXPECT_EQ(test, p->gso_size, 1400u);
	KUNIT_EXPECT_EQ(test, p->segs, 8u);
	KUNIT_EXPECT_TRUE(test, p->gso_type & SKB_GSO_TCPV4);
	KUNIT_EXPECT_TRUE(test, p->gso_type & SKB_GSO_IPXIP4);
	KUNIT_EXPECT_FALSE(test, p->gso_type & SKB_GSO_TCP_FIXEDID);	/* inner IDs increment */
}

static void tungro_complete_sit_headers(struct kunit *test)
{
	struct tgk_result *res = kunit_kzalloc(test, sizeof(*res), GFP_KERNEL);
	const struct ipv6hdr *ip6;
	const struct tgk_pkt *p;
	__sum16 pseudo;

	KUNIT_ASSERT_NOT_NULL(test, res);
	run_one(test, TGK_SIT, res);
	p = &res->pkt[0];
	ip6 = (const struct ipv6hdr *)(p->hdr + 20);
	KUNIT_EXPECT_EQ(test, be16_at(p->hdr + 2), p->len);
	KUNIT_EXPECT_EQ(test, csum_bits(ip_fast_csum(p->hdr, 5)), 0);
	KUNIT_EXPECT_EQ(test, ntohs(ip6->payload_len), p->len - 60);
	pseudo = ~csum_ipv6_magic(&ip6->saddr, &ip6->daddr, p->len - 60, IPPROTO_TCP, 0);
	KUNIT_EXPECT_EQ(test, csum_bits(*(__sum16 *)(p->hdr + 60 + 16)), csum_bits(pseudo));
	KUNIT_EXPECT_EQ(test, p->gso_size, 1400u);
	KUNIT_EXPECT_TRUE(test, p->gso_type & SKB_GSO_TCPV6);
	KUNIT_EXPECT_TRUE(test, p->gso_type & SKB_GSO_IPXIP4);
}

static struct kunit_case tungro_complete_cases[] = {
	KUNIT_CASE(tungro_complete_ipip_headers),
	KUNIT_CASE(tungro_complete_sit_headers),
	{}
};

static struct kunit_suite tungro_complete_suite = {
	.name = "tungro_complete",
	.suite_init = tgk_suite_init,
	.suite_exit = tgk_suite_exit,
	.test_cases = tungro_complete_cases,
};

kunit_test_suites(&tungro_complete_suite);
