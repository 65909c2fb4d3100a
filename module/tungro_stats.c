// SPDX-License-Identifier: GPL-2.0
/* tungro_stats.c - per-CPU counters and debugfs tungro/stats ("key value" lines, readable with cat). */
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "tungro.h"

DEFINE_PER_CPU(struct tungro_stats, tungro_stats);

static struct dentry *tungro_debugfs_dir;

/* Upper bounds of the histogram buckets of tgc_hist_bucket(). */
static const char *const tungro_hist_names[TGC_HIST_BUCKETS] = {
	"1", "2", "3_4", "5_8", "9_16", "17_32", "33_64",
};

static int tungro_stats_show(struct seq_file *m, void *unused)
{
	struct tungro_stats sum = {};
	unsigned int i;
	int cpu;

	for_each_possible_cpu(cpu) {
		const struct tungro_stats *s = per_cpu_ptr(&tungro_stats, cpu);

		sum.seen += s->seen;
		sum.held += s->held;
		sum.merged += s->merged;
		sum.passed += s->passed;
		sum.delegated += s->delegated;
		sum.completed += s->completed;
		sum.foreign_completed += s->foreign_completed;
		for (i = 0; i < TGC_HIST_BUCKETS; i++)
			sum.hist[i] += s->hist[i];
		for (i = 0; i < TGC_R_COUNT; i++)
			sum.reason[i] += s->reason[i];
	}
	/* Single-segment GRO packets never reach gro_complete: they are all those delivered minus the completed. */
	sum.hist[0] = sum.held + sum.passed - min(sum.completed, sum.held + sum.passed);
	seq_printf(m, "seen %llu\nheld %llu\nmerged %llu\npassed %llu\ndelegated %llu\n", sum.seen, sum.held,
		   sum.merged, sum.passed, sum.delegated);
	seq_printf(m, "completed %llu\nforeign_completed %llu\n", sum.completed, sum.foreign_completed);
	/* Every GRO packet tungro delivers started as a held or a passed segment. */
	seq_printf(m, "gro_packets %llu\n", sum.held + sum.passed);
	for (i = 0; i < TGC_HIST_BUCKETS; i++)
		seq_printf(m, "segs_%s %llu\n", tungro_hist_names[i], sum.hist[i]);
	for (i = 1; i < TGC_R_COUNT; i++)
		seq_printf(m, "flush_%s %llu\n", tgc_reason_name(i), sum.reason[i]);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(tungro_stats);

int tungro_stats_init(void)
{
	tungro_debugfs_dir = debugfs_create_dir("tungro", NULL);
	debugfs_create_file("stats", 0444, tungro_debugfs_dir, NULL, &tungro_stats_fops);
	return 0;
}

void tungro_stats_exit(void)
{
	debugfs_remove_recursive(tungro_debugfs_dir);
}
