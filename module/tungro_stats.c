// SPDX-License-Identifier: GPL-2.0
/* tungro_stats.c - per-CPU counters and debugfs tungro/stats ("key value" lines, for cat). */
#define pr_fmt(fmt) "tungro: " fmt	/* also linked into tungro_kunit.ko: one name in the log */

#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "tungro.h"

DEFINE_PER_CPU(struct tungro_pcpu_stats, tungro_stats);

static struct dentry *tungro_debugfs_dir;

/*
 * Names of the histogram buckets of tgc_hist_bucket(), for GRO packets of 2+ segments (bucket 0 is
 * never used: the kernel does not call gro_complete for a one-segment packet).
 */
static const char *const tungro_hist_names[TGC_HIST_BUCKETS] = {
	"1", "2", "3_4", "5_8", "9_16", "17_32", "33_64", "65_up",
};

/**
 * tungro_stats_init() - initialise the per-CPU counters' u64_stats_sync (before any GRO callback)
 */
void tungro_stats_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(&tungro_stats, cpu)->syncp);
}

/**
 * tungro_stat_sum() - one counter summed over every possible CPU
 * @idx: enum tungro_stat index (TUNGRO_S_HIST + bucket, TUNGRO_S_REASON + reason included)
 *
 * Each CPU's 64-bit value is read whole (u64_stats_fetch_begin/retry) on 32-bit CPUs too.
 *
 * Return: the sum.
 */
u64 tungro_stat_sum(unsigned int idx)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		const struct tungro_pcpu_stats *s = per_cpu_ptr(&tungro_stats, cpu);
		unsigned int start;
		u64 v;

		do {
			start = u64_stats_fetch_begin(&s->syncp);
			v = u64_stats_read(&s->c[idx]);
		} while (u64_stats_fetch_retry(&s->syncp, start));
		sum += v;
	}
	return sum;
}

static int tungro_stats_show(struct seq_file *m, void *unused)
{
	static const struct { const char *name; unsigned int idx; } plain[] = {
		{ "seen", TUNGRO_S_SEEN },
		{ "held", TUNGRO_S_HELD },
		{ "merged", TUNGRO_S_MERGED },
		{ "merged_fast", TUNGRO_S_MERGED_FAST },
		{ "merged_predicted", TUNGRO_S_MERGED_PRED },
		{ "passed", TUNGRO_S_PASSED },
		{ "delegated", TUNGRO_S_DELEGATED },
		{ "completed", TUNGRO_S_COMPLETED },
		{ "foreign_completed", TUNGRO_S_FOREIGN_COMPLETED },
		{ "complete_fallback", TUNGRO_S_COMPLETE_FALLBACK },
	};
	u64 held = tungro_stat_sum(TUNGRO_S_HELD), passed = tungro_stat_sum(TUNGRO_S_PASSED);
	u64 ended = tungro_stat_sum(TUNGRO_S_COMPLETED) +
		    tungro_stat_sum(TUNGRO_S_COMPLETE_FALLBACK);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(plain); i++)
		seq_printf(m, "%s %llu\n", plain[i].name, tungro_stat_sum(plain[i].idx));
	/*
	 * Every GRO packet tungro starts (held or passed) is delivered exactly once, now or when
	 * its poll ends.
	 */
	seq_printf(m, "gro_packets %llu\n", held + passed);
	/*
	 * Delivered as one segment: the passed ones. Held ones that got no second segment are not
	 * seen by tungro (the kernel completes them without a callback), so they are counted with
	 * those still held right now.
	 */
	seq_printf(m, "segs_1_passed %llu\n", passed);
	seq_printf(m, "held_1_or_open %llu\n", held - min(ended, held));
	for (i = 1; i < TGC_HIST_BUCKETS; i++)
		seq_printf(m, "segs_%s %llu\n", tungro_hist_names[i],
			   tungro_stat_sum(TUNGRO_S_HIST + i));
	for (i = 1; i < TGC_R_COUNT; i++)
		seq_printf(m, "flush_%s %llu\n", tgc_reason_name(i),
			   tungro_stat_sum(TUNGRO_S_REASON + i));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(tungro_stats);

/**
 * tungro_debugfs_init() - create debugfs tungro/ and its stats file
 *
 * debugfs failures are not errors for a module (debugfs may be off): the stats file is absent.
 */
void tungro_debugfs_init(void)
{
	tungro_debugfs_dir = debugfs_create_dir("tungro", NULL);
	debugfs_create_file("stats", 0444, tungro_debugfs_dir, NULL, &tungro_stats_fops);
}

/**
 * tungro_debugfs_root() - tungro's debugfs directory, for the engine path's files
 *
 * Return: the dentry of tungro/, or NULL or an error pointer when debugfs is off (debugfs
 * calls accept both).
 */
struct dentry *tungro_debugfs_root(void)
{
	return tungro_debugfs_dir;
}

/**
 * tungro_debugfs_exit() - remove debugfs tungro/ and everything under it
 */
void tungro_debugfs_exit(void)
{
	debugfs_remove_recursive(tungro_debugfs_dir);
}
