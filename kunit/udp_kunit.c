// SPDX-License-Identifier: GPL-2.0
/*
 * tungro_udp: cases U01-U05 of gro-cases.md (UDP on an attached device), one table through the
 * engine glue on a test receive queue: plain UDP over IPv4 and IPv6 and inside IPIP, SIT, ip4ip6
 * and ip6ip6. Rows that want one get a kernel UDP socket bound to the datagrams' port with UDP_GRO
 * set (IPv4 and, v6only, IPv6), so the glue's socket lookup (tungro_udp.c) answers as 6.12's
 * udp_gro_receive would; U02 rows have none. Every GRO packet goes through the harness's GSO round
 * trip (the kernel's __udp_gso_segment must give back the sent datagrams) and must be what
 * udp_gro_complete builds for a UDP_GRO socket: SKB_GSO_UDP_L4 (and the tunnel bit), gso_size the
 * datagram payload (what the socket's UDP_GRO cmsg reports), CHECKSUM_PARTIAL.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/net.h>
#include <linux/udp.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "tungro_kunit.h"

#define U_SEGS 8
#define U_MAX_PKTS 8
#define U_PAYLOAD 1200
#define U_PORT 5001

/* Who may receive UDP GRO: a UDP_GRO socket on U_PORT, nobody, or no socket on a device with
 * NETIF_F_GRO_UDP_FWD, or with NETIF_F_GRO_FRAGLIST (rx-gro-list: README's intended differences,
 * a UDP_L4 packet where 6.12 builds a fraglist one).
 */
enum { U_SOCK, U_NONE, U_FWD, U_FRAGLIST };

/* One row: the case, its train, whether a UDP_GRO socket listens, the packets it must make. */
struct u_case {
	const char *name;		/* "U01 IPIP, UDP_GRO socket": the case id first */
	enum tgk_encap encap;
	void (*edit)(struct tgk_seg *s);	/* changes to the train, or NULL */
	int rx;				/* U_SOCK, U_NONE, U_FWD, U_FRAGLIST */
	unsigned int counts[U_MAX_PKTS];	/* datagrams per delivered packet, in order */
	unsigned int npkts;
};

/* U03: the innermost TTL or hop limit changes from datagram 3 on. */
static void u03_inner_ttl(struct tgk_seg *s)
{
	unsigned int i;

	for (i = 2; i < U_SEGS; i++) {
		s[i].inner4.ttl = 63;
		s[i].inner6.hop_limit = 63;
		if (s[i].encap == TGK_PLAIN4)
			s[i].outer.ttl = 63;
	}
}

/* U03: a tunnel's outer TTL / hop limit changes from datagram 3 on. */
static void u03_outer_ttl(struct tgk_seg *s)
{
	unsigned int i;

	for (i = 2; i < U_SEGS; i++) {
		s[i].outer.ttl = 63;
		s[i].outer6.hop_limit = 63;
	}
}

/* U04: datagram 4 shorter than the others (it ends the packet), or longer (it never joins). */
static void u04_shorter(struct tgk_seg *s) { s[3].payload_len = 600; }
static void u04_longer(struct tgk_seg *s) { s[3].payload_len = 1300; }

/* U05: datagram 3 is sent without a checksum. */
static void u05_zero_csum(struct tgk_seg *s) { s[2].udp_zero_csum = true; }

/* A row: its datagrams per packet as the last arguments (npkts counted from them). */
#define U_ROW(name, encap, edit, rx, ...)						\
	{ name, encap, edit, rx, { __VA_ARGS__ },					\
	  sizeof((unsigned int[]){ __VA_ARGS__ }) / sizeof(unsigned int) }

