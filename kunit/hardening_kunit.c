// SPDX-License-Identifier: GPL-2.0
/*
 * hardening_kunit.c - the KUnit share of issue 7's findings, on real skbs through napi_gro_receive
 * (or tungro's callbacks called directly), each GRO packet checked by the GSO round trip of the
 * harness:
 *   K02 segments that arrive already GSO
 *   K03 inner length shorter than the outer payload
 *   K04 the IPv4 reserved flag bit
 *   K05 header pulls: linear part ending at the TCP header or at the payload, cloned skbs, no
 *       tailroom, headers split across page frags (KASAN-clean on the debug kernel)
 *   K07 the slot already holds another module's offload (here: tungro_kunit's own): install
 *       refused; unload after another module emptied the slot (inet_del_offload)
 *   finding 8: SIT with inner IPv6 extension headers goes to the kernel's callback (merged as 6.12
 *       merges it)
 *   finding 9: stale cb bytes equal to tungro's magic on a packet older than the install: the
 *       kernel completes it
 *   finding 10: counters read whole, and a GRO packet of more than 64 segments in a bucket of its
 *       own
 */
#include <linux/tcp.h>
#include <net/gso.h>

#include "../module/tungro.h"
#include "../module/tungro_cb.h"
#include "tungro_kunit.h"

/*
 * K02: 1400 + GSO 3 x 1400 + 1400 -> one packet of 5; a GSO input of another gso_size ends the
 * packet. GSO skbs as a local TCP sender builds them (veth): headers linear, payload in page frags;
 * and with some payload linear.
 */
static const struct tgk_opts tgk_gso_layouts[] = {
	{ .page_frag = true, .head = 60 }, { .page_frag = true, .align = 2 },
};

static void tungro_hardening_k02_gso_arrivals(struct kunit *test)
{
	const struct tgk_opts *layouts = tgk_gso_layouts;
	struct tgk_result *res = kunit_kzalloc(test, sizeof(*res), GFP_KERNEL);
	struct tgk_seg *s = tgk_segs(test, 3);
	unsigned int l;

	KUNIT_ASSERT_NOT_NULL(test, res);
	for (l = 0; l < ARRAY_SIZE(tgk_gso_layouts); l++) {
		tgk_default(&s[0], TGK_IPIP);
		s[1] = s[0];
		s[1].seq += 1400;
		s[1].inner4.id = 2;
		s[1].payload_len = 3 * 1400;
		s[1].gso_segs = 3;
		s[2] = s[0];
		s[2].seq = s[1].seq + 3 * 1400;
		s[2].inner4.id = 5;
		tgk_run(test, s, 3, &layouts[l], res);
		TGK_EXPECT(test, res, 5);
		KUNIT_EXPECT_EQ(test, res->pkt[0].gso_size, 1400u);

		/*
		 * 4 x 1050 after a 1400-byte segment: another gso_size never joins; the next 1400
		 * does not join it.
		 */
		s[1].payload_len = 4 * 1050;
		s[1].gso_segs = 4;
		s[2].seq = s[1].seq + 4 * 1050;
		s[2].inner4.id = 6;
		tgk_run(test, s, 3, &layouts[l], res);
		TGK_EXPECT(test, res, 1, 4, 1);
	}
}

/*
 * Finding 10: two GSO inputs of 40 x 100 bytes make one GRO packet of 80: the 65_up bucket, not
 * 33_64.
 */
static void tungro_hardening_histogram_past_64(struct kunit *test)
{
	struct tgk_result *res = kunit_kzalloc(test, sizeof(*res), GFP_KERNEL);
	struct tgk_seg *s = tgk_segs(test, 2);
	u64 big, mid, completed;

	KUNIT_ASSERT_NOT_NULL(test, res);
	tgk_default(&s[0], TGK_IPIP);
	s[0].payload_len = 40 * 100;
	s[0].gso_segs = 40;
	s[1] = s[0];
	s[1].seq += 40 * 100;
	s[1].inner4.id += 40;
	big = tungro_stat_sum(TUNGRO_S_HIST + 7);
	mid = tungro_stat_sum(TUNGRO_S_HIST + 6);
	completed = tungro_stat_sum(TUNGRO_S_COMPLETED);
	tgk_run(test, s, 2, &tgk_gso_layouts[0], res);
	TGK_EXPECT(test, res, 80);
	KUNIT_EXPECT_EQ(test, tungro_stat_sum(TUNGRO_S_HIST + 7) - big, 1ull);
	KUNIT_EXPECT_EQ(test, tungro_stat_sum(TUNGRO_S_HIST + 6) - mid, 0ull);
	KUNIT_EXPECT_EQ(test, tungro_stat_sum(TUNGRO_S_COMPLETED) - completed, 1ull);
}

