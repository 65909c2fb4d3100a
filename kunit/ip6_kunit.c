// SPDX-License-Identifier: GPL-2.0
/*
 * tungro_ip6: cases X01-X08 of gro-cases.md (tunnels over IPv6, IPv6 extension headers, a
 * nested tunnel), one table run twice: on the offload path (napi_gro_receive, tungro's
 * inet6_offloads[] callbacks for ip4ip6 and ip6ip6, inet_offloads[] for SIT) in every skb layout,
 * and through the engine glue on a test receive queue. Plain IPv6 with extension headers: a
 * second table, 6.12's own GRO and the engine. K08 (and K01): trains in FOU and GUE through real
 * ports, 6.12's callbacks and tungro's. Every GRO packet goes through the GSO round trip of the
 * harness, so IPXIP6 packets must resegment to the sent frames.
 */
#include <linux/fou.h>
#include <linux/genetlink.h>
#include <linux/in.h>
#include <linux/net.h>
#include <linux/sort.h>
#include <net/gro.h>
#include <net/ipv6.h>
#include <net/netlink.h>
#include <net/protocol.h>
#include <net/sock.h>

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
static void x_engine(struct kunit *test, const struct x_case *c, const struct tgk_seg *s)
{
	struct tgk_result *res = kunit_kzalloc(test, sizeof(*res), GFP_KERNEL);
	struct tgk_engine_run run = { .buckets = 8, .flows = 8 };
	unsigned int got[X_MAX_PKTS], want[X_MAX_PKTS], i, gro = 0;
	struct tgk_opts o = {};

	KUNIT_ASSERT_NOT_NULL(test, res);
	tgk_run_engine(test, s, X_MAX_SEGS, &o, res, &run);
	KUNIT_ASSERT_EQ_MSG(test, res->n, c->npkts, "delivered packets");
	for (i = 0; i < c->npkts; i++) {
		got[i] = res->pkt[i].segs;
		want[i] = c->counts[i];
	}
	sort(got, c->npkts, sizeof(got[0]), x_cmp, NULL);
	sort(want, c->npkts, sizeof(want[0]), x_cmp, NULL);
	for (i = 0; i < c->npkts; i++) {
		KUNIT_EXPECT_EQ_MSG(test, got[i], want[i], "segments per packet, sorted, %u", i);
		gro += want[i] > 1;
	}
	KUNIT_EXPECT_EQ_MSG(test, res->roundtrip_checked, gro, "GRO packets resegmented");
}

static void tungro_ip6_engine(struct kunit *test)
{
	const struct x_case *c = test->param_value;

	x_engine(test, c, x_build(test, c));
}

/*
 * Plain TCP/IPv6, no tunnel, one extension header (X05-X07's rules without the tunnel): 6.12's
 * ipv6_gro_receive pulls identical hop-by-hop, destination options and routing headers and
 * merges, compares their bytes (others: another flow), and never merges past a fragment header.
 */
static void p6_train(struct tgk_seg *s, u8 ext, u8 fill_from)
{
	struct tgk_seg first;
	unsigned int i;

	tgk_default(&first, TGK_PLAIN6);
	first.inner6.ext = ext;
	tgk_train(s, X_MAX_SEGS, &first, 0);
	for (i = fill_from; i < X_MAX_SEGS; i++)
		s[i].inner6.ext_fill = 0x11;
}

static void p6_none(struct tgk_seg *s) { p6_train(s, TGK_EXT_NONE, X_MAX_SEGS); }
static void p6_dstopts(struct tgk_seg *s) { p6_train(s, TGK_EXT_DSTOPTS, X_MAX_SEGS); }
static void p6_hop(struct tgk_seg *s) { p6_train(s, TGK_EXT_HOP, X_MAX_SEGS); }
static void p6_routing(struct tgk_seg *s) { p6_train(s, TGK_EXT_ROUTING, X_MAX_SEGS); }
static void p6_dstopts_differ(struct tgk_seg *s) { p6_train(s, TGK_EXT_DSTOPTS, 3); }
static void p6_hop_differ(struct tgk_seg *s) { p6_train(s, TGK_EXT_HOP, 3); }
static void p6_routing_differ(struct tgk_seg *s) { p6_train(s, TGK_EXT_ROUTING, 3); }
static void p6_frag(struct tgk_seg *s) { p6_train(s, TGK_EXT_FRAG, X_MAX_SEGS); }

