// SPDX-License-Identifier: GPL-2.0
/*
 * tungro_ip6: cases X01-X08 of gro-cases.md (tunnels over IPv6, IPv6 extension headers, a
 * nested tunnel), one table run twice: on the offload path (napi_gro_receive, tungro's
 * inet6_offloads[] callbacks for ip4ip6 and ip6ip6, inet_offloads[] for SIT) in every skb layout,
 * and through the engine glue on a test receive queue. Every GRO packet goes through the GSO
 * round trip of the harness, so IPXIP6 packets must resegment to the sent frames.
 */
#include <linux/in.h>
#include <linux/sort.h>
#include <net/gro.h>
#include <net/ipv6.h>
#include <net/protocol.h>

#include "tungro_kunit.h"
#include "../module/tungro.h"

#define X_MAX_SEGS 8
#define X_MAX_PKTS 8

/* One row: the case, its train (built into segs[0..8)), the GRO packets 6.12 makes of it. */
struct x_case {
	const char *name;		/* "X01 ip4ip6": the case id first */
	void (*make)(struct tgk_seg *s);
	unsigned int counts[X_MAX_PKTS];	/* segments per delivered packet, in order */
	unsigned int npkts;
};

/* Eight segments of one flow through tunnel @encap, defaults of gro-cases.md. */
static void x_train(struct tgk_seg *s, enum tgk_encap encap, u8 outer_ext)
{
	struct tgk_seg first;

	tgk_default(&first, encap);
	first.outer6.ext = outer_ext;
	tgk_train(s, X_MAX_SEGS, &first, 0);
}

static void x01_ip4ip6(struct tgk_seg *s) { x_train(s, TGK_IP4IP6, TGK_EXT_NONE); }
static void x01_ip4ip6_limit(struct tgk_seg *s) { x_train(s, TGK_IP4IP6, TGK_EXT_ENCAP_LIMIT); }
static void x02_ip6ip6(struct tgk_seg *s) { x_train(s, TGK_IP6IP6, TGK_EXT_NONE); }
static void x02_ip6ip6_limit(struct tgk_seg *s) { x_train(s, TGK_IP6IP6, TGK_EXT_ENCAP_LIMIT); }

/* X03: the outer hop limit, or traffic class, changes from segment 3 on. */
static void x03_hop_limit(struct tgk_seg *s)
{
	unsigned int i;

	x_train(s, TGK_IP6IP6, TGK_EXT_ENCAP_LIMIT);
	for (i = 2; i < X_MAX_SEGS; i++)
		s[i].outer6.hop_limit = 63;
}

static void x03_traffic_class(struct tgk_seg *s)
{
	unsigned int i;

	x_train(s, TGK_IP6IP6, TGK_EXT_ENCAP_LIMIT);
	for (i = 2; i < X_MAX_SEGS; i++)
		s[i].outer6.traffic_class = 0x20;
}

/* X04: two flows alike but for the outer flow label, interleaved segment by segment. */
static void x04_flow_labels(struct tgk_seg *s)
{
	struct tgk_seg a;
	int i;

	tgk_default(&a, TGK_IP6IP6);
	tgk_train(s, 4, &a, 0);
	/* spread out to the even slots (from the top: none is overwritten before it moves) */
	for (i = 3; i >= 0; i--) {
		s[2 * i] = s[i];
		s[2 * i + 1] = s[i];
		s[2 * i + 1].outer6.flow_label = 0x5a5a5;
		s[2 * i + 1].seq += 500000;
	}
}

/* X05: SIT, the inner IPv6 with a destination options header; its bytes differ from segment 4. */
/* Eight SIT segments whose inner IPv6 carries extension header @ext. */
static void x_sit_inner(struct tgk_seg *s, u8 ext)
{
	struct tgk_seg first;

	tgk_default(&first, TGK_SIT);
	first.inner6.ext = ext;
	tgk_train(s, X_MAX_SEGS, &first, 0);
}

static void x05_dstopts(struct tgk_seg *s) { x_sit_inner(s, TGK_EXT_DSTOPTS); }

static void x05_dstopts_differ(struct tgk_seg *s)
{
	unsigned int i;

	x05_dstopts(s);
	for (i = 3; i < X_MAX_SEGS; i++)
		s[i].inner6.ext_fill = 0x11;
}

