// SPDX-License-Identifier: GPL-2.0
/*
 * skb_fuzz_kunit.c - skb-shape fuzzing: random trains made by the case generators (tgk_default,
 * tgk_train and the mutations the case suites apply one by one: flags, lengths, TTL/TOS/DF/ID,
 * window, ack, sequence gaps, bad checksums, padding, outer length errors, flow labels) in random
 * buffer layouts (linear length, page frags split at a random offset, no linear part, a frag_list
 * member, clones (pulled), headroom, no tailroom, network header at 0 or 2 mod 4,
 * CHECKSUM_COMPLETE or none), through napi_gro_receive with tungro's offloads installed. The
 * harness checks every run (tgk_collect): each sent frame delivered exactly once, in its flow's
 * order, and every GRO packet resegmented by the kernel's GSO into the sent frames byte for byte;
 * under KASAN any read outside the skbs is a report that fails the run.
 *
 * fuzz_trains= sets the number of trains (10,000 by default: make test; make fuzz passes 100,000),
 * fuzz_seed= the PRNG seed (batch b uses fuzz_seed + b, printed with it: a failing batch can be run
 * again alone).
 */
#include <linux/module.h>
#include <linux/prandom.h>
#include <net/tcp.h>

#include "tungro_kunit.h"

static unsigned int fuzz_trains = 10000;
module_param(fuzz_trains, uint, 0444);
MODULE_PARM_DESC(fuzz_trains,
		 "random trains of the skb-shape fuzzer (tungro_skb_fuzz), 1..10000000 (default 10000)");
static unsigned int fuzz_seed = 20241201;
module_param(fuzz_seed, uint, 0444);
MODULE_PARM_DESC(fuzz_seed,
		 "PRNG seed of the skb-shape fuzzer; batch b uses fuzz_seed + b (default 20241201)");

#define TGF_BATCH 500		/* trains per KUnit parameter (allocations freed per batch) */
#define TGF_MAX_TRAIN 24	/* segments of one train (every flow together) */
#define TGF_MAX_FLOWS 3

static u32 tgf_rnd(struct rnd_state *rs, u32 n)
{
	return prandom_u32_state(rs) % n;
}

/* One of the case suites' single-segment changes, picked at random. */
static void tgf_mutate(struct rnd_state *rs, struct tgk_seg *s, bool *ids_free)
{
	static const u8 end_flags[] = { TCPHDR_FIN, TCPHDR_SYN, TCPHDR_RST, TCPHDR_URG,
					TCPHDR_CWR };

	switch (tgf_rnd(rs, 17)) {
	case 0:
		s->flags |= TCPHDR_PSH;
		break;
	case 1:
		s->payload_len = tgf_rnd(rs, s->payload_len + 1);
		break;
	case 2:
		s->inner4.ttl--;
		s->inner6.hop_limit--;
		break;
	case 3:
		s->outer.ttl--;
		break;
	case 4:
		s->outer.tos = 4;
		break;
	case 5:
		s->inner4.tos = 1;
		s->inner6.traffic_class = 1;
		break;
	case 6:
		s->inner4.id += 5;
		break;
	case 7:
		s->window++;
		break;
	case 8:
		s->ack++;
		break;
	case 9:
		s->seq++;
		break;
	case 10:
		s->bad_csum = true;
		break;
	case 11:
		s->padding = 1 + tgf_rnd(rs, 16);
		break;
	case 12:
		s->flags |= end_flags[tgf_rnd(rs, ARRAY_SIZE(end_flags))];
		break;
	case 13:
		s->payload_len = 0;
		break;
	case 14:
		s->outer_len_delta = tgf_rnd(rs, 2) ? 8 : -8;
		break;
	case 15:
		/* DF clear with fixed IDs: GSO numbers them (L12) */
		s->inner4.df = !s->inner4.df;
		*ids_free = true;
		break;
	default:
		s->inner6.flow_label = 77;
		break;
	}
}

/* Each flow's own train before they are interleaved (off the stack: KASAN frames are small). */
struct tgf_flows {
	struct tgk_seg seg[TGF_MAX_FLOWS][TGF_MAX_TRAIN / TGF_MAX_FLOWS];
};

/*
 * A random train of 1-3 interleaved flows (each of its own encapsulation, MSS, options, ID rule),
 * with one in eight segments changed. Returns its length.
 */
