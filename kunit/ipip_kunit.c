// SPDX-License-Identifier: GPL-2.0
/* tungro_ipip: IPIP cases of "Tunnel basics" (T01, T04, T05) on real skbs through napi_gro_receive. */
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
	struct tgk_seg a, b, *ta = tgk_segs(test, 6), *tb = tgk_segs(test, 6), *mixed = tgk_segs(test, 12);
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
	/* Held flows complete oldest first at the end of the poll: a's packet, then b's. The round trip inside
	 * tgk_run checks order within each packet; here each packet carries one flow's 6 segments. */
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
	/* Alternate IPIP and plain TCP of the same 4-tuple: each merges with its own kind only (tungro's IPIP
	 * packet, the kernel's plain one), never with the other. */
	tgk_train(segs, 2, &t, 0);
	segs[2] = segs[1];
	segs[1] = p;
	segs[3] = p;
	segs[3].seq += 1400;
	segs[3].outer.id++;
	segs[2].seq = segs[0].seq + 1400;
	TGK_CASE(test, segs, 4, 2, 2);
}

static struct kunit_case tungro_ipip_cases[] = {
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