/* X06: SIT with a hop-by-hop header on every inner packet. */
static void x06_hop_by_hop(struct tgk_seg *s) { x_sit_inner(s, TGK_EXT_HOP); }

/* X07: the outer IPv6 carries a fragment header (an atomic fragment). */
static void x07_fragment(struct tgk_seg *s) { x_train(s, TGK_IP6IP6, TGK_EXT_FRAG); }

/*
 * X08: SIT whose inner IPv6 says IPv4 follows (ip4ip6 inside SIT): a second tunnel layer, never
 * merged. The frames carry TCP where the second inner header would be, as M06 does for IPIP: the
 * second layer is refused before anything reads it.
 */
static void x08_nested(struct tgk_seg *s)
{
	unsigned int i;

	x_train(s, TGK_SIT, TGK_EXT_NONE);
	for (i = 0; i < X_MAX_SEGS; i++)
		s[i].inner6.next_header = IPPROTO_IPIP;
}

/* More rows: extension headers in both layers of ip6ip6, hop-by-hop on ip4ip6, an inner fragment
 * header in SIT, the inner hop limit of ip6ip6.
 */
static void r_ip6ip6_both(struct tgk_seg *s)
{
	struct tgk_seg first;

	tgk_default(&first, TGK_IP6IP6);
	first.outer6.ext = TGK_EXT_ENCAP_LIMIT;
	first.inner6.ext = TGK_EXT_DSTOPTS;
	tgk_train(s, X_MAX_SEGS, &first, 0);
}

static void r_ip4ip6_hop(struct tgk_seg *s) { x_train(s, TGK_IP4IP6, TGK_EXT_HOP); }

static void r_sit_inner_frag(struct tgk_seg *s) { x_sit_inner(s, TGK_EXT_FRAG); }

static void r_ip6ip6_inner_hop_limit(struct tgk_seg *s)
{
	unsigned int i;

	r_ip6ip6_both(s);
	for (i = 2; i < X_MAX_SEGS; i++)
		s[i].inner6.hop_limit = 63;
}

static const struct x_case x_cases[] = {
	{ "X01 ip4ip6", x01_ip4ip6, { 8 }, 1 },
	{ "X01 ip4ip6, outer encapsulation limit option", x01_ip4ip6_limit, { 8 }, 1 },
	{ "X02 ip6ip6", x02_ip6ip6, { 8 }, 1 },
	{ "X02 ip6ip6, outer encapsulation limit option", x02_ip6ip6_limit, { 8 }, 1 },
	{ "X03 ip6ip6, outer hop limit from segment 3", x03_hop_limit, { 2, 6 }, 2 },
	{ "X03 ip6ip6, outer traffic class from segment 3", x03_traffic_class, { 2, 6 }, 2 },
	{ "X04 ip6ip6, two outer flow labels", x04_flow_labels, { 4, 4 }, 2 },
	{ "X05 SIT, identical inner destination options", x05_dstopts, { 8 }, 1 },
	{ "X05 SIT, destination options differ from segment 4", x05_dstopts_differ, { 3, 5 }, 2 },
	{ "X06 SIT, identical inner hop-by-hop header", x06_hop_by_hop, { 8 }, 1 },
	{ "X07 ip6ip6, outer fragment header", x07_fragment, { 1, 1, 1, 1, 1, 1, 1, 1 }, 8 },
	{ "X08 ip4ip6 inside SIT", x08_nested, { 1, 1, 1, 1, 1, 1, 1, 1 }, 8 },
	{ "R ip6ip6, outer limit and inner dstopts", r_ip6ip6_both, { 8 }, 1 },
	{ "R ip4ip6, outer hop-by-hop", r_ip4ip6_hop, { 8 }, 1 },
	{ "R SIT, inner fragment header", r_sit_inner_frag, { 1, 1, 1, 1, 1, 1, 1, 1 }, 8 },
	{ "R ip6ip6, inner hop limit from segment 3", r_ip6ip6_inner_hop_limit, { 2, 6 }, 2 },
};

KUNIT_ARRAY_PARAM_DESC(x_cases, x_cases, name);

static struct tgk_seg *x_build(struct kunit *test, const struct x_case *c)
{
	struct tgk_seg *s = tgk_segs(test, X_MAX_SEGS);

	c->make(s);
	return s;
}