static const struct u_case u_cases[] = {
	U_ROW("U01 plain IPv4, UDP_GRO socket", TGK_PLAIN4, NULL, U_SOCK, 8),
	U_ROW("U01 IPIP, UDP_GRO socket", TGK_IPIP, NULL, U_SOCK, 8),
	U_ROW("U01 SIT, UDP_GRO socket", TGK_SIT, NULL, U_SOCK, 8),
	U_ROW("U01 ip4ip6, UDP_GRO socket", TGK_IP4IP6, NULL, U_SOCK, 8),
	U_ROW("U01 ip6ip6, UDP_GRO socket", TGK_IP6IP6, NULL, U_SOCK, 8),
	U_ROW("U01 plain IPv6, UDP_GRO socket", TGK_PLAIN6, NULL, U_SOCK, 8),
	U_ROW("U02 plain IPv4, no socket", TGK_PLAIN4, NULL, U_NONE, 1, 1, 1, 1, 1, 1, 1, 1),
	U_ROW("U02 IPIP, no socket", TGK_IPIP, NULL, U_NONE, 1, 1, 1, 1, 1, 1, 1, 1),
	U_ROW("U02 SIT, no socket", TGK_SIT, NULL, U_NONE, 1, 1, 1, 1, 1, 1, 1, 1),
	U_ROW("U02 IPIP, no socket, device GRO_UDP_FWD", TGK_IPIP, NULL, U_FWD, 8),
	U_ROW("U02 plain IPv4, no socket, device GRO_UDP_FWD", TGK_PLAIN4, NULL, U_FWD, 8),
	U_ROW("U02 plain IPv4, no socket, device GRO_FRAGLIST", TGK_PLAIN4, NULL, U_FRAGLIST, 8),
	U_ROW("U02 plain IPv6, no socket, device GRO_FRAGLIST", TGK_PLAIN6, NULL, U_FRAGLIST, 8),
	U_ROW("U02 IPIP, no socket, device GRO_FRAGLIST", TGK_IPIP, NULL, U_FRAGLIST, 8),
	U_ROW("U02 ip6ip6, no socket, device GRO_FRAGLIST", TGK_IP6IP6, NULL, U_FRAGLIST, 8),
	U_ROW("U03 IPIP, inner TTL from datagram 3", TGK_IPIP, u03_inner_ttl, U_SOCK, 2, 6),
	U_ROW("U03 IPIP, outer TTL from datagram 3", TGK_IPIP, u03_outer_ttl, U_SOCK, 2, 6),
	U_ROW("U03 SIT, inner hop limit from datagram 3", TGK_SIT, u03_inner_ttl, U_SOCK, 2, 6),
	U_ROW("U03 plain IPv4, TTL from datagram 3", TGK_PLAIN4, u03_inner_ttl, U_SOCK, 2, 6),
	U_ROW("U04 IPIP, shorter datagram 4", TGK_IPIP, u04_shorter, U_SOCK, 4, 4),
	U_ROW("U04 IPIP, longer datagram 4", TGK_IPIP, u04_longer, U_SOCK, 3, 2, 3),
	U_ROW("U04 SIT, shorter datagram 4", TGK_SIT, u04_shorter, U_SOCK, 4, 4),
	U_ROW("U05 IPIP, zero checksum on datagram 3", TGK_IPIP, u05_zero_csum, U_SOCK, 2, 1, 5),
	U_ROW("U05 plain IPv4, zero checksum on datagram 3", TGK_PLAIN4, u05_zero_csum, U_SOCK,
	      2, 1, 5),
};

KUNIT_ARRAY_PARAM_DESC(u_cases, u_cases, name);

/*
 * A kernel UDP socket of @family bound to the wildcard address and U_PORT with UDP_GRO set, as a
 * receiver does with setsockopt(SOL_UDP, UDP_GRO); IPv6 v6only, so the two never share the port.
 */
static struct socket *u_socket(struct kunit *test, int family)
{
	struct sockaddr_storage a = {};
	struct socket *sock;
	int one = 1, len, err;

