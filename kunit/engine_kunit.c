// SPDX-License-Identifier: GPL-2.0
/*
 * tungro_engine: cases E01-E05 and issue 8's crafted 16-flow trains through tungro's engine glue
 * (module/tungro_engine.c: tungro_rxq_enqueue, the NAPI poll, list delivery, the stop) on a test
 * receive queue, polls of 64 (the NAPI weight). Every delivered packet is checked by GSO round
 * trip against the sent frames, each flow's order included (harness.c).
 */
#include <linux/unaligned.h>
#include <net/hotdata.h>
#include <net/tcp.h>

#include "tungro_kunit.h"

/* The tungro table (8 x 8, tungro's hash) and the kernel's (one bucket of 8, hash 0). */
static const struct tgk_engine_run tgk_table = { .buckets = 8, .flows = 8 };
static const struct tgk_engine_run tgk_kernel_list = { .buckets = 1, .flows = 8,
						       .kernel_hash = true };

/* Inner source port of delivered packet @i (IPIP: outer 20, inner 20 bytes). */
static u16 sport_of(const struct tgk_result *res, unsigned int i)
{
	return get_unaligned_be16(res->pkt[i].hdr + 40);
}

static struct tgk_result *result(struct kunit *test)
{
	struct tgk_result *res = kunit_kzalloc(test, sizeof(*res), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, res);
	return res;
}

static void expect_all(struct kunit *test, const struct tgk_result *res, unsigned int pkts,
		       unsigned int segs)
{
	unsigned int i;

	KUNIT_EXPECT_EQ_MSG(test, res->n, pkts, "delivered packets");
	for (i = 0; i < res->n; i++)
		KUNIT_EXPECT_EQ_MSG(test, res->pkt[i].segs, segs, "segments in delivered packet %u",
				    i);
}

/*
 * E01: 9 flows in one bucket of 8 (tungro's 8 x 8 table bucketing by the kernel's hash, 0 from
 * virtio-net: bucket 0), 2 segments each, round robin. The 9th flow's arrival completes the oldest
 * (flow 0) and is held; every second segment finds its flow evicted and evicts the next oldest.
 * So 18 single segments in the order 0..8, 0..8, 10 evictions, never more than 8 held.
 */
static void tungro_engine_e01_ninth_flow_evicts_the_oldest(struct kunit *test)
{
	struct tgk_engine_run run = tgk_table;
	struct tgk_seg *s = tgk_segs(test, 18);
	struct tgk_result *res = result(test);
	struct tgk_opts o = {};
	unsigned int i;

	run.kernel_hash = true;
	tgk_flows_in_bursts(s, 9, 2, 1, 1400);
	tgk_run_engine(test, s, 18, &o, res, &run);
	expect_all(test, res, 18, 1);
	for (i = 0; i < min(res->n, 18u); i++)
		KUNIT_EXPECT_EQ_MSG(test, sport_of(res, i), 40000 + i % 9, "delivered packet %u",
				    i);
	KUNIT_EXPECT_EQ(test, run.st.evicted, 10u);
	KUNIT_EXPECT_EQ(test, run.st.held_max, 8u);
}

/*
 * E02: 200 flows, bursts of 4 segments per flow (800 segments, polls of 64: 16 bursts each). On
 * tungro's table and on one bucket of 8, where a full bucket evicts the oldest on nearly every
 * burst, coalescing goes on: 200 packets of 4, no segment passed up only because a bucket was full.
 */
static void tungro_engine_e02_two_hundred_flows_keep_coalescing(struct kunit *test)
{
	const struct tgk_engine_run *tables[] = { &tgk_table, &tgk_kernel_list };
	struct tgk_seg *s = tgk_segs(test, 800);
	struct tgk_result *res = result(test);
	struct tgk_opts o = {};
	unsigned int t;

	tgk_flows_in_bursts(s, 200, 4, 4, 1400);
	for (t = 0; t < ARRAY_SIZE(tables); t++) {
		struct tgk_engine_run run = *tables[t];

		tgk_run_engine(test, s, 800, &o, res, &run);
		expect_all(test, res, 200, 4);
		KUNIT_EXPECT_EQ(test, run.st.passed, 0u);
		KUNIT_EXPECT_EQ(test, run.polls_full, 12ull);	/* 800 = 12 x 64 + 32 */
		if (run.buckets == 1)
			KUNIT_EXPECT_GT(test, run.st.evicted, 0u);
	}
}

