// SPDX-License-Identifier: GPL-2.0
/* tungro_tcp: TCP rules P01-P12 on IPIP, through napi_gro_receive with tungro installed. */
#include <net/tcp.h>

#include "tungro_kunit.h"

static void train6(struct tgk_seg *s, unsigned int n)
{
	struct tgk_seg first;

	tgk_default(&first, TGK_IPIP);
	tgk_train(s, n, &first, 0);
}

static void tungro_tcp_p01_psh_ends_packet(struct kunit *test)
{
	struct tgk_seg *s = tgk_segs(test, 6);

	train6(s, 6);
	s[3].flags |= TCPHDR_PSH;
	TGK_CASE(test, s, 6, 4, 2);
}

static void tungro_tcp_p02_syn_rst_urg_alone(struct kunit *test)
{
	static const u8 flags[] = { TCPHDR_SYN, TCPHDR_RST, TCPHDR_URG };
	struct tgk_seg *s = tgk_segs(test, 5);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(flags); i++) {
		train6(s, 5);
		s[2].flags |= flags[i];
		TGK_CASE(test, s, 5, 2, 1, 2);
	}
}

static void tungro_tcp_p03_cwr_starts_new_packet(struct kunit *test)
{
	struct tgk_result *res = kunit_kzalloc(test, sizeof(*res), GFP_KERNEL);
	struct tgk_opts o = {};
	struct tgk_seg *s = tgk_segs(test, 6);

	KUNIT_ASSERT_NOT_NULL(test, res);
	train6(s, 6);
	s[2].flags |= TCPHDR_CWR;
	tgk_run(test, s, 6, &o, res);
	TGK_EXPECT(test, res, 2, 4);
	KUNIT_EXPECT_TRUE(test, res->pkt[1].gso_type & SKB_GSO_TCP_ECN);
}

static void tungro_tcp_p04_pure_ack_follows_held(struct kunit *test)
{
	struct tgk_seg *s = tgk_segs(test, 5);

	train6(s, 5);
	s[3] = s[2];
	s[3].seq = s[2].seq + 1400;
	s[3].payload_len = 0;
	s[4].seq = s[3].seq;
	TGK_CASE(test, s, 5, 3, 1, 1);
}

static void tungro_tcp_p05_p06_ack_and_window(struct kunit *test)
{
	struct tgk_seg *s = tgk_segs(test, 6);
	unsigned int i;

	train6(s, 6);
	for (i = 2; i < 6; i++)
		s[i].ack = 99;
	TGK_CASE(test, s, 6, 2, 4);
	train6(s, 6);
	for (i = 2; i < 6; i++)
		s[i].window = 1024;
	TGK_CASE(test, s, 6, 2, 4);
}

static void tungro_tcp_p07_timestamps(struct kunit *test)
{
	static const u8 ts[12] = { 1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2 };
	struct tgk_seg first, *s = tgk_segs(test, 6);
	unsigned int i;

	tgk_default(&first, TGK_IPIP);
	memcpy(first.opts, ts, sizeof(ts));
	first.optlen = sizeof(ts);
	tgk_train(s, 6, &first, 0);
	TGK_CASE(test, s, 6, 6);
	for (i = 2; i < 6; i++)
		s[i].opts[7] = 9;
	TGK_CASE(test, s, 6, 2, 4);
}

static void tungro_tcp_p08_seq_gap(struct kunit *test)
{
	struct tgk_seg *s = tgk_segs(test, 6);
	unsigned int i;

	train6(s, 6);
	for (i = 2; i < 6; i++)
		s[i].seq += 1400;
	TGK_CASE(test, s, 6, 2, 4);
}

static void tungro_tcp_p09_p10_larger_and_shorter(struct kunit *test)
{
	struct tgk_seg first, *s = tgk_segs(test, 6);
	unsigned int i;

	tgk_default(&first, TGK_IPIP);
	first.payload_len = 1000;
	tgk_train(s, 3, &first, 0);
	s[2].payload_len = 1400;
	TGK_CASE(test, s, 3, 2, 1);

	train6(s, 6);
	s[2].payload_len = 600;
	for (i = 3; i < 6; i++)
		s[i].seq -= 800;
	TGK_CASE(test, s, 6, 3, 3);
}

static void tungro_tcp_p11_64k_limit(struct kunit *test)
{
	struct tgk_seg *s = tgk_segs(test, 60);

	train6(s, 60);
	TGK_CASE(test, s, 60, 46, 14);
}

static void tungro_tcp_p12_bad_checksum(struct kunit *test)
{
	struct tgk_seg *s = tgk_segs(test, 4);

	train6(s, 4);
	s[1].bad_csum = true;
	TGK_CASE(test, s, 4, 1, 1, 2);
}

static struct kunit_case tungro_tcp_cases[] = {
	KUNIT_CASE(tungro_tcp_p01_psh_ends_packet),
	KUNIT_CASE(tungro_tcp_p02_syn_rst_urg_alone),
	KUNIT_CASE(tungro_tcp_p03_cwr_starts_new_packet),
	KUNIT_CASE(tungro_tcp_p04_pure_ack_follows_held),
	KUNIT_CASE(tungro_tcp_p05_p06_ack_and_window),
	KUNIT_CASE(tungro_tcp_p07_timestamps),
	KUNIT_CASE(tungro_tcp_p08_seq_gap),
	KUNIT_CASE(tungro_tcp_p09_p10_larger_and_shorter),
	KUNIT_CASE(tungro_tcp_p11_64k_limit),
	KUNIT_CASE(tungro_tcp_p12_bad_checksum),
	{}
};

static struct kunit_suite tungro_tcp_suite = {
	.name = "tungro_tcp",
	.suite_init = tgk_suite_init,
	.suite_exit = tgk_suite_exit,
	.test_cases = tungro_tcp_cases,
};

kunit_test_suites(&tungro_tcp_suite);
