// SPDX-License-Identifier: GPL-2.0
/*
 * tungro_flush: layer-3 flush rules L01-L12, checked once against the matched held packet, outer
 * and inner.
 */
#include "tungro_kunit.h"

static void ipip_train(struct tgk_seg *segs, unsigned int n)
{
	struct tgk_seg first;

	tgk_default(&first, TGK_IPIP);
	tgk_train(segs, n, &first, 0);
}

static void tungro_flush_l01_inner_ttl(struct kunit *test)
{
	struct tgk_seg *s = tgk_segs(test, 6);
	unsigned int i;

	ipip_train(s, 6);
	for (i = 2; i < 6; i++)
		s[i].inner4.ttl = 63;
	TGK_CASE(test, s, 6, 2, 4);
}

static void tungro_flush_l02_outer_ttl(struct kunit *test)
{
	struct tgk_seg *s = tgk_segs(test, 6);
	unsigned int i;

	ipip_train(s, 6);
	for (i = 2; i < 6; i++)
		s[i].outer.ttl = 63;
	TGK_CASE(test, s, 6, 2, 4);
}

static void tungro_flush_l03_tos_inner_and_outer(struct kunit *test)
{
	struct tgk_seg *s = tgk_segs(test, 6);
	unsigned int i;

	ipip_train(s, 6);
	for (i = 3; i < 6; i++)
		s[i].inner4.tos = 0x03; /* ECN CE */
	TGK_CASE(test, s, 6, 3, 3);
	ipip_train(s, 6);
	for (i = 3; i < 6; i++)
		s[i].outer.tos = 0x10;
	TGK_CASE(test, s, 6, 3, 3);
}

static void tungro_flush_l04_inner_df(struct kunit *test)
{
	struct tgk_seg *s = tgk_segs(test, 6);
	unsigned int i;

	ipip_train(s, 6);
	for (i = 1; i < 6; i++)
		s[i].inner4.df = false;
	TGK_CASE(test, s, 6, 1, 5);
}

static void ids(struct tgk_seg *s, unsigned int n, bool df, const u16 *id)
{
	unsigned int i;

	ipip_train(s, n);
	for (i = 0; i < n; i++) {
		s[i].inner4.df = df;
		s[i].inner4.id = id[i];
	}
}

static void tungro_flush_l05_l06_incrementing_and_gap(struct kunit *test)
{
	static const u16 inc[] = { 100, 101, 102, 103 }, gap[] = { 100, 101, 103, 104 };
	struct tgk_seg *s = tgk_segs(test, 4);

	ids(s, 4, false, inc);
	TGK_CASE(test, s, 4, 4);
	ids(s, 4, false, gap);
	TGK_CASE(test, s, 4, 2, 2);
}

static void tungro_flush_l07_fixed_id_sets_fixedid(struct kunit *test)
{
	static const u16 fixed[] = { 5, 5, 5, 5, 5 };
	struct tgk_result *res = kunit_kzalloc(test, sizeof(*res), GFP_KERNEL);
	struct tgk_opts o = {};
	struct tgk_seg *s = tgk_segs(test, 5);

	KUNIT_ASSERT_NOT_NULL(test, res);
	ids(s, 5, true, fixed);
	tgk_run(test, s, 5, &o, res);
	TGK_EXPECT(test, res, 5);
	KUNIT_EXPECT_TRUE(test, res->pkt[0].gso_type & SKB_GSO_TCP_FIXEDID);
	KUNIT_EXPECT_EQ(test, res->roundtrip_checked, 1u);
}

static void tungro_flush_l08_l09_fixed_then_incrementing(struct kunit *test)
{
	static const u16 a[] = { 5, 5, 6 }, b[] = { 5, 6, 6 };
	struct tgk_seg *s = tgk_segs(test, 3);

	ids(s, 3, true, a);
	TGK_CASE(test, s, 3, 2, 1);
	ids(s, 3, true, b);
	TGK_CASE(test, s, 3, 2, 1);
}

static void tungro_flush_l10_per_layer_fixed_id(struct kunit *test)
{
	static const u16 fixed[] = { 9, 9, 9 };
	struct tgk_seg *s = tgk_segs(test, 3);
	unsigned int i;

	ids(s, 3, true, fixed);
	for (i = 0; i < 3; i++) {
		s[i].outer.df = false;
		s[i].outer.id = 100 + i;
	}
	TGK_CASE(test, s, 3, 3); /* 6.12 stops after 2: intended difference */
}

static void tungro_flush_l11_outer_random_ids(struct kunit *test)
{
	static const u16 outer[] = { 9, 4711, 3 };
	struct tgk_seg *s = tgk_segs(test, 3);
	unsigned int i;

	ipip_train(s, 3);
	for (i = 0; i < 3; i++)
		s[i].outer.id = outer[i];
	TGK_CASE(test, s, 3, 1, 1, 1); /* 6.12 merges all: intended difference */
}

static void tungro_flush_l12_df_clear_fixed_id(struct kunit *test)
{
	static const u16 fixed[] = { 42, 42, 42, 42 };
	struct tgk_result *res = kunit_kzalloc(test, sizeof(*res), GFP_KERNEL);
	struct tgk_opts o = { .inner_ids_free = true };
	struct tgk_seg *s = tgk_segs(test, 4);

	KUNIT_ASSERT_NOT_NULL(test, res);
	ids(s, 4, false, fixed);
	/*
	 * Merged (6.18 semantics; 6.12 does not: intended difference), without FIXEDID, which
	 * 6.12's GSO refuses with DF clear: the round trip gives the original frames with numbered
	 * IDs.
	 */
	tgk_run(test, s, 4, &o, res);
	TGK_EXPECT(test, res, 4);
	KUNIT_EXPECT_FALSE(test, res->pkt[0].gso_type & SKB_GSO_TCP_FIXEDID);
	KUNIT_EXPECT_EQ(test, res->roundtrip_checked, 1u);
}

static struct kunit_case tungro_flush_cases[] = {
	KUNIT_CASE(tungro_flush_l01_inner_ttl),
	KUNIT_CASE(tungro_flush_l02_outer_ttl),
	KUNIT_CASE(tungro_flush_l03_tos_inner_and_outer),
	KUNIT_CASE(tungro_flush_l04_inner_df),
	KUNIT_CASE(tungro_flush_l05_l06_incrementing_and_gap),
	KUNIT_CASE(tungro_flush_l07_fixed_id_sets_fixedid),
	KUNIT_CASE(tungro_flush_l08_l09_fixed_then_incrementing),
	KUNIT_CASE(tungro_flush_l10_per_layer_fixed_id),
	KUNIT_CASE(tungro_flush_l11_outer_random_ids),
	KUNIT_CASE(tungro_flush_l12_df_clear_fixed_id),
	{}
};

static struct kunit_suite tungro_flush_suite = {
	.name = "tungro_flush",
	.suite_init = tgk_suite_init,
	.suite_exit = tgk_suite_exit,
	.test_cases = tungro_flush_cases,
};

kunit_test_suites(&tungro_flush_suite);