static void p6_hop_limit(struct tgk_seg *s)
{
	unsigned int i;

	p6_train(s, TGK_EXT_DSTOPTS, X_MAX_SEGS);
	for (i = 2; i < X_MAX_SEGS; i++)
		s[i].inner6.hop_limit = 63;
}

static const struct x_case p6_cases[] = {
	{ "plain IPv6, no extension header", p6_none, { 8 }, 1 },
	{ "X06 plain IPv6, identical destination options", p6_dstopts, { 8 }, 1 },
	{ "X06 plain IPv6, identical hop-by-hop header", p6_hop, { 8 }, 1 },
	{ "X06 plain IPv6, identical routing header", p6_routing, { 8 }, 1 },
	{ "X05 plain IPv6, destination options differ from segment 4", p6_dstopts_differ, { 3, 5 },
	  2 },
	{ "X05 plain IPv6, hop-by-hop bytes differ from segment 4", p6_hop_differ, { 3, 5 }, 2 },
	{ "X05 plain IPv6, routing header differs from segment 4", p6_routing_differ, { 3, 5 }, 2 },
	{ "X07 plain IPv6, fragment header", p6_frag, { 1, 1, 1, 1, 1, 1, 1, 1 }, 8 },
	{ "X03 plain IPv6, dstopts, hop limit from segment 3", p6_hop_limit, { 2, 6 }, 2 },
};

KUNIT_ARRAY_PARAM_DESC(p6_cases, p6_cases, name);

/*
 * Plain IPv6 rows: 6.12's own GRO first (napi_gro_receive, every skb layout: tungro's slots never
 * see plain IPv6), the row's packets in order; then the engine, the same packets.
 */