/*
 * The offload path, every skb layout (4): exactly the packets 6.12's GRO makes, in order, and
 * every merge tungro's (its counter), not the kernel's callbacks'.
 */
static void tungro_ip6_offload_path(struct kunit *test)
{
	const struct x_case *c = test->param_value;
	u64 merged = tungro_stat_sum(TUNGRO_S_MERGED);
	unsigned int i, merges = 0;

	for (i = 0; i < c->npkts; i++)
		merges += c->counts[i] - 1;
	tgk_run_all_layouts(test, x_build(test, c), X_MAX_SEGS, c->counts, c->npkts);
	KUNIT_EXPECT_EQ(test, tungro_stat_sum(TUNGRO_S_MERGED) - merged, 4ull * merges);
}

static int x_cmp(const void *a, const void *b)
{
	return *(const unsigned int *)a - *(const unsigned int *)b;
}

/*
 * The engine: the same packets. Flows complete at a poll's end in table order, not in arrival
 * order, so packets of different flows are compared as a multiset (each flow's own order is the
 * harness's round-trip check).
 */
static void tungro_ip6_engine(struct kunit *test)
{
	const struct x_case *c = test->param_value;
	struct tgk_result *res = kunit_kzalloc(test, sizeof(*res), GFP_KERNEL);
	struct tgk_engine_run run = { .buckets = 8, .flows = 8 };
	unsigned int got[X_MAX_PKTS], want[X_MAX_PKTS], i;
	struct tgk_opts o = {};

	KUNIT_ASSERT_NOT_NULL(test, res);
	tgk_run_engine(test, x_build(test, c), X_MAX_SEGS, &o, res, &run);
	KUNIT_ASSERT_EQ_MSG(test, res->n, c->npkts, "delivered packets");
	for (i = 0; i < c->npkts; i++) {
		got[i] = res->pkt[i].segs;
		want[i] = c->counts[i];
	}
	sort(got, c->npkts, sizeof(got[0]), x_cmp, NULL);
	sort(want, c->npkts, sizeof(want[0]), x_cmp, NULL);
	for (i = 0; i < c->npkts; i++)
		KUNIT_EXPECT_EQ_MSG(test, got[i], want[i], "segments per packet, sorted, %u", i);
}

/*
 * A refused inet6 slot (another module's offload in inet6_offloads[IPPROTO_IPV6], the last
 * of the four) gives the three slots taken before it back to the kernel, and leaves that module's
 * offload where it is.
 */
static struct sk_buff *x_fake_rx(struct list_head *head, struct sk_buff *skb) { return NULL; }
static int x_fake_complete(struct sk_buff *skb, int nhoff) { return 0; }
static const struct net_offload x_fake6 = {
	.callbacks = { .gro_receive = x_fake_rx, .gro_complete = x_fake_complete },
};

static const struct net_offload __rcu **x_slot(int i)
{
	return tungro_slots[i].ipv6 ? &inet6_offloads[tungro_slots[i].proto] :
				      &inet_offloads[tungro_slots[i].proto];
}

static void tungro_ip6_refused_inet6_slot_gives_the_others_back(struct kunit *test)
{
	const struct net_offload *k[TUNGRO_SLOT_COUNT];
	int i;

	tungro_offloads_remove();
	for (i = 0; i < TUNGRO_SLOT_COUNT; i++) {
		k[i] = rcu_dereference_protected(*x_slot(i), 1);
		KUNIT_ASSERT_PTR_EQ(test, k[i], tungro_slots[i].orig);
	}
	KUNIT_ASSERT_PTR_EQ(test, cmpxchg((const struct net_offload **)x_slot(TUNGRO_SLOT_IP6IP6),
					  k[TUNGRO_SLOT_IP6IP6], &x_fake6), k[TUNGRO_SLOT_IP6IP6]);
	KUNIT_EXPECT_EQ(test, tungro_offloads_install(), -EBUSY);
	for (i = 0; i < TUNGRO_SLOT_IP6IP6; i++) {
		KUNIT_EXPECT_PTR_EQ(test, rcu_dereference_protected(*x_slot(i), 1), k[i]);
		KUNIT_EXPECT_FALSE(test, tungro_slots[i].installed);
	}
	KUNIT_EXPECT_PTR_EQ(test, rcu_dereference_protected(*x_slot(TUNGRO_SLOT_IP6IP6), 1),
			    &x_fake6);
	cmpxchg((const struct net_offload **)x_slot(TUNGRO_SLOT_IP6IP6), &x_fake6,
		k[TUNGRO_SLOT_IP6IP6]);
	synchronize_net();
	KUNIT_ASSERT_EQ(test, tungro_offloads_install(), 0);
}

