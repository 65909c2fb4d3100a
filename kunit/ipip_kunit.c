// SPDX-License-Identifier: GPL-2.0
/*
 * tungro_ipip: IPIP cases of "Tunnel basics" (T01, T04, T05) on real skbs through napi_gro_receive.
 */
#include <net/tcp.h>

#include "../module/tungro.h"
#include "../module/tungro_pred.h"
#include "tungro_kunit.h"

static void tungro_ipip_t01_eight_merge(struct kunit *test)
{
	struct tgk_seg first, *segs = tgk_segs(test, 8);

	tgk_default(&first, TGK_IPIP);
	tgk_train(segs, 8, &first, 0);
	TGK_CASE(test, segs, 8, 8);
}

static void tungro_ipip_t04_interleaved_flows(struct kunit *test)
{
	struct tgk_seg *ta = tgk_segs(test, 6), *tb = tgk_segs(test, 6);
	struct tgk_seg *mixed = tgk_segs(test, 12);
	struct tgk_seg a, b;
	struct tgk_result *res = kunit_kzalloc(test, sizeof(*res), GFP_KERNEL);
	struct tgk_opts o = {};
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, res);
	tgk_default(&a, TGK_IPIP);
	b = a;
	b.sport = 40001;
	b.seq = 900000;
	tgk_train(ta, 6, &a, 0);
	tgk_train(tb, 6, &b, 0);
	for (i = 0; i < 6; i++) {
		mixed[2 * i] = ta[i];
		mixed[2 * i + 1] = tb[i];
	}
	/*
	 * Held flows complete oldest first at the end of the poll: a's packet, then b's. The round
	 * trip inside tgk_run checks order within each packet; here each packet carries one flow's
	 * 6 segments.
	 */
	tgk_run(test, mixed, 12, &o, res);
	KUNIT_ASSERT_EQ(test, res->n, 2u);
	KUNIT_EXPECT_EQ(test, res->pkt[0].segs, 6u);
	KUNIT_EXPECT_EQ(test, res->pkt[1].segs, 6u);
}

static void tungro_ipip_t05_plain_never_merges_with_ipip(struct kunit *test)
{
	struct tgk_seg t, p, *segs = tgk_segs(test, 4);

	tgk_default(&t, TGK_IPIP);
	tgk_default(&p, TGK_PLAIN4);
	/*
	 * Alternate IPIP and plain TCP of the same 4-tuple: each merges with its own kind only
	 * (tungro's IPIP packet, the kernel's plain one), never with the other.
	 */
	tgk_train(segs, 2, &t, 0);
	segs[2] = segs[1];
	segs[1] = p;
	segs[3] = p;
	segs[3].seq += 1400;
	segs[3].outer.id++;
	segs[2].seq = segs[0].seq + 1400;
	TGK_CASE(test, segs, 4, 2, 2);
}

/* tungro's gro_receive/gro_complete called directly on a test-owned GRO list, every skb layout. */
static void tungro_ipip_direct_gro_list(struct kunit *test)
{
	static const struct tgk_opts layouts[] = {
		{ .align = 0 }, { .align = 2 },
		{ .page_frag = true, .align = 0 }, { .page_frag = true, .align = 2 },
	};
	struct tgk_result *res = kunit_kzalloc(test, sizeof(*res), GFP_KERNEL);
	struct tgk_seg first, *s = tgk_segs(test, 12), *sit = tgk_segs(test, 8);
	unsigned int l;

	KUNIT_ASSERT_NOT_NULL(test, res);
	tgk_default(&first, TGK_IPIP);
	tgk_train(s, 12, &first, 0);
	s[5].flags |= TCPHDR_PSH;	/* T01 and P01 together: 6 then 6 */
	tgk_default(&first, TGK_SIT);
	tgk_train(sit, 8, &first, 0);
	for (l = 0; l < ARRAY_SIZE(layouts); l++) {
		tgk_run_direct(test, s, 12, &layouts[l], res, -1);
		TGK_EXPECT(test, res, 6, 6);
		KUNIT_EXPECT_EQ(test, res->roundtrip_checked, 2u);
		tgk_run_direct(test, sit, 8, &layouts[l], res, -1);
		TGK_EXPECT(test, res, 8);
	}
}