static void tungro_ip6_plain6_engine(struct kunit *test)
{
	const struct x_case *c = test->param_value;
	struct tgk_seg *s = x_build(test, c);
	u64 seen = tungro_stat_sum(TUNGRO_S_SEEN);

	tgk_run_all_layouts(test, s, X_MAX_SEGS, c->counts, c->npkts);
	KUNIT_EXPECT_EQ_MSG(test, tungro_stat_sum(TUNGRO_S_SEEN), seen,
			    "plain IPv6 reached tungro's tunnel callbacks");
	x_engine(test, c, s);
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

/* ---- K01, K08: trains through real FOU and GUE ports ---- */

/* One row: the tunnel FOU or GUE carries, over which outer header, the packets 6.12 makes. */
struct k_case {
	const char *name;		/* "K08 ip4ip6 in FOU over IPv6": the case id first */
	enum tgk_encap encap;		/* IPIP/SIT: K01 (outer IPv4); ip4ip6/ip6ip6: K08 */
	bool gue;
	u16 port;			/* the FOU/GUE port of the row (one port per row) */
	u8 outer_ext;			/* the outer IPv6 header's extension header (before UDP) */
	bool inner_hop_limit;		/* the inner TTL / hop limit changes from segment 3 on */
	unsigned int counts[X_MAX_PKTS];
	unsigned int npkts;
};

static const struct k_case k_cases[] = {
	{ "K08 ip4ip6 in FOU over IPv6", TGK_IP4IP6, false, 5560, TGK_EXT_NONE, false, { 8 }, 1 },
	{ "K08 ip6ip6 in FOU over IPv6", TGK_IP6IP6, false, 5561, TGK_EXT_NONE, false, { 8 }, 1 },
	{ "K08 ip4ip6 in GUE over IPv6", TGK_IP4IP6, true, 5562, TGK_EXT_NONE, false, { 8 }, 1 },
	{ "K08 ip6ip6 in GUE over IPv6", TGK_IP6IP6, true, 5563, TGK_EXT_NONE, false, { 8 }, 1 },
	{ "K08 ip4ip6 in FOU over IPv6, outer encapsulation limit option", TGK_IP4IP6, false, 5564,
	  TGK_EXT_ENCAP_LIMIT, false, { 8 }, 1 },
	{ "K08 ip6ip6 in GUE over IPv6, outer encapsulation limit option", TGK_IP6IP6, true, 5565,
	  TGK_EXT_ENCAP_LIMIT, false, { 8 }, 1 },
	{ "K08 ip6ip6 in GUE over IPv6, inner hop limit from segment 3", TGK_IP6IP6, true, 5566,
	  TGK_EXT_NONE, true, { 2, 6 }, 2 },
	{ "K01 IPIP in FOU over IPv4", TGK_IPIP, false, 5567, TGK_EXT_NONE, false, { 8 }, 1 },
	{ "K01 SIT in GUE over IPv4", TGK_SIT, true, 5568, TGK_EXT_NONE, false, { 8 }, 1 },
};

KUNIT_ARRAY_PARAM_DESC(k_cases, k_cases, name);

#define K_NL_BUF 1024

/* Appends one netlink attribute at @p; returns the bytes it takes, padding included. */
static unsigned int k_nla(u8 *p, u16 type, const void *data, u16 len)
{
	struct nlattr *a = (struct nlattr *)p;

	a->nla_len = nla_attr_size(len);
	a->nla_type = type;
	memcpy(nla_data(a), data, len);
	return nla_total_size(len);
}

/*
 * One request to generic netlink family @family from the kernel netlink socket @sock, as `ip fou`
 * sends it: @alen bytes of attributes @attrs after the genetlink header, an ACK asked for. The
 * destination address is given, so the message carries NETLINK_SKB_DST and genetlink checks
 * CAP_NET_ADMIN of the sending task (this test's kthread) instead of a socket file, which a
 * kernel socket lacks. Returns the ACK's error; a CTRL_CMD_GETFAMILY answer's family id in @id.
 */
static int k_genl(struct socket *sock, u16 family, u8 cmd, const u8 *attrs, unsigned int alen,
		  u16 *id)
{
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };
	struct msghdr msg = { .msg_name = &to, .msg_namelen = sizeof(to) };
	u8 *buf = kzalloc(K_NL_BUF, GFP_KERNEL);
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	struct genlmsghdr *g;
	struct kvec iov;
	int err, n;

	if (!buf)
		return -ENOMEM;
	nlh->nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN + alen);
	nlh->nlmsg_type = family;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = 1;
	g = nlmsg_data(nlh);
	g->cmd = cmd;
	g->version = 1;
	memcpy((u8 *)g + GENL_HDRLEN, attrs, alen);
	iov = (struct kvec){ .iov_base = buf, .iov_len = nlh->nlmsg_len };
	err = kernel_sendmsg(sock, &msg, &iov, 1, iov.iov_len);
	/* genetlink answers inside sendmsg: the answer and the ACK are queued already */
	while (err >= 0) {
		struct msghdr in = {};

		iov = (struct kvec){ .iov_base = buf, .iov_len = K_NL_BUF };
		n = kernel_recvmsg(sock, &in, &iov, 1, K_NL_BUF, MSG_DONTWAIT);
		if (n < 0) {
			err = n;
			break;
		}
		for (nlh = (struct nlmsghdr *)buf; nlmsg_ok(nlh, n); nlh = nlmsg_next(nlh, &n)) {
			struct nlattr *a;

			if (nlh->nlmsg_type == NLMSG_ERROR) {
				err = ((struct nlmsgerr *)nlmsg_data(nlh))->error;
				goto out;
			}
			a = nlmsg_find_attr(nlh, GENL_HDRLEN, CTRL_ATTR_FAMILY_ID);
			if (id && nlh->nlmsg_type == GENL_ID_CTRL && a)
				*id = nla_get_u16(a);
		}
	}