/*
 * K03: inner padding (inner length shorter than the outer payload): the held packet first, then the
 * segment.
 */
static void tungro_hardening_k03_inner_length_keeps_order(struct kunit *test)
{
	struct tgk_seg first, *s = tgk_segs(test, 5);
	enum tgk_encap e;

	for (e = TGK_IPIP; e <= TGK_SIT; e++) {
		tgk_default(&first, e);
		tgk_train(s, 5, &first, 0);
		s[2].inner_padding = 6;
		TGK_CASE(test, s, 5, 2, 1, 2);
	}
}

/*
 * K03 with a TCP checksum that holds only over the inner padding too (a hostile frame: the inner
 * length cut short of what the checksum covers). 6.12 checks no checksum for a segment its inner
 * header flushes, and TCP drops it over its IP length; tungro must not mark it valid either.
 */
static void tungro_hardening_k03_inner_padding_checksum_not_trusted(struct kunit *test)
{
	struct tgk_seg first, *s = tgk_segs(test, 5);
	struct tgk_opts o = { 0 };
	struct tgk_result *res = kunit_kzalloc(test, sizeof(*res), GFP_KERNEL);
	enum tgk_encap e;

	KUNIT_ASSERT_NOT_NULL(test, res);
	for (e = TGK_IPIP; e <= TGK_SIT; e++) {
		tgk_default(&first, e);
		tgk_train(s, 5, &first, 0);
		s[2].inner_padding = 10;
		s[2].csum_covers_padding = true;
		tgk_run(test, s, 5, &o, res);
		TGK_EXPECT(test, res, 2, 1, 2);
		KUNIT_EXPECT_NE(test, res->pkt[1].ip_summed, (u8)CHECKSUM_UNNECESSARY);
	}
}

/*
 * K04: the reserved flag bit on the inner (or the outer) IPv4 header: held packet first, segment
 * alone.
 */
static void tungro_hardening_k04_reserved_flag(struct kunit *test)
{
	struct tgk_seg first, *s = tgk_segs(test, 5);
	int outer;

	for (outer = 0; outer < 2; outer++) {
		tgk_default(&first, TGK_IPIP);
		tgk_train(s, 5, &first, 0);
		if (outer)
			s[3].outer.reserved = true;
		else
			s[3].inner4.reserved = true;
		TGK_CASE(test, s, 5, 3, 1, 1);
	}
}

/*
 * K05: buffer shapes that make the header pulls work: linear part ending at the TCP header (a pull,
 * on a clone or with no tailroom: the head is reallocated), ending at the payload (no pull),
 * nothing linear with the headers split across two page frags (frag0 too short: a pull that
 * releases a frag; also inside the outer header, where the kernel's pull leaves frag0 on the freed
 * page: KASAN-clean on the debug kernel). Every shape merges all 8, and the delivered GRO
 * packet's linear part ends at the payload: no payload byte was copied.
 */