/*
 * E03: non-coalescable traffic: 64 segments of one flow each with PSH, then 64 flows of one
 * segment. All delivered, each flow in order, in lists of gro_normal_batch segments.
 */
static void tungro_engine_e03_non_coalescable_in_lists(struct kunit *test)
{
	unsigned int batch = READ_ONCE(net_hotdata.gro_normal_batch), i;
	struct tgk_engine_run run = tgk_table;
	struct tgk_seg first, *s = tgk_segs(test, 64);
	struct tgk_result *res = result(test);
	struct tgk_opts o = {};

	tgk_default(&first, TGK_IPIP);
	tgk_train(s, 64, &first, 0);
	for (i = 0; i < 64; i++)
		s[i].flags |= TCPHDR_PSH;
	tgk_run_engine(test, s, 64, &o, res, &run);
	expect_all(test, res, 64, 1);
	KUNIT_EXPECT_EQ(test, run.list_pkts, 64ull);
	KUNIT_EXPECT_EQ(test, run.lists, (u64)DIV_ROUND_UP(64, batch));

	run = tgk_table;
	tgk_flows_in_bursts(s, 64, 1, 1, 1400);
	tgk_run_engine(test, s, 64, &o, res, &run);
	expect_all(test, res, 64, 1);
	KUNIT_EXPECT_EQ(test, run.lists, (u64)DIV_ROUND_UP(64, batch));
}

/*
 * E04: two flows interleaved, 50 segments each, polls of 64: the first poll uses its whole budget
 * (32 of each flow) and, HZ < 1000, flushes everything; the second has 18 of each. Packets of 32,
 * 32, 18, 18, each flow in order across the polls.
 */
static void tungro_engine_e04_budget_exhausted_mid_train(struct kunit *test)
{
	struct tgk_engine_run run = tgk_table;
	struct tgk_seg *s = tgk_segs(test, 100);
	struct tgk_result *res = result(test);
	struct tgk_opts o = {};

	if (HZ >= 1000)
		kunit_skip(test, "HZ %d: a full poll flushes only what is older than a jiffy", HZ);
	tgk_flows_in_bursts(s, 2, 50, 1, 500);
	tgk_run_engine(test, s, 100, &o, res, &run);
	TGK_EXPECT(test, res, 32, 32, 18, 18);
	KUNIT_EXPECT_EQ(test, run.polls, 2ull);
	KUNIT_EXPECT_EQ(test, run.polls_full, 1ull);
}

/*
 * E05: with gro_flush_timeout set (1 s), a completing poll keeps what arrived in its jiffy and arms
 * the timer; the queue is stopped while the flow is held (a detach; then as NETDEV_UNREGISTER
 * does, delivering with netif_receive_skb_core). The held packet of 6 goes up, nothing leaks.
 */
static void tungro_engine_e05_stop_delivers_held(struct kunit *test)
{
	static const struct tgk_opts layouts[] = {
		{}, { .page_frag = true, .align = 2 },
		/* virtio-net's mergeable buffers: headers read in place in frag 0 */
		{ .page_frag = true, .no_linear = true },
	};
	struct tgk_seg first, *s = tgk_segs(test, 6);
	struct tgk_result *res = result(test);
	unsigned int l, direct;

	tgk_default(&first, TGK_IPIP);
	tgk_train(s, 6, &first, 0);
	for (l = 0; l < ARRAY_SIZE(layouts); l++) {
		for (direct = 0; direct < 2; direct++) {
			struct tgk_engine_run run = tgk_table;

			run.flush_timeout = NSEC_PER_SEC;
			run.stop_held = true;
			run.stop_direct = direct;
			tgk_run_engine(test, s, 6, &layouts[l], res, &run);
			KUNIT_EXPECT_EQ(test, run.st.held_now, 1u);
			KUNIT_EXPECT_EQ(test, run.held_at_stop, 1ull);
			KUNIT_EXPECT_EQ(test, run.timer_armed, 1ull);
			TGK_EXPECT(test, res, 6);
		}
	}
}

/*
 * napi_defer_hard_irqs as 6.12's napi_complete_done() honours it: with gro_flush_timeout set (1 s)
 * the poll with work keeps the flow held; a poll without work (the timer's) then keeps it too while
 * a deferral is left (count 2: set by the poll with work, one spent by it, one by the first poll
 * without work), and flushes it at the next. Without deferrals the first poll without work flushes.
 * Kept means arrived in the current jiffy: tries again (up to 10 times) when a jiffy passed.
 */
