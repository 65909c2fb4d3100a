// SPDX-License-Identifier: GPL-2.0
/*
 * tungro_bench: the kernel side of issue 12's benchmark, not a timing test. The same prepared skb
 * trains (page-frag skbs as virtio-net builds them) go through napi_gro_receive() with the kernel's
 * IPIP/SIT callbacks, with tungro's installed, through tungro's engine glue on a test receive
 * queue, and through the device's receive path with GRO off (what the engine's input costs before
 * its rx_handler sees a frame), taking turns rep by rep in one boot. Each run prints a BENCH line
 * (ktime ns); scripts/kunit-bench.py turns them into ns per segment and ratios to the kernel with
 * 95% intervals. What is asserted is what the paths deliver: every segment once, tungro's
 * offloads coalescing exactly as the kernel on these trains, the engine never less.
 */
#include "../module/tungro.h"
#include "tungro_kunit.h"

#define BENCH_MAX_SEGS 256

static unsigned int bench_reps = 21;
module_param(bench_reps, uint, 0444);
MODULE_PARM_DESC(bench_reps, "timed runs per train and path of tungro_bench, 1..1000 (default 21)");

/* For scripts/guest-profile.sh: one train, chosen paths, so two boots differ in one path only. */
static char *bench_train = "";
module_param(bench_train, charp, 0444);
MODULE_PARM_DESC(bench_train, "run only the train of this name (default: every train)");
static unsigned int bench_paths = 0xf;
module_param(bench_paths, uint, 0444);
MODULE_PARM_DESC(bench_paths, "paths to run, a mask of 1 kernel, 2 offloads, 4 engine, 8 gro_off (default 0xf)");

struct bench_train {
	const char *name;
	enum tgk_encap encap;	/* one flow of 64 segments of this encap, or: */
	unsigned int flows;	/* > 1: IPIP flows of 16, interleaved segment by segment */
	bool tunnel;		/* tungro's offloads see it (IPIP, SIT) */
};

static const struct bench_train bench_trains[] = {
	{ "plain4-1x64", TGK_PLAIN4, 1, false },
	{ "ipip-1x64", TGK_IPIP, 1, true },
	{ "sit-1x64", TGK_SIT, 1, true },
	{ "ipip-16x16", TGK_IPIP, 16, true },
};

static void bench_desc(const struct bench_train *t, char *desc)
{
	strscpy(desc, t->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(bench, bench_trains, bench_desc);

static const char *const path_name[TGK_PATHS] = { "kernel", "offloads", "engine", "gro_off" };

static unsigned int bench_build(const struct bench_train *t, struct tgk_seg *s)
{
	struct tgk_seg first;

	if (t->flows > 1) {
		tgk_flows_in_bursts(s, t->flows, 16, 1, 1400);
		return t->flows * 16;
	}
	tgk_default(&first, t->encap);
	tgk_train(s, 64, &first, 0);
	return 64;
}

static void tungro_bench_trains(struct kunit *test)
{
	const struct bench_train *t = test->param_value;
	struct tgk_seg *s = tgk_segs(test, BENCH_MAX_SEGS);
	struct tgk_bench_sample r[TGK_PATHS];
	unsigned int n = bench_build(t, s), rep, k, deferred = 0;

	KUNIT_ASSERT_TRUE_MSG(test, bench_reps >= 1 && bench_reps <= 1000, "bench_reps %u: 1..1000",
			      bench_reps);
	KUNIT_ASSERT_TRUE_MSG(test, bench_paths && bench_paths <= 0xf, "bench_paths %#x: 0x1..0xf",
			      bench_paths);
	if (bench_train[0] && strcmp(bench_train, t->name))
		kunit_skip(test, "bench_train=%s", bench_train);
	/*
	 * Where the text is, for guest-profile.py to name the blocks QEMU's plugin counted:
	 * addresses on purpose, in the log of a test module on a test kernel.
	 */
	kunit_info(test, "BENCHTEXT module=tungro_append:%lx kernel=napi_gro_receive:%lx\n",
		   (unsigned long)tungro_append, (unsigned long)napi_gro_receive);
	for (rep = 0; rep < bench_reps; rep++) {
		/* the kernel's run first in even reps, last in odd ones: drift hits both */
		for (k = 0; k < TGK_PATHS; k++) {
			enum tgk_path p = rep & 1 ? (k + 1) % TGK_PATHS : k;

			if ((p == TGK_PATH_OFFLOADS && !t->tunnel) || !(bench_paths & BIT(p)))
				continue;	/* plain TCP never reaches tungro's callbacks */
			if (p == TGK_PATH_KERNEL)
				tungro_offloads_remove();
			tgk_bench_run(test, s, n, p, &r[p]);
			if (p == TGK_PATH_KERNEL)
				KUNIT_ASSERT_EQ(test, tungro_offloads_install(), 0);
			KUNIT_EXPECT_EQ_MSG(test, r[p].segs, n, "%s: segments delivered",
					    path_name[p]);
			deferred += r[p].deferred;
			kunit_info(test,
				   "BENCH train=%s path=%s rep=%u ns=%llu segs=%u pkts=%u deferred=%d\n",
				   t->name, path_name[p], rep, r[p].ns, r[p].segs, r[p].pkts,
				   r[p].deferred);
		}
		if (bench_paths != 0xf)
			continue;	/* the comparisons need every path */
		if (t->tunnel)
			KUNIT_EXPECT_EQ_MSG(test, r[TGK_PATH_OFFLOADS].pkts,
					    r[TGK_PATH_KERNEL].pkts, "offloads vs kernel packets");
		KUNIT_EXPECT_LE_MSG(test, r[TGK_PATH_ENGINE].pkts, r[TGK_PATH_KERNEL].pkts,
				    "engine vs kernel GRO packets");
		KUNIT_EXPECT_EQ_MSG(test, r[TGK_PATH_GRO_OFF].pkts, n,
				    "GRO off: every segment alone");
		if (t->flows > 1) {
			/* issue 8's: one bucket of 8 evicts on every segment; 8 x 8 holds 16 */
			KUNIT_EXPECT_EQ(test, r[TGK_PATH_KERNEL].pkts, n);
			KUNIT_EXPECT_EQ(test, r[TGK_PATH_ENGINE].pkts, n / 4);
		}
	}
	kunit_info(test, "%s: %u segments, %u reps per path, %u engine runs left to ksoftirqd\n",
		   t->name, n, bench_reps, deferred);
}

static struct kunit_case tungro_bench_cases[] = {
	KUNIT_CASE_PARAM(tungro_bench_trains, bench_gen_params),
	{}
};

static struct kunit_suite tungro_bench_suite = {
	.name = "tungro_bench",
	.suite_init = tgk_suite_init,
	.suite_exit = tgk_suite_exit,
	.test_cases = tungro_bench_cases,
};

kunit_test_suites(&tungro_bench_suite);