static void tungro_hardening_k05_pull_shapes(struct kunit *test)
{
	struct tgk_result *res = kunit_kzalloc(test, sizeof(*res), GFP_KERNEL);
	struct tgk_seg first, *s = tgk_segs(test, 8);
	enum tgk_encap e;
	unsigned int l;

	KUNIT_ASSERT_NOT_NULL(test, res);
	for (e = TGK_IPIP; e <= TGK_SIT; e++) {
		unsigned int tcp_off = e == TGK_IPIP ? 40 : 60, payload_off = tcp_off + 20;
		const struct tgk_opts shapes[] = {
			{ .page_frag = true, .head = tcp_off, .clone = true },
			{ .page_frag = true, .head = tcp_off, .tight = true, .align = 2 },
			{ .page_frag = true, .head = payload_off },
			{ .page_frag = true, .no_linear = true, .frag_split = 30 },
			{ .page_frag = true, .head = 30, .frag_split = 50, .clone = true },
			/*
			 * the outer header split: inet_gro_receive()'s own pull frees the first
			 * frag's page and leaves frag0 set on it (tungro_header_view() clears it)
			 */
			{ .page_frag = true, .no_linear = true, .frag_split = 12 },
		};

		tgk_default(&first, e);
		tgk_train(s, 8, &first, 0);
		for (l = 0; l < ARRAY_SIZE(shapes); l++) {
			tgk_run(test, s, 8, &shapes[l], res);
			TGK_EXPECT(test, res, 8);
			KUNIT_EXPECT_EQ_MSG(test, res->pkt[0].headlen, payload_off,
					    "encap %d shape %u: linear part of the GRO packet",
					    e, l);
			/*
			 * The direct path reads the outer header at skb->data, as inet_gro_receive
			 * left it linear.
			 */
			if (shapes[l].head < 20 || shapes[l].no_linear)
				continue;
			tgk_run_direct(test, s, 8, &shapes[l], res, -1);
			TGK_EXPECT(test, res, 8);
		}
	}
}

/*
 * Finding 8 (case X05): SIT whose inner IPv6 carries identical destination options: 6.12 merges
 * them, and so does the core now (issue 9), without handing them to the kernel's callback.
 */
static void tungro_hardening_sit_inner_exthdr_merged(struct kunit *test)
{
	struct tgk_seg first, *s = tgk_segs(test, 8);
	u64 delegated = tungro_stat_sum(TUNGRO_S_DELEGATED);

	tgk_default(&first, TGK_SIT);
	first.inner6.dstopts = true;
	tgk_train(s, 8, &first, 0);
	TGK_CASE(test, s, 8, 8);
	KUNIT_EXPECT_EQ(test, tungro_stat_sum(TUNGRO_S_DELEGATED) - delegated, 0ull);
}

/*
 * Finding 9: cb bytes equal to tungro's magic on a packet the kernel held before the install are
 * stale: the packet is completed by the kernel's callback (counted), never by the core. Re-installs
 * first so the packets are inside the first second after the install, where a pre-install packet
 * can still be held.
 */
static void tungro_hardening_stale_magic_goes_to_the_kernel(struct kunit *test)
{
	struct tgk_result *res = kunit_kzalloc(test, sizeof(*res), GFP_KERNEL);
	struct tgk_seg first, *s = tgk_segs(test, 8);
	struct tgk_opts o = { .stale_magic = true };
	u64 foreign, fallback;

	KUNIT_ASSERT_NOT_NULL(test, res);
	tungro_offloads_remove();
	KUNIT_ASSERT_EQ(test, tungro_offloads_install(), 0);
	tgk_default(&first, TGK_IPIP);
	tgk_train(s, 8, &first, 0);
	foreign = tungro_stat_sum(TUNGRO_S_FOREIGN_COMPLETED);
	fallback = tungro_stat_sum(TUNGRO_S_COMPLETE_FALLBACK);
	tgk_run_direct(test, s, 8, &o, res, 1);
	TGK_EXPECT(test, res, 2, 6);
	KUNIT_EXPECT_EQ(test, tungro_stat_sum(TUNGRO_S_FOREIGN_COMPLETED) - foreign, 1ull);
	KUNIT_EXPECT_EQ(test, tungro_stat_sum(TUNGRO_S_COMPLETE_FALLBACK) - fallback, 0ull);
}

/*
 * K07: a slot that holds a module's offload (tungro_kunit's own, installed by the suite) is never
 * stacked on.
 */