	err = sock_create_kern(&init_net, family, SOCK_DGRAM, IPPROTO_UDP, &sock);
	KUNIT_ASSERT_EQ(test, err, 0);
	if (family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&a;

		sin->sin_family = AF_INET;
		sin->sin_port = htons(U_PORT);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&a;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(U_PORT);
		KUNIT_EXPECT_EQ(test, ip6_sock_set_v6only(sock->sk), 0);
	}
	len = family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
	err = kernel_bind(sock, (struct sockaddr *)&a, len);
	if (!err)
		err = sock->ops->setsockopt(sock, SOL_UDP, UDP_GRO, KERNEL_SOCKPTR(&one),
					    sizeof(one));
	if (err)
		sock_release(sock);
	KUNIT_ASSERT_EQ_MSG(test, err, 0, "bind or UDP_GRO on port %u", U_PORT);
	return sock;
}

static void u_train(const struct u_case *c, struct tgk_seg *s)
{
	struct tgk_seg first;

	tgk_default(&first, c->encap);
	first.udp = true;
	first.payload_len = U_PAYLOAD;
	tgk_train(s, U_SEGS, &first, 0);
	if (c->edit)
		c->edit(s);
}

/*
 * The engine: exactly the packets of the row, in order (one flow); each GRO packet a UDP_L4
 * packet with the row's tunnel bit (never SKB_GSO_FRAGLIST, rx-gro-list included), gso_size its
 * first datagram's payload, CHECKSUM_PARTIAL, round-tripped by GSO.
 */
static void tungro_udp_engine(struct kunit *test)
{
	const struct u_case *c = test->param_value;
	struct tgk_result *res = kunit_kzalloc(test, sizeof(*res), GFP_KERNEL);
	struct tgk_seg *s = tgk_segs(test, U_SEGS);
	struct tgk_engine_run run = {
		.buckets = 8, .flows = 8,
		.features = c->rx == U_FWD ? NETIF_F_GRO_UDP_FWD :
			    c->rx == U_FRAGLIST ? NETIF_F_GRO_FRAGLIST : 0,
	};
	struct socket *s4 = NULL, *s6 = NULL;
	unsigned int i, first = 0, merged = 0;
	struct tgk_opts o = {};

	KUNIT_ASSERT_NOT_NULL(test, res);
	u_train(c, s);
	if (c->rx == U_SOCK) {
		s4 = u_socket(test, AF_INET);
		s6 = u_socket(test, AF_INET6);
	}
	tgk_run_engine(test, s, U_SEGS, &o, res, &run);
	if (s4)
		sock_release(s4);
	if (s6)
		sock_release(s6);

	tgk_expect_counts(test, res, c->counts, c->npkts);
	for (i = 0; i < res->n; i++) {
		const struct tgk_pkt *p = &res->pkt[i];
		unsigned int tunnel = c->encap == TGK_PLAIN4 || c->encap == TGK_PLAIN6 ? 0 :
				      c->encap == TGK_IPIP || c->encap == TGK_SIT ?
				      SKB_GSO_IPXIP4 : SKB_GSO_IPXIP6;

		first += p->segs;
		if (p->segs < 2 || first > U_SEGS)
			continue;
		merged++;
		KUNIT_EXPECT_EQ_MSG(test, p->gso_type, SKB_GSO_UDP_L4 | tunnel, "packet %u", i);
		/* the first datagram's payload: what the UDP_GRO cmsg reports */
		KUNIT_EXPECT_EQ_MSG(test, p->gso_size, s[first - p->segs].payload_len, "packet %u",
				    i);
		KUNIT_EXPECT_EQ_MSG(test, p->ip_summed, CHECKSUM_PARTIAL, "packet %u", i);
	}
	KUNIT_EXPECT_EQ(test, res->roundtrip_checked, merged);
}

static struct kunit_case tungro_udp_cases[] = {
	KUNIT_CASE_PARAM(tungro_udp_engine, u_cases_gen_params),
	{}
};

static struct kunit_suite tungro_udp_suite = {
	.name = "tungro_udp",
	.suite_init = tgk_suite_init,
	.suite_exit = tgk_suite_exit,
	.test_cases = tungro_udp_cases,
};

kunit_test_suites(&tungro_udp_suite);
