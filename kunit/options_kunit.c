// SPDX-License-Identifier: GPL-2.0
/*
 * tungro_options: cases O01-O06 of gro-cases.md (IPv4 options), one table run three ways: through
 * the engine glue with TGC_ENGINE_IPV4_OPTIONS (the module's ipv4_options=1, its default), where
 * safe identical options merge and every GRO packet's GSO round trip must give back the sent
 * frames, options intact in every header; through the engine without it (O05: ipv4_options=0,
 * kernel parity); and on the offload path in every skb layout (O04: never merged there, as 6.12).
 */
#include <linux/in.h>

#include "tungro_kunit.h"
#include "../module/tungro.h"

#define O_SEGS 8

/* The experimental option of the O cases: type 0x9e (copied, number 30, RFC 4727), length 8. */
static const u8 o_dsr[8] = { 0x9e, 8, 0xc6, 0x33, 0x64, 0x0a, 0x1f, 0x51 };
/* Options of the deny-list (O06), well formed (RFC 791 3.1, RFC 1108, RFC 2113). */
static const u8 o_lsrr[8] = { 131, 7, 4, 198, 18, 0, 9, 1 };
static const u8 o_ssrr[8] = { 137, 7, 4, 198, 18, 0, 9, 1 };
static const u8 o_rr[8] = { 7, 7, 4, 0, 0, 0, 0, 1 };
static const u8 o_ts[8] = { 68, 8, 5, 0, 0, 0, 0, 0 };
static const u8 o_ra[4] = { 148, 4, 0, 0 };
static const u8 o_sec[12] = { 130, 11 };
static const u8 o_cipso[12] = { 134, 10, 0, 0, 0, 1, 1, 4, 0, 3 };

/* Which IPv4 headers carry the option. */
#define O_OUTER 1u
#define O_INNER 2u

/* One row: the case, its train (segs[0..8)), what the engine with options makes of it. */
struct o_case {
	const char *name;		/* "O01 IPIP, ...": the case id first */
	void (*make)(struct tgk_seg *s);
	unsigned int counts[O_SEGS];	/* segments per delivered packet, in order ... */
	unsigned int npkts;		/* ... of this many packets; 0: none merged (O06 denied) */
	u8 reason;			/* a reason the engine must count (0: none) */
};

/* Eight single segments: what the offload path, the engine without options and O06 deliver. */
static const unsigned int o_singles[O_SEGS] = { 1, 1, 1, 1, 1, 1, 1, 1 };

static void o_put(struct tgk_v4 *h, const u8 *opt, unsigned int len)
{
	memcpy(h->options, opt, len);
	h->optlen = len;
}

/* Eight segments of one flow through @encap, the option @opt in the headers @where says. */
static void o_train(struct tgk_seg *s, enum tgk_encap encap, unsigned int where, const u8 *opt,
		    unsigned int len)
{
	struct tgk_seg first;

	tgk_default(&first, encap);
	if (where & O_OUTER)
		o_put(&first.outer, opt, len);
	if (where & O_INNER)
		o_put(&first.inner4, opt, len);
	tgk_train(s, O_SEGS, &first, 0);
}

static void o01_ipip_inner(struct tgk_seg *s) { o_train(s, TGK_IPIP, O_INNER, o_dsr, 8); }

static void o02_ipip_inner_changes(struct tgk_seg *s)
{
	unsigned int i;

	o01_ipip_inner(s);
	for (i = 3; i < O_SEGS; i++)
		s[i].inner4.options[7] = 0x52;
}

static void o03_plain(struct tgk_seg *s) { o_train(s, TGK_PLAIN4, O_OUTER, o_dsr, 8); }
static void o04_ipip_outer(struct tgk_seg *s) { o_train(s, TGK_IPIP, O_OUTER, o_dsr, 8); }
static void o04_ipip_both(struct tgk_seg *s) { o_train(s, TGK_IPIP, O_OUTER | O_INNER, o_dsr, 8); }
static void o04_sit_outer(struct tgk_seg *s) { o_train(s, TGK_SIT, O_OUTER, o_dsr, 8); }
static void o04_ip4ip6_inner(struct tgk_seg *s) { o_train(s, TGK_IP4IP6, O_INNER, o_dsr, 8); }
static void o06_lsrr(struct tgk_seg *s) { o_train(s, TGK_PLAIN4, O_OUTER, o_lsrr, 8); }
static void o06_ssrr(struct tgk_seg *s) { o_train(s, TGK_IPIP, O_INNER, o_ssrr, 8); }
static void o06_rr(struct tgk_seg *s) { o_train(s, TGK_IPIP, O_OUTER, o_rr, 8); }
static void o06_ts(struct tgk_seg *s) { o_train(s, TGK_PLAIN4, O_OUTER, o_ts, 8); }
static void o06_ra(struct tgk_seg *s) { o_train(s, TGK_IPIP, O_INNER, o_ra, 4); }
static void o06_sec(struct tgk_seg *s) { o_train(s, TGK_SIT, O_OUTER, o_sec, 12); }
static void o06_cipso(struct tgk_seg *s) { o_train(s, TGK_IP4IP6, O_INNER, o_cipso, 12); }

