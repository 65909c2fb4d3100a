/* SPDX-License-Identifier: GPL-2.0 */
/* tungro.h - declarations shared by the C glue files of tungro.ko. */
#ifndef TUNGRO_H
#define TUNGRO_H

#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <net/protocol.h>

#include "../cxxcore/include/tungro_core.h"

/* Per-CPU counters, summed by debugfs tungro/stats. Every skb tungro's gro_receive sees ends in exactly one of
 * held, merged, passed or delegated, so GRO packets delivered = held + passed. */
struct tungro_stats {
	u64 seen;		/* skbs entering tungro's gro_receive */
	u64 held;		/* started a new GRO packet */
	u64 merged;		/* appended to a held GRO packet */
	u64 passed;		/* delivered unmerged (GRO_NORMAL) */
	u64 delegated;		/* not TCP: handed to the kernel's own tunnel GRO */
	u64 completed;		/* GRO packets of 2+ segments completed by tungro's gro_complete */
	u64 foreign_completed;	/* held packets built by the kernel's GRO, completed by the kernel's callback */
	u64 hist[TGC_HIST_BUCKETS];	/* segments per completed GRO packet (buckets of tgc_hist_bucket) */
	u64 reason[TGC_R_COUNT];	/* why segments were not merged or held packets ended early */
};

DECLARE_PER_CPU(struct tungro_stats, tungro_stats);

static inline void tungro_count_reason(unsigned int reason)
{
	if (reason && reason < TGC_R_COUNT)
		this_cpu_inc(tungro_stats.reason[reason]);
}

/* The kernel's offloads saved at load, used for GSO and for packets tungro does not own. */
extern const struct net_offload *tungro_orig_ipip;
extern const struct net_offload *tungro_orig_sit;

struct sk_buff *tungro_ipip_gro_receive(struct list_head *head, struct sk_buff *skb);
struct sk_buff *tungro_sit_gro_receive(struct list_head *head, struct sk_buff *skb);
int tungro_ipip_gro_complete(struct sk_buff *skb, int nhoff);
int tungro_sit_gro_complete(struct sk_buff *skb, int nhoff);

/* Installs tungro's IPIP and SIT offloads (saving the kernel's); 0 or -ENOENT/-EBUSY. */
int tungro_offloads_install(void);
/* Restores the kernel's offloads and waits until no CPU runs tungro's callbacks. */
void tungro_offloads_remove(void);

int tungro_stats_init(void);
void tungro_stats_exit(void);

#endif /* TUNGRO_H */