/*
 * K08: fou6/GUE over IPv6 call inet6_offloads[IPPROTO_IPV6] with is_fou set (fou_core.c,
 * is_ipv6 picks inet6_offloads): tungro hands the segment to the kernel's callback, counted as
 * udp_encap, and never parses it. The inner IPv6 says "no next header" (59) so the kernel's
 * ipv6_gro_receive stops at once.
 */
static void tungro_ip6_k08_fou6_goes_to_the_kernel(struct kunit *test)
{
	u64 delegated = tungro_stat_sum(TUNGRO_S_DELEGATED);
	u64 udp = tungro_stat_sum(TUNGRO_S_REASON + TGC_R_UDP_ENCAP);
	u64 seen = tungro_stat_sum(TUNGRO_S_SEEN);
	struct sk_buff *skb = alloc_skb(256, GFP_KERNEL);
	LIST_HEAD(head);
	struct ipv6hdr *ip6;
	u8 *d;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	d = skb_put_zero(skb, 8 + 40 + 40 + 20);
	/* what fou_gro_receive sees after the UDP header: here, from an 8-byte stand-in */
	ip6 = (struct ipv6hdr *)(d + 8);
	ip6->version = 6;
	ip6->payload_len = htons(60);
	ip6->nexthdr = IPPROTO_IPV6;
	ip6->hop_limit = 64;
	ip6 = (struct ipv6hdr *)(d + 48);
	ip6->version = 6;
	ip6->payload_len = htons(20);
	ip6->nexthdr = NEXTHDR_NONE;
	ip6->hop_limit = 64;
	skb->protocol = htons(ETH_P_IPV6);
	memset(NAPI_GRO_CB(skb), 0, sizeof(struct napi_gro_cb));
	NAPI_GRO_CB(skb)->frag0 = skb->data;
	NAPI_GRO_CB(skb)->frag0_len = skb_headlen(skb);
	NAPI_GRO_CB(skb)->count = 1;
	NAPI_GRO_CB(skb)->is_fou = 1;
	NAPI_GRO_CB(skb)->is_ipv6 = 1;
	skb_gro_pull(skb, 48);
	local_bh_disable();
	rcu_read_lock();
	KUNIT_EXPECT_NULL(test, tungro_gro_receive_of[TUNGRO_SLOT_IP6IP6](&head, skb));
	rcu_read_unlock();
	local_bh_enable();
	KUNIT_EXPECT_EQ(test, tungro_stat_sum(TUNGRO_S_SEEN) - seen, 1ull);
	KUNIT_EXPECT_EQ(test, tungro_stat_sum(TUNGRO_S_DELEGATED) - delegated, 1ull);
	KUNIT_EXPECT_EQ(test, tungro_stat_sum(TUNGRO_S_REASON + TGC_R_UDP_ENCAP) - udp, 1ull);
	/* the kernel's ipv6_gro_receive (via sit_ip6ip6_gro_receive) ran: it marks the layer */
	KUNIT_EXPECT_TRUE(test, NAPI_GRO_CB(skb)->encap_mark);
	KUNIT_EXPECT_TRUE(test, NAPI_GRO_CB(skb)->flush);
	kfree_skb(skb);
}

static struct kunit_case tungro_ip6_cases[] = {
	KUNIT_CASE_PARAM(tungro_ip6_offload_path, x_cases_gen_params),
	KUNIT_CASE_PARAM(tungro_ip6_engine, x_cases_gen_params),
	KUNIT_CASE(tungro_ip6_refused_inet6_slot_gives_the_others_back),
	KUNIT_CASE(tungro_ip6_k08_fou6_goes_to_the_kernel),
	{}
};

static struct kunit_suite tungro_ip6_suite = {
	.name = "tungro_ip6",
	.suite_init = tgk_suite_init,
	.suite_exit = tgk_suite_exit,
	.test_cases = tungro_ip6_cases,
};

kunit_test_suites(&tungro_ip6_suite);
