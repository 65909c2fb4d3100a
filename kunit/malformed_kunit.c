// SPDX-License-Identifier: GPL-2.0
/*
 * tungro_malformed: M01-M08 on real skbs: passed up unmerged, nothing lost, never read past the
 * frame (KASAN kernels catch an over-read; the harness checks every sent frame comes out once).
 */
#include "tungro_kunit.h"

/* A good train of 5 with segment 3 broken by @breakit; expects the good ones merged around it. */
static void around(struct kunit *test, void (*breakit)(struct tgk_seg *))
{
	struct tgk_seg first, *s = tgk_segs(test, 5);

	tgk_default(&first, TGK_IPIP);
	tgk_train(s, 5, &first, 0);
	breakit(&s[2]);
	/*
	 * A segment that parses to no flow has no flow order to keep: track it apart in the
	 * harness's order check.
	 */
	s[2].sport = 40063;
	/*
	 * The broken segment parses to no flow: it goes up at once, ahead of the held 2 (as in the
	 * kernel).
	 */
	TGK_CASE(test, s, 5, 1, 2, 2);
}

static void ihl4(struct tgk_seg *s) { s->inner4.ihl = 4; }
static void ihl6(struct tgk_seg *s) { s->inner4.ihl = 6; }
static void too_long(struct tgk_seg *s) { s->outer_len_delta = 100; }
static void doff4(struct tgk_seg *s) { s->doff_override = 4; }
static void doff15(struct tgk_seg *s) { s->payload_len = 8; s->doff_override = 15; }
static void mf(struct tgk_seg *s) { s->inner4.mf = true; }
static void frag(struct tgk_seg *s) { s->inner4.frag_offset = 185; }
static void icmp(struct tgk_seg *s) { s->inner4.proto = 1; }
static void nested(struct tgk_seg *s) { s->inner4.proto = 4; }

static void tungro_malformed_m01_ihl(struct kunit *test)
{
	around(test, ihl4);
	around(test, ihl6);
}

static void tungro_malformed_m02_truncated(struct kunit *test)
{
	around(test, too_long);
}

static void tungro_malformed_m03_padding(struct kunit *test)
{
	struct tgk_seg first, *s = tgk_segs(test, 4);

	tgk_default(&first, TGK_IPIP);
	tgk_train(s, 4, &first, 0);
	s[3].payload_len = 2;
	s[3].padding = 6;
	/*
	 * The held 3 go up first (tungro parses the padded segment's flow, so order is kept), then
	 * the padded one alone; the harness checks the GRO packet of 3 resegments to exactly the 3
	 * sent frames.
	 */
	TGK_CASE(test, s, 4, 3, 1);
}

static void tungro_malformed_m04_doff(struct kunit *test)
{
	around(test, doff4);
	around(test, doff15);
}

static void tungro_malformed_m05_fragments(struct kunit *test)
{
	around(test, mf);
	around(test, frag);
}

static void tungro_malformed_m06_nested(struct kunit *test)
{
	around(test, nested);
}

static void tungro_malformed_m07_frame_ends_inside_inner_header(struct kunit *test)
{
	struct tgk_seg first, *s = tgk_segs(test, 3);

	tgk_default(&first, TGK_IPIP);
	tgk_train(s, 3, &first, 0);
	/*
	 * Outer length says 30 bytes; the frame has 14+20+10 bytes of packet: the inner header is
	 * cut.
	 */
	s[1].payload_len = 0;
	s[1].outer_len_delta = -(int)(20 + 20 + 20 - 30);
	s[1].sport = 40063;	/* parses to no flow: no order to keep (see around()) */
	TGK_CASE(test, s, 3, 1, 1, 1);
}

static void tungro_malformed_m08_icmp_passes_through(struct kunit *test)
{
	around(test, icmp);
}

static struct kunit_case tungro_malformed_cases[] = {
	KUNIT_CASE(tungro_malformed_m01_ihl),
	KUNIT_CASE(tungro_malformed_m02_truncated),
	KUNIT_CASE(tungro_malformed_m03_padding),
	KUNIT_CASE(tungro_malformed_m04_doff),
	KUNIT_CASE(tungro_malformed_m05_fragments),
	KUNIT_CASE(tungro_malformed_m06_nested),
	KUNIT_CASE(tungro_malformed_m07_frame_ends_inside_inner_header),
	KUNIT_CASE(tungro_malformed_m08_icmp_passes_through),
	{}
};

static struct kunit_suite tungro_malformed_suite = {
	.name = "tungro_malformed",
	.suite_init = tgk_suite_init,
	.suite_exit = tgk_suite_exit,
	.test_cases = tungro_malformed_cases,
};

kunit_test_suites(&tungro_malformed_suite);