static void tungro_hardening_k07_refuses_a_module_offload(struct kunit *test)
{
	const struct net_offload *ipip = rcu_dereference_protected(inet_offloads[IPPROTO_IPIP], 1);
	const struct net_offload *sit = rcu_dereference_protected(inet_offloads[IPPROTO_IPV6], 1);
	struct tgk_result *res = kunit_kzalloc(test, sizeof(*res), GFP_KERNEL);
	struct tgk_seg first, *s = tgk_segs(test, 4);
	struct tgk_opts o = {};

	KUNIT_ASSERT_NOT_NULL(test, res);
	KUNIT_ASSERT_PTR_EQ(test, ipip, (const struct net_offload *)&tungro_slot_ipip.ours);
	KUNIT_EXPECT_EQ(test, tungro_offloads_install(), -EBUSY);
	/* Nothing changed: the same offloads, still tungro's, still merging. */
	KUNIT_EXPECT_PTR_EQ(test, rcu_dereference_protected(inet_offloads[IPPROTO_IPIP], 1), ipip);
	KUNIT_EXPECT_PTR_EQ(test, rcu_dereference_protected(inet_offloads[IPPROTO_IPV6], 1), sit);
	KUNIT_EXPECT_PTR_EQ(test, READ_ONCE(tungro_slot_ipip.orig), tungro_orig(&tungro_slot_ipip));
	KUNIT_EXPECT_FALSE(test, is_vmalloc_or_module_addr(tungro_slot_ipip.orig));
	tgk_default(&first, TGK_IPIP);
	tgk_train(s, 4, &first, 0);
	tgk_run(test, s, 4, &o, res);
	TGK_EXPECT(test, res, 4);
}

/*
 * Unload with an emptied slot: another module took tungro's offload out with inet_del_offload()
 * (a cmpxchg to NULL) instead of stacking on it. Nothing reaches tungro through the slot any more,
 * so its unload must neither read through the NULL (it named "another module's" callbacks from it)
 * nor wait for a pointer that never comes back: the kernel's offload goes back in.
 */
static void tungro_hardening_unload_with_an_emptied_slot(struct kunit *test)
{
	const struct net_offload *ipip_orig = tungro_orig(&tungro_slot_ipip);
	const struct net_offload *sit_orig = tungro_orig(&tungro_slot_sit);
	const struct net_offload __rcu **slot = inet_offloads;

	KUNIT_ASSERT_PTR_EQ(test, rcu_dereference_protected(inet_offloads[IPPROTO_IPIP], 1),
			    (const struct net_offload *)&tungro_slot_ipip.ours);
	KUNIT_ASSERT_EQ(test, inet_del_offload(&tungro_slot_ipip.ours, IPPROTO_IPIP), 0);
	tungro_offloads_remove();
	KUNIT_EXPECT_PTR_EQ(test, rcu_dereference_protected(slot[IPPROTO_IPIP], 1), ipip_orig);
	KUNIT_EXPECT_PTR_EQ(test, rcu_dereference_protected(slot[IPPROTO_IPV6], 1), sit_orig);
	/* The suite's later cases (and its exit) run with tungro installed again. */
	KUNIT_ASSERT_EQ(test, tungro_offloads_install(), 0);
}

static struct kunit_case tungro_hardening_cases[] = {
	KUNIT_CASE(tungro_hardening_k02_gso_arrivals),
	KUNIT_CASE(tungro_hardening_histogram_past_64),
	KUNIT_CASE(tungro_hardening_k03_inner_length_keeps_order),
	KUNIT_CASE(tungro_hardening_k03_inner_padding_checksum_not_trusted),
	KUNIT_CASE(tungro_hardening_k04_reserved_flag),
	KUNIT_CASE(tungro_hardening_k05_pull_shapes),
	KUNIT_CASE(tungro_hardening_sit_inner_exthdr_merged),
	KUNIT_CASE(tungro_hardening_stale_magic_goes_to_the_kernel),
	KUNIT_CASE(tungro_hardening_k07_refuses_a_module_offload),
	KUNIT_CASE(tungro_hardening_unload_with_an_emptied_slot),
	{}
};

static struct kunit_suite tungro_hardening_suite = {
	.name = "tungro_hardening",
	.suite_init = tgk_suite_init,
	.suite_exit = tgk_suite_exit,
	.test_cases = tungro_hardening_cases,
};

kunit_test_suites(&tungro_hardening_suite);