static unsigned int tgf_train(struct rnd_state *rs, struct tgf_flows *fl, struct tgk_seg *out,
			      bool *ids_free)
{
	static const u8 ts_opts[12] = { 1, 1, 8, 10, 0, 0, 0, 9, 0, 0, 0, 3 };
	struct tgk_seg (*flows)[TGF_MAX_TRAIN / TGF_MAX_FLOWS] = fl->seg;
	unsigned int nflows = 1 + tgf_rnd(rs, TGF_MAX_FLOWS);
	unsigned int len[TGF_MAX_FLOWS], next[TGF_MAX_FLOWS];
	unsigned int f, i, n = 0;
	bool fixed_ids;

	for (f = 0; f < nflows; f++) {
		struct tgk_seg first;
		static const u32 mss[] = { 1400, 1400, 536, 100, 1 };

		tgk_default(&first, (enum tgk_encap)tgf_rnd(rs, 3));
		first.sport = 40000 + f;
		first.seq = prandom_u32_state(rs);
		first.payload_len = mss[tgf_rnd(rs, ARRAY_SIZE(mss))];
		if (!first.payload_len || tgf_rnd(rs, 4) == 0)
			first.payload_len = 1 + tgf_rnd(rs, 1400);
		if (tgf_rnd(rs, 2)) {
			memcpy(first.opts, ts_opts, sizeof(ts_opts));
			first.optlen = sizeof(ts_opts);
		}
		len[f] = 1 + tgf_rnd(rs, ARRAY_SIZE(fl->seg[f]));
		next[f] = 0;
		tgk_train(flows[f], len[f], &first, tgf_rnd(rs, 2));
		fixed_ids = tgf_rnd(rs, 4) == 0;
		for (i = 0; i < len[f]; i++) {
			/* fixed inner IDs with DF set (L07) in a quarter of the flows */
			if (fixed_ids)
				flows[f][i].inner4.id = flows[f][0].inner4.id;
			if (tgf_rnd(rs, 8) == 0)
				tgf_mutate(rs, &flows[f][i], ids_free);
		}
	}
	/* Interleaved at random, each flow in its own order. */
	for (;;) {
		unsigned int left = 0, pick;

		for (f = 0; f < nflows; f++)
			left += len[f] - next[f];
		if (!left)
			return n;
		pick = tgf_rnd(rs, left);
		for (f = 0; pick >= len[f] - next[f]; f++)
			pick -= len[f] - next[f];
		out[n++] = flows[f][next[f]++];
	}
}

static void tgf_layout(struct rnd_state *rs, struct tgk_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->page_frag = tgf_rnd(rs, 4) != 0;
	o->align = tgf_rnd(rs, 2) * 2;
	o->head = tgf_rnd(rs, 3) ? 1 + tgf_rnd(rs, 160) : 0;
	o->no_linear = tgf_rnd(rs, 8) == 0;
	o->frag_split = tgf_rnd(rs, 1600);
	o->frag_list = tgf_rnd(rs, 8) == 0;
	/*
	 * A clone only as K05 makes it: GRO writes the held packet's skb_shared_info (frags,
	 * frag_list, gro_pull_from_frag0) and drivers never hand it clones, so a clone is in its
	 * contract only when the first header pull reallocates the head: linear part ending
	 * inside the headers (40 bytes at least), and not empty (frag0 reads need no pull).
	 */
	if ((o->page_frag || o->frag_list) && !o->no_linear && tgf_rnd(rs, 4) == 0) {
		o->clone = true;
		o->head = 1 + tgf_rnd(rs, 39);
	}
	o->tight = tgf_rnd(rs, 4) == 0;
	o->headroom = tgf_rnd(rs, 3) ? 0 : tgf_rnd(rs, 256);
	o->csum_complete = tgf_rnd(rs, 2);
}

static const void *tgf_batches(const void *prev, char *desc)
{
	static unsigned int batch[10000000 / TGF_BATCH];
	unsigned int b = prev ? *(const unsigned int *)prev + 1 : 0;

	if (b >= DIV_ROUND_UP(fuzz_trains, TGF_BATCH) || b >= ARRAY_SIZE(batch))
		return NULL;
	batch[b] = b;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "batch %u seed %u", b, fuzz_seed + b);
	return &batch[b];
}

static void skb_shapes(struct kunit *test)
{
	unsigned int b = *(const unsigned int *)test->param_value, t, merged = 0, gro = 0;
	unsigned int trains = min(TGF_BATCH, fuzz_trains - b * TGF_BATCH);
	struct tgk_result *res = kunit_kzalloc(test, sizeof(*res), GFP_KERNEL);
	struct tgk_seg *segs = tgk_segs(test, TGF_MAX_TRAIN);
	struct tgf_flows *fl = kunit_kzalloc(test, sizeof(*fl), GFP_KERNEL);
	struct rnd_state rs;

	KUNIT_ASSERT_NOT_NULL(test, res);
	KUNIT_ASSERT_NOT_NULL(test, fl);
	prandom_seed_state(&rs, fuzz_seed + b);
	for (t = 0; t < trains; t++) {
		bool ids_free = false;
		unsigned int n = tgf_train(&rs, fl, segs, &ids_free);
		struct tgk_opts o;

		tgf_layout(&rs, &o);
		o.inner_ids_free = ids_free;
		tgk_run(test, segs, n, &o, res);
		gro += res->roundtrip_checked;
		merged += n - res->n;
		if (test->status == KUNIT_FAILURE) {
			kunit_info(test, "train %u of batch %u (seed %u) failed", t, b,
				   fuzz_seed + b);
			return;
		}
	}
	kunit_info(test, "batch %u: %u trains, %u GRO packets resegmented, %u segments merged", b,
		   trains, gro, merged);
	/* A batch that merged nothing would mean the generator lost its trains. */
	KUNIT_EXPECT_GT(test, gro, 0u);
}

static struct kunit_case skb_fuzz_cases[] = {
	KUNIT_CASE_PARAM(skb_shapes, tgf_batches),
	{}
};

static struct kunit_suite skb_fuzz_suite = {
	.name = "tungro_skb_fuzz",
	.suite_init = tgk_suite_init,
	.suite_exit = tgk_suite_exit,
	.test_cases = skb_fuzz_cases,
};

kunit_test_suite(skb_fuzz_suite);
