// SPDX-License-Identifier: GPL-2.0
/*
 * tungro_layout: A01-A03. The layout asserts themselves fail the build (module/tungro_cb.h,
 * tungro_core.h); here the same facts are checked at run time on the arch the test kernel runs, and
 * merging is shown to give the same result whatever the header alignment and byte order.
 */
#include "../module/tungro_cb.h"
#include "tungro_kunit.h"

static void tungro_layout_a01_cb_fits_and_is_aligned(struct kunit *test)
{
	struct sk_buff *skb = alloc_skb(64, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_EXPECT_EQ(test, TUNGRO_CB_OFFSET % 4, 0u);
	KUNIT_EXPECT_LE(test, TUNGRO_CB_OFFSET + sizeof(struct tungro_gro_cb), sizeof(skb->cb));
	KUNIT_EXPECT_EQ(test, __alignof__(struct tungro_gro_cb), 4u);
	/* The group really lands on a 4-aligned address, past the kernel's napi_gro_cb. */
	KUNIT_EXPECT_EQ(test, (unsigned long)TUNGRO_CB(skb) & 3, 0ul);
	KUNIT_EXPECT_GE(test, (unsigned long)TUNGRO_CB(skb),
			(unsigned long)(skb->cb + sizeof(struct napi_gro_cb)));
	kunit_info(test,
		   "arch: %s-endian, %zu-bit; napi_gro_cb %zu bytes, tungro_gro_cb at %zu of %zu",
		   IS_ENABLED(CONFIG_CPU_BIG_ENDIAN) ? "big" : "little", sizeof(long) * 8,
		   sizeof(struct napi_gro_cb), (size_t)TUNGRO_CB_OFFSET, sizeof(skb->cb));
	kfree_skb(skb);
}

static void tungro_layout_a02_two_mod_four(struct kunit *test)
{
	struct tgk_result *res = kunit_kzalloc(test, sizeof(*res), GFP_KERNEL);
	struct tgk_seg first, *s = tgk_segs(test, 8);
	unsigned int align, frag;

	KUNIT_ASSERT_NOT_NULL(test, res);
	for (frag = 0; frag < 2; frag++) {
		for (align = 0; align < 4; align += 2) {
			struct tgk_opts o = { .page_frag = frag, .align = align };

			tgk_default(&first, TGK_IPIP);
			tgk_train(s, 8, &first, 0);
			tgk_run(test, s, 8, &o, res);
			TGK_EXPECT(test, res, 8);
			tgk_default(&first, TGK_SIT);
			tgk_train(s, 8, &first, 0);
			tgk_run(test, s, 8, &o, res);
			TGK_EXPECT(test, res, 8);
		}
	}
}

static void tungro_layout_a03_same_result_any_byte_order(struct kunit *test)
{
	/*
	 * Values whose bytes differ in every position: a byte-order slip changes the seq chain or
	 * the ID chain.
	 */
	struct tgk_result *res = kunit_kzalloc(test, sizeof(*res), GFP_KERNEL);
	struct tgk_opts o = { .align = 2 };
	struct tgk_seg first, *s = tgk_segs(test, 6);

	KUNIT_ASSERT_NOT_NULL(test, res);
	tgk_default(&first, TGK_IPIP);
	first.seq = 0x01020304;
	first.ack = 0x0a0b0c0d;
	first.inner4.id = 0x1234;
	first.outer.df = false;
	first.outer.id = 0x5678;
	tgk_train(s, 6, &first, 1);
	tgk_run(test, s, 6, &o, res);
	TGK_EXPECT(test, res, 6);
	/* seq of the first segment, big-endian */
	KUNIT_EXPECT_EQ(test, res->pkt[0].hdr[40 + 4], 0x01);
}

static struct kunit_case tungro_layout_cases[] = {
	KUNIT_CASE(tungro_layout_a01_cb_fits_and_is_aligned),
	KUNIT_CASE(tungro_layout_a02_two_mod_four),
	KUNIT_CASE(tungro_layout_a03_same_result_any_byte_order),
	{}
};

static struct kunit_suite tungro_layout_suite = {
	.name = "tungro_layout",
	.suite_init = tgk_suite_init,
	.suite_exit = tgk_suite_exit,
	.test_cases = tungro_layout_cases,
};

kunit_test_suites(&tungro_layout_suite);