static const struct o_case o_cases[] = {
	{ "O01 IPIP, inner option on every segment", o01_ipip_inner, { 8 }, 1 },
	{ "O02 IPIP, inner option bytes change from segment 4", o02_ipip_inner_changes, { 3, 5 },
	  2, TGC_R_IP_OPT_DIFF },
	{ "O03 plain TCP/IPv4, option on every segment", o03_plain, { 8 }, 1 },
	{ "O04 IPIP, outer option", o04_ipip_outer, { 8 }, 1 },
	{ "O04 IPIP, outer and inner options", o04_ipip_both, { 8 }, 1 },
	{ "O04 SIT, outer option", o04_sit_outer, { 8 }, 1 },
	{ "O04 ip4ip6, inner option", o04_ip4ip6_inner, { 8 }, 1 },
	{ "O06 loose source route", o06_lsrr, {}, 0, TGC_R_IP_OPTIONS },
	{ "O06 strict source route", o06_ssrr, {}, 0, TGC_R_IP_OPTIONS },
	{ "O06 record route", o06_rr, {}, 0, TGC_R_IP_OPTIONS },
	{ "O06 timestamp", o06_ts, {}, 0, TGC_R_IP_OPTIONS },
	{ "O06 router alert", o06_ra, {}, 0, TGC_R_IP_OPTIONS },
	{ "O06 security", o06_sec, {}, 0, TGC_R_IP_OPTIONS },
	{ "O06 CIPSO", o06_cipso, {}, 0, TGC_R_IP_OPTIONS },
};

KUNIT_ARRAY_PARAM_DESC(o_cases, o_cases, name);

static struct tgk_seg *o_build(struct kunit *test, const struct o_case *c)
{
	struct tgk_seg *s = tgk_segs(test, O_SEGS);

	c->make(s);
	return s;
}

/* One engine run of @c, options merged or not; the result and the engine's counters. */
static struct tgk_result *o_engine(struct kunit *test, const struct o_case *c, bool options,
				   struct tgk_engine_run *run)
{
	struct tgk_result *res = kunit_kzalloc(test, sizeof(*res), GFP_KERNEL);
	struct tgk_opts o = { .page_frag = true, .align = 2 };

	KUNIT_ASSERT_NOT_NULL(test, res);
	*run = (struct tgk_engine_run){ .buckets = 8, .flows = 8, .ipv4_options = options };
	tgk_run_engine(test, o_build(test, c), O_SEGS, &o, res, run);
	return res;
}

/*
 * The engine with options (O01-O04, O06): the row's packets in order (one flow), each GRO packet
 * resegmented by GSO to exactly the sent frames (the harness compares every byte, the option
 * bytes of every header included).
 */
static void tungro_options_engine(struct kunit *test)
{
	const struct o_case *c = test->param_value;
	struct tgk_engine_run run;
	struct tgk_result *res = o_engine(test, c, true, &run);
	unsigned int i, gro = 0;

	if (c->npkts)
		tgk_expect_counts(test, res, c->counts, c->npkts);
	else
		tgk_expect_counts(test, res, o_singles, O_SEGS);
	for (i = 0; i < c->npkts; i++)
		gro += c->counts[i] > 1;
	KUNIT_EXPECT_EQ_MSG(test, res->roundtrip_checked, gro, "GRO packets resegmented");
	if (c->reason == TGC_R_IP_OPTIONS)
		KUNIT_EXPECT_EQ(test, run.st.reasons[TGC_R_IP_OPTIONS], O_SEGS);
	else if (c->reason)
		KUNIT_EXPECT_GE(test, run.st.reasons[c->reason], 1u);
}

/* O05: the engine without TGC_ENGINE_IPV4_OPTIONS (ipv4_options=0) merges none of them. */
static void tungro_options_o05_engine_off(struct kunit *test)
{
	const struct o_case *c = test->param_value;
	struct tgk_engine_run run;
	struct tgk_result *res = o_engine(test, c, false, &run);

	tgk_expect_counts(test, res, o_singles, O_SEGS);
	KUNIT_EXPECT_EQ(test, run.st.reasons[TGC_R_IP_OPTIONS], O_SEGS);
	KUNIT_EXPECT_EQ(test, run.st.merged, 0u);
}

/* O04's offload half: napi_gro_receive with tungro's callbacks merges none, in every layout. */
static void tungro_options_o04_offload_path(struct kunit *test)
{
	const struct o_case *c = test->param_value;
	u64 merged = tungro_stat_sum(TUNGRO_S_MERGED);

	tgk_run_all_layouts(test, o_build(test, c), O_SEGS, o_singles, O_SEGS);
	KUNIT_EXPECT_EQ(test, tungro_stat_sum(TUNGRO_S_MERGED), merged);
}

static struct kunit_case tungro_options_cases[] = {
	KUNIT_CASE_PARAM(tungro_options_engine, o_cases_gen_params),
	KUNIT_CASE_PARAM(tungro_options_o05_engine_off, o_cases_gen_params),
	KUNIT_CASE_PARAM(tungro_options_o04_offload_path, o_cases_gen_params),
	{}
};

static struct kunit_suite tungro_options_suite = {
	.name = "tungro_options",
	.suite_init = tgk_suite_init,
	.suite_exit = tgk_suite_exit,
	.test_cases = tungro_options_cases,
};

kunit_test_suites(&tungro_options_suite);