/*
 * Loaded mid-flow, and the unload handoff: a packet held without tungro's state (as the kernel's
 * GRO leaves it) is completed by the kernel's own gro_complete, never merged by tungro; here that
 * packet was merged by tungro, so the kernel's completion of a tungro-built GRO packet is checked
 * by the GSO round trip too.
 */
static void tungro_ipip_foreign_held_packet_goes_to_the_kernel(struct kunit *test)
{
	struct tgk_result *res = kunit_kzalloc(test, sizeof(*res), GFP_KERNEL);
	struct tgk_seg first, *s = tgk_segs(test, 8);
	struct tgk_opts o = {};

	KUNIT_ASSERT_NOT_NULL(test, res);
	tgk_default(&first, TGK_IPIP);
	tgk_train(s, 8, &first, 0);
	tgk_run_direct(test, s, 8, &o, res, 1);
	TGK_EXPECT(test, res, 2, 6);
	KUNIT_EXPECT_EQ(test, res->roundtrip_checked, 2u);
	KUNIT_EXPECT_TRUE(test, res->pkt[0].gso_type & SKB_GSO_IPXIP4);
}

/*
 * The offload path's predicted stage (tungro_pred.h) on a clean train: the prediction is made at
 * the second merge (the fast stage's) and takes every segment after it. A held packet whose
 * prediction is out of reach (another CPU's tag; its slot naming another packet; its count behind
 * the packet's) merges by the fast stage from then on, into the same GRO packet.
 */
static void tungro_ipip_predicted_stage(struct kunit *test)
{
	static const unsigned int breaks[] = {
		0, TGK_PRED_OTHER_CPU, TGK_PRED_SLOT_REUSED, TGK_PRED_STALE
	};
	struct tgk_result *res = kunit_kzalloc(test, sizeof(*res), GFP_KERNEL);
	struct tgk_seg first, *s = tgk_segs(test, 12);
	unsigned int b;

	KUNIT_ASSERT_NOT_NULL(test, res);
	if (!READ_ONCE(tungro_preds))
		kunit_skip(test, "no prediction slots on this kernel (tungro_pred_alloc())");
	tgk_default(&first, TGK_IPIP);
	tgk_train(s, 12, &first, 0);
	/* each break on whole views; then none, with the outer header alone in view (m68k) */
	for (b = 0; b < ARRAY_SIZE(breaks) + 1; b++) {
		const bool short_view = b == ARRAY_SIZE(breaks);
		struct tgk_opts o = {
			.pred_break = short_view ? 0 : breaks[b],
			.page_frag = short_view,
			.head = short_view ? 20 : 0,
		};
		u64 pred = tungro_stat_sum(TUNGRO_S_MERGED_PRED);
		u64 fast = tungro_stat_sum(TUNGRO_S_MERGED_FAST);

		/* segments 3 and 4 predicted, then (when broken after segment 4) the fast stage */
		tgk_run_direct(test, s, 12, &o, res, o.pred_break ? 4 : -1);
		TGK_EXPECT(test, res, 12);
		KUNIT_EXPECT_EQ(test, res->roundtrip_checked, 1u);
		pred = tungro_stat_sum(TUNGRO_S_MERGED_PRED) - pred;
		fast = tungro_stat_sum(TUNGRO_S_MERGED_FAST) - fast;
		KUNIT_EXPECT_EQ_MSG(test, pred, o.pred_break ? 2ull : 9ull, "predicted, run %u",
				    b);
		KUNIT_EXPECT_EQ_MSG(test, fast, o.pred_break ? 9ull : 2ull, "fast stage, run %u",
				    b);
	}
}

static struct kunit_case tungro_ipip_cases[] = {
	KUNIT_CASE(tungro_ipip_predicted_stage),
	KUNIT_CASE(tungro_ipip_direct_gro_list),
	KUNIT_CASE(tungro_ipip_foreign_held_packet_goes_to_the_kernel),
	KUNIT_CASE(tungro_ipip_t01_eight_merge),
	KUNIT_CASE(tungro_ipip_t04_interleaved_flows),
	KUNIT_CASE(tungro_ipip_t05_plain_never_merges_with_ipip),
	{}
};

static struct kunit_suite tungro_ipip_suite = {
	.name = "tungro_ipip",
	.suite_init = tgk_suite_init,
	.suite_exit = tgk_suite_exit,
	.test_cases = tungro_ipip_cases,
};

kunit_test_suites(&tungro_ipip_suite);