out:
	kfree(buf);
	return err;
}

/*
 * Adds (FOU_CMD_ADD) or removes (FOU_CMD_DEL) row @c's port through the "fou" family, as
 * `ip fou add port P ipproto 4|41 [-6]` or `ip fou add port P gue [-6]` does.
 */
static int k_fou(const struct k_case *c, u8 cmd)
{
	bool v6 = c->encap == TGK_IP4IP6 || c->encap == TGK_IP6IP6;
	u8 af = v6 ? AF_INET6 : AF_INET, type = c->gue ? FOU_ENCAP_GUE : FOU_ENCAP_DIRECT;
	u8 proto = c->encap == TGK_SIT || c->encap == TGK_IP6IP6 ? IPPROTO_IPV6 : IPPROTO_IPIP;
	__be16 port = htons(c->port);
	u8 attrs[64] = {};
	struct socket *sock;
	unsigned int alen;
	u16 id = 0;
	int err;

	err = sock_create_kern(&init_net, AF_NETLINK, SOCK_RAW, NETLINK_GENERIC, &sock);
	if (err)
		return err;
	alen = k_nla(attrs, CTRL_ATTR_FAMILY_NAME, FOU_GENL_NAME, sizeof(FOU_GENL_NAME));
	err = k_genl(sock, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, attrs, alen, &id);
	if (!err && !id)
		err = -ENOENT;
	if (!err) {
		memset(attrs, 0, sizeof(attrs));
		alen = k_nla(attrs, FOU_ATTR_PORT, &port, sizeof(port));
		alen += k_nla(attrs + alen, FOU_ATTR_AF, &af, 1);
		if (cmd == FOU_CMD_ADD) {
			alen += k_nla(attrs + alen, FOU_ATTR_TYPE, &type, 1);
			if (!c->gue)
				alen += k_nla(attrs + alen, FOU_ATTR_IPPROTO, &proto, 1);
		}
		err = k_genl(sock, id, cmd, attrs, alen, NULL);
	}
	sock_release(sock);
	return err;
}

static void k_fou_del(void *c)
{
	k_fou(c, FOU_CMD_DEL);
}

/* The packets' gso_type: UDP tunnel with checksum, the tunnel's bit, the inner TCP's. */
static unsigned int k_gso_type(const struct k_case *c)
{
	bool v6 = c->encap == TGK_IP4IP6 || c->encap == TGK_IP6IP6;
	bool inner6 = c->encap == TGK_SIT || c->encap == TGK_IP6IP6;

	return SKB_GSO_UDP_TUNNEL_CSUM | (v6 ? SKB_GSO_IPXIP6 : SKB_GSO_IPXIP4) |
	       (inner6 ? SKB_GSO_TCPV6 : SKB_GSO_TCPV4);
}

/*
 * K01/K08: eight segments of one TCP flow in FOU or GUE, a real port of the kind open (so
 * udp4/6_gro_receive find its socket and call fou/gue_gro_receive, which call the IPIP/SIT or
 * inet6_offloads[IPPROTO_IPIP]/[IPPROTO_IPV6] slot with is_fou set). First with the kernel's
 * callbacks in the four slots: 6.12's packets, which must be the row's. Then with tungro's, once
 * linear and in every skb layout: 6.12's packets (counts in order, gso_type), every segment handed
 * to the kernel's callback (flush_udp_encap), none merged by tungro itself. Every GRO packet of
 * each run goes through the GSO round trip (__skb_udp_tunnel_segment and the inner tunnel's
 * segmentation must give back the sent frames).
 */
