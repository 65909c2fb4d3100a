/* SPDX-License-Identifier: GPL-2.0 */
/* tungro.h - declarations shared by the C glue of tungro.ko (and tungro_kunit.ko, linking it). */
#ifndef TUNGRO_H
#define TUNGRO_H

#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/u64_stats_sync.h>
#include <net/protocol.h>

#include "../cxxcore/include/tungro_core.h"

/*
 * Counters, one u64 each per CPU, summed by debugfs tungro/stats. Every skb tungro's gro_receive
 * sees ends in exactly one of held, merged, passed or delegated.
 */
enum tungro_stat {
	/* skbs entering tungro's gro_receive */
	TUNGRO_S_SEEN,
	/* started a new GRO packet */
	TUNGRO_S_HELD,
	/* appended to a held GRO packet */
	TUNGRO_S_MERGED,
	/* of those, taken by the core's fast stage (tgc_rx_ops.expect: no parse, find or decide) */
	TUNGRO_S_MERGED_FAST,
	/* of those, taken by its predicted stage (tgc_rx_ops.predict: tungro_pred.h) */
	TUNGRO_S_MERGED_PRED,
	/* delivered unmerged (GRO_NORMAL) */
	TUNGRO_S_PASSED,
	/* handed to the kernel's own tunnel GRO (not TCP, FOU/GUE, IPv6 extension headers) */
	TUNGRO_S_DELEGATED,
	/* GRO packets of 2+ segments completed by tungro's gro_complete */
	TUNGRO_S_COMPLETED,
	/*
	 * held packets tungro did not build (held before the load, or by a delegated callback),
	 * completed by the kernel's callback
	 */
	TUNGRO_S_FOREIGN_COMPLETED,
	/* marked as tungro's but not completable by the core: kernel's callback */
	TUNGRO_S_COMPLETE_FALLBACK,
	/* TGC_HIST_BUCKETS counters: segments per completed GRO packet (2+) */
	TUNGRO_S_HIST,
	/* TGC_R_COUNT counters, one per enum tgc_reason */
	TUNGRO_S_REASON = TUNGRO_S_HIST + TGC_HIST_BUCKETS,
	TUNGRO_S_COUNT = TUNGRO_S_REASON + TGC_R_COUNT
};

struct tungro_pcpu_stats {
	u64_stats_t c[TUNGRO_S_COUNT];
	struct u64_stats_sync syncp;	/* 64-bit counters read whole on 32-bit CPUs too (m68k) */
};

DECLARE_PER_CPU(struct tungro_pcpu_stats, tungro_stats);

/* Adds @n to counter @idx of this CPU. Callers run in BH context (GRO): one writer per CPU. */
static inline void tungro_count(unsigned int idx, u64 n)
{
	struct tungro_pcpu_stats *s = this_cpu_ptr(&tungro_stats);

	u64_stats_update_begin(&s->syncp);
	u64_stats_add(&s->c[idx], n);
	u64_stats_update_end(&s->syncp);
}

static inline void tungro_count_reason(unsigned int reason)
{
	if (reason && reason < TGC_R_COUNT)
		tungro_count(TUNGRO_S_REASON + reason, 1);
}

/* Sums counter @idx over all CPUs (debugfs, tests). */
u64 tungro_stat_sum(unsigned int idx);

/*
 * One protocol slot of inet_offloads[] or inet6_offloads[] that tungro takes over. @orig is the
 * kernel's own built-in offload, saved before tungro's is published (read it with tungro_orig());
 * @ours carries the kernel's gso_segment and tungro's gro_receive/gro_complete.
 */
struct tungro_slot {
	const char *name;		/* "IPIP", "SIT", "ip4ip6", "ip6ip6": for messages */
	int proto;			/* IPPROTO_IPIP or IPPROTO_IPV6: the index in its array */
	bool ipv6;			/* in inet6_offloads[] (outer IPv6), else inet_offloads[] */
	unsigned int encap;		/* enum tgc_encap of the packets reaching it */
	const struct net_offload *orig;
	struct net_offload ours;
	bool installed;
};

/* In the order they are taken over (and given back in reverse). */
enum tungro_slot_id { TUNGRO_SLOT_IPIP, TUNGRO_SLOT_SIT, TUNGRO_SLOT_IP4IP6, TUNGRO_SLOT_IP6IP6,
		      TUNGRO_SLOT_COUNT };
extern struct tungro_slot tungro_slots[TUNGRO_SLOT_COUNT];
#define tungro_slot_ipip (tungro_slots[TUNGRO_SLOT_IPIP])
#define tungro_slot_sit (tungro_slots[TUNGRO_SLOT_SIT])
/* jiffies once every CPU sees tungro's slots: a held packet older than this is the kernel's. */
extern unsigned long tungro_installed_at;

/*
 * The kernel's offload behind @slot, for a caller that was reached through tungro's published
 * callbacks. The pointer is stored before the publishing cmpxchg (a full barrier); a CPU that
 * already loaded the slot but reads a stale NULL here orders its loads and reads again, so it never
 * calls through NULL (finding 1 of issue 7).
 */
static inline const struct net_offload *tungro_orig(const struct tungro_slot *slot)
{
	const struct net_offload *orig = READ_ONCE(slot->orig);

	if (unlikely(!orig)) {
		smp_rmb();	/* pairs with the publishing cmpxchg: the slot load came first */
		orig = READ_ONCE(slot->orig);
	}
	return orig;
}

/* tungro's callbacks for each slot (tungro_gro.c), indexed by enum tungro_slot_id */
extern struct sk_buff *(*const tungro_gro_receive_of[TUNGRO_SLOT_COUNT])(struct list_head *head,
									 struct sk_buff *skb);
extern int (*const tungro_gro_complete_of[TUNGRO_SLOT_COUNT])(struct sk_buff *skb, int nhoff);

/* tungro's flow hash of a segment, for the tungro_flush tracepoint (tungro_gro.c); 0: no flow. */
u32 tungro_seg_hash(const struct tgc_seg *seg);

/* skb mechanics of tungro_gro.c, shared by the offload path and the engine path. */
const u8 *tungro_header_view(struct sk_buff *skb, unsigned int off, unsigned int have, bool detect,
			     unsigned int *encap, unsigned int *len);
int tungro_append(struct sk_buff *p, struct sk_buff *skb);
void tungro_gso_fixup(struct sk_buff *skb, int nhoff, unsigned int encap,
		      const struct tgc_completion *c, unsigned int segs);

/*
 * Installs tungro's IPIP and SIT offloads, saving the kernel's. Refuses (-EBUSY, with a message
 * naming what is there) a slot that does not hold the kernel's own built-in offload: stacking on
 * another module's hooks would leave one of us calling into freed memory when the other unloads.
 * Returns 0, -ENOENT or -EBUSY; sleeps (it waits for every CPU to see the new slots and for jiffies
 * to pass the install, see tungro_installed_at).
 */
int tungro_offloads_install(void);
/*
 * Restores the kernel's offloads and waits until no CPU runs tungro's callbacks. If another module
 * has stacked its own offload on top of tungro's, says so and waits (logging every 10 s) for that
 * module to put tungro's back: freeing tungro's code under it would leave a dangling pointer in
 * inet_offloads[].
 */
void tungro_offloads_remove(void);

/* Per-CPU counter set-up (u64_stats_init) and the debugfs directory tungro/ with its stats file. */
void tungro_stats_init(void);
void tungro_debugfs_init(void);
void tungro_debugfs_exit(void);
struct dentry *tungro_debugfs_root(void);

#endif /* TUNGRO_H */