static void tungro_engine_defer_hard_irqs(struct kunit *test)
{
	static const u32 expect[2][2] = { { 0, 0 }, { 1, 0 } };	/* held_now after polls 1, 2 */
	struct tgk_seg first, *s = tgk_segs(test, 6);
	struct tgk_result *res = result(test);
	struct tgk_opts o = {};
	unsigned int defer, tries;

	tgk_default(&first, TGK_IPIP);
	tgk_train(s, 6, &first, 0);
	for (defer = 0; defer < 2; defer++) {
		struct tgk_engine_run run;

		for (tries = 0; tries < 10; tries++) {
			run = tgk_table;
			run.flush_timeout = NSEC_PER_SEC;
			run.defer_hard_irqs = defer ? 2 : 0;
			run.extra_polls = 2;
			run.stop_held = true;
			tgk_run_engine(test, s, 6, &o, res, &run);
			TGK_EXPECT(test, res, 6);
			if (run.one_jiffy)
				break;
		}
		if (!run.one_jiffy)
			kunit_skip(test, "a jiffy passed during each of %u tries", tries);
		KUNIT_EXPECT_EQ(test, run.st.held_now, 1u);
		KUNIT_EXPECT_EQ_MSG(test, run.held_after[0], expect[defer][0],
				    "napi_defer_hard_irqs %u: held after the first poll without work",
				    run.defer_hard_irqs);
		KUNIT_EXPECT_EQ_MSG(test, run.held_after[1], expect[defer][1],
				    "napi_defer_hard_irqs %u: held after the second poll without work",
				    run.defer_hard_irqs);
		kunit_info(test, "napi_defer_hard_irqs %u: %u tries for one jiffy\n",
			   run.defer_hard_irqs, tries + 1);
	}
}

/*
 * Issue 8's crafted trains: 16 IPIP flows interleaved segment by segment, 16 segments each, polls
 * of 64, so each poll holds 4 segments of every flow. tungro's table holds all 16 flows: 64 packets
 * of 4 (4.0 segments per GRO packet). The kernel's one bucket of 8 fed hash 0 evicts on every
 * segment: 256 packets of 1 (1.0).
 */
static void tungro_engine_crafted_16_flow_trains(struct kunit *test)
{
	static const struct tgk_opts layouts[] = {
		{}, { .page_frag = true, .align = 2 },
		/* virtio-net's mergeable buffers: headers read in place in frag 0 */
		{ .page_frag = true, .no_linear = true },
	};
	struct tgk_seg *s = tgk_segs(test, 256);
	struct tgk_result *res = result(test);
	unsigned int l;

	tgk_flows_in_bursts(s, 16, 16, 1, 1400);
	for (l = 0; l < ARRAY_SIZE(layouts); l++) {
		struct tgk_engine_run run = tgk_table;

		tgk_run_engine(test, s, 256, &layouts[l], res, &run);
		expect_all(test, res, 64, 4);
		KUNIT_EXPECT_EQ(test, run.st.evicted, 0u);
		KUNIT_EXPECT_EQ(test, run.polls_full, 4ull);
		kunit_info(test, "tungro 8x8: 256 segments in %u GRO packets, evicted %u\n", res->n,
			   run.st.evicted);

		run = tgk_kernel_list;
		tgk_run_engine(test, s, 256, &layouts[l], res, &run);
		expect_all(test, res, 256, 1);
		KUNIT_EXPECT_EQ(test, run.st.evicted, 256u - 4 * 8);
		kunit_info(test, "one bucket of 8, hash 0: 256 segments in %u GRO packets, evicted %u\n",
			   res->n, run.st.evicted);
	}
}

static struct kunit_case tungro_engine_cases[] = {
	KUNIT_CASE(tungro_engine_e01_ninth_flow_evicts_the_oldest),
	KUNIT_CASE(tungro_engine_e02_two_hundred_flows_keep_coalescing),
	KUNIT_CASE(tungro_engine_e03_non_coalescable_in_lists),
	KUNIT_CASE(tungro_engine_e04_budget_exhausted_mid_train),
	KUNIT_CASE(tungro_engine_e05_stop_delivers_held),
	KUNIT_CASE(tungro_engine_defer_hard_irqs),
	KUNIT_CASE(tungro_engine_crafted_16_flow_trains),
	{}
};

static struct kunit_suite tungro_engine_suite = {
	.name = "tungro_engine",
	.suite_init = tgk_suite_init,
	.suite_exit = tgk_suite_exit,
	.test_cases = tungro_engine_cases,
};

kunit_test_suites(&tungro_engine_suite);