static void tungro_ip6_k01_k08_fou_gue_trains(struct kunit *test)
{
	const struct k_case *c = test->param_value;
	struct tgk_result *res = kunit_kzalloc(test, sizeof(*res), GFP_KERNEL);
	struct tgk_seg *s = tgk_segs(test, X_MAX_SEGS);
	unsigned int ref[X_MAX_PKTS], ref_type[X_MAX_PKTS], i, n, gro = 0;
	static const struct tgk_opts linear = {};
	struct tgk_seg first;
	u64 udp, merged;
	int err;

	KUNIT_ASSERT_NOT_NULL(test, res);
	tgk_default(&first, c->encap);
	first.fou_port = c->port;
	first.gue = c->gue;
	first.outer6.ext = c->outer_ext;
	tgk_train(s, X_MAX_SEGS, &first, 0);
	for (i = 2; c->inner_hop_limit && i < X_MAX_SEGS; i++) {
		s[i].inner6.hop_limit = 63;
		s[i].inner4.ttl = 63;
	}
	err = k_fou(c, FOU_CMD_ADD);
	KUNIT_ASSERT_EQ_MSG(test, err, 0, "FOU_CMD_ADD of port %u", c->port);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, k_fou_del, (void *)c), 0);

	tungro_offloads_remove();
	tgk_run(test, s, X_MAX_SEGS, &linear, res);
	KUNIT_ASSERT_EQ(test, tungro_offloads_install(), 0);
	tgk_expect_counts(test, res, c->counts, c->npkts);
	KUNIT_ASSERT_LE(test, res->n, (unsigned int)X_MAX_PKTS);
	n = res->n;
	for (i = 0; i < n; i++) {
		ref[i] = res->pkt[i].segs;
		ref_type[i] = res->pkt[i].gso_type;
		if (ref[i] < 2)
			continue;
		gro++;
		KUNIT_EXPECT_EQ_MSG(test, ref_type[i], k_gso_type(c), "6.12, packet %u", i);
	}
	KUNIT_EXPECT_EQ_MSG(test, res->roundtrip_checked, gro, "6.12's GRO packets resegmented");

	/* tungro in the slots: 6.12's packets, gso_type and all, then in every layout */
	udp = tungro_stat_sum(TUNGRO_S_REASON + TGC_R_UDP_ENCAP);
	merged = tungro_stat_sum(TUNGRO_S_MERGED);
	tgk_run(test, s, X_MAX_SEGS, &linear, res);
	tgk_expect_counts(test, res, ref, n);
	for (i = 0; i < min(n, res->n); i++)
		KUNIT_EXPECT_EQ_MSG(test, res->pkt[i].gso_type, ref_type[i], "packet %u", i);
	KUNIT_EXPECT_EQ_MSG(test, res->roundtrip_checked, gro, "GRO packets resegmented");
	tgk_run_all_layouts(test, s, X_MAX_SEGS, ref, n);
	KUNIT_EXPECT_EQ(test, tungro_stat_sum(TUNGRO_S_REASON + TGC_R_UDP_ENCAP) - udp,
			5ull * X_MAX_SEGS);
	KUNIT_EXPECT_EQ(test, tungro_stat_sum(TUNGRO_S_MERGED), merged);
	kunit_release_action(test, k_fou_del, (void *)c);
}

static struct kunit_case tungro_ip6_cases[] = {
	KUNIT_CASE_PARAM(tungro_ip6_offload_path, x_cases_gen_params),
	KUNIT_CASE_PARAM(tungro_ip6_engine, x_cases_gen_params),
	KUNIT_CASE(tungro_ip6_refused_inet6_slot_gives_the_others_back),
	KUNIT_CASE(tungro_ip6_k08_fou6_goes_to_the_kernel),
	KUNIT_CASE_PARAM(tungro_ip6_k01_k08_fou_gue_trains, k_cases_gen_params),
	KUNIT_CASE_PARAM(tungro_ip6_plain6_engine, p6_cases_gen_params),
	{}
};

static struct kunit_suite tungro_ip6_suite = {
	.name = "tungro_ip6",
	.suite_init = tgk_suite_init,
	.suite_exit = tgk_suite_exit,
	.test_cases = tungro_ip6_cases,
};

kunit_test_suites(&tungro_ip6_suite);
