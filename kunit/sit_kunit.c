// SPDX-License-Identifier: GPL-2.0
/*
 * tungro_sit: SIT cases (T02, T03, L13, L14): IPv6 inside IPv4, where only the outer header has an
 * IP ID.
 */
#include "tungro_kunit.h"

static void tungro_sit_t02_outer_ids_increment_df_clear(struct kunit *test)
{
	struct tgk_seg first, *segs = tgk_segs(test, 8);

	tgk_default(&first, TGK_SIT);
	first.outer.df = false;
	first.outer.id = 7;
	tgk_train(segs, 8, &first, 1);
	TGK_CASE(test, segs, 8, 8);
}

static void tungro_sit_t03_outer_df_fixed_id(struct kunit *test)
{
	struct tgk_seg first, *segs = tgk_segs(test, 8);

	tgk_default(&first, TGK_SIT);
	tgk_train(segs, 8, &first, 0);
	TGK_CASE(test, segs, 8, 8);
}

static void tungro_sit_l13_hop_limit_and_traffic_class(struct kunit *test)
{
	struct tgk_seg first, *segs = tgk_segs(test, 5);
	unsigned int i;

	tgk_default(&first, TGK_SIT);
	tgk_train(segs, 5, &first, 0);
	for (i = 1; i < 5; i++)
		segs[i].inner6.hop_limit = 63;
	TGK_CASE(test, segs, 5, 1, 4);
	tgk_train(segs, 5, &first, 0);
	for (i = 1; i < 5; i++)
		segs[i].inner6.traffic_class = 0x20;
	TGK_CASE(test, segs, 5, 1, 4);
}

static void tungro_sit_l14_flow_label_separates_flows(struct kunit *test)
{
	struct tgk_seg *ta = tgk_segs(test, 4), *tb = tgk_segs(test, 4), *mixed = tgk_segs(test, 8);
	struct tgk_seg a, b;
	unsigned int i;

	tgk_default(&a, TGK_SIT);
	b = a;
	b.inner6.flow_label = 0x12345;
	b.seq = 500000;
	tgk_train(ta, 4, &a, 0);
	tgk_train(tb, 4, &b, 0);
	for (i = 0; i < 4; i++) {
		mixed[2 * i] = ta[i];
		mixed[2 * i + 1] = tb[i];
	}
	TGK_CASE(test, mixed, 8, 4, 4);
}

/*
 * With CHECKSUM_COMPLETE the pulled inner IPv6 header must leave the running sum, or no segment
 * validates.
 */
static void tungro_sit_checksum_complete_merges(struct kunit *test)
{
	struct tgk_result *res = kunit_kzalloc(test, sizeof(*res), GFP_KERNEL);
	struct tgk_opts o = { .csum_complete = true };
	struct tgk_seg first, *s = tgk_segs(test, 8);

	KUNIT_ASSERT_NOT_NULL(test, res);
	tgk_default(&first, TGK_SIT);
	tgk_train(s, 8, &first, 0);
	tgk_run(test, s, 8, &o, res);
	TGK_EXPECT(test, res, 8);
	tgk_default(&first, TGK_IPIP);
	tgk_train(s, 8, &first, 0);
	tgk_run(test, s, 8, &o, res);
	TGK_EXPECT(test, res, 8);
	/* and a bad checksum is still caught with device help */
	s[3].bad_csum = true;
	tgk_run(test, s, 8, &o, res);
	TGK_EXPECT(test, res, 3, 1, 4);
}

static struct kunit_case tungro_sit_cases[] = {
	KUNIT_CASE(tungro_sit_checksum_complete_merges),
	KUNIT_CASE(tungro_sit_t02_outer_ids_increment_df_clear),
	KUNIT_CASE(tungro_sit_t03_outer_df_fixed_id),
	KUNIT_CASE(tungro_sit_l13_hop_limit_and_traffic_class),
	KUNIT_CASE(tungro_sit_l14_flow_label_separates_flows),
	{}
};

static struct kunit_suite tungro_sit_suite = {
	.name = "tungro_sit",
	.suite_init = tgk_suite_init,
	.suite_exit = tgk_suite_exit,
	.test_cases = tungro_sit_cases,
};

kunit_test_suites(&tungro_sit_suite);
