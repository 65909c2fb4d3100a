/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tungro_engine.h - the engine path: virtio-net devices attached to tungro (tungro_attach.c) and
 * the NAPI instances, one per receive queue, that run the core's engine over their packets
 * (tungro_engine.c).
 */
#ifndef TUNGRO_ENGINE_H
#define TUNGRO_ENGINE_H

#include <linux/atomic.h>
#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/netdevice.h>
#include <linux/seq_file.h>
#include <linux/skbuff.h>
#include <linux/smp.h>
#include <linux/u64_stats_sync.h>
#include <linux/udp.h>

#include "../cxxcore/include/tungro_core.h"

/* Counters of one receive queue's NAPI instance, besides the engine's (tgc_engine_stats). */
enum tungro_q_stat {
	TUNGRO_Q_POLLS,			/* poll calls */
	TUNGRO_Q_POLLS_FULL,		/* polls that used their whole budget */
	TUNGRO_Q_TIMER_ARMED,		/* completions keeping packets for gro_flush_timeout */
	TUNGRO_Q_REHOMES,		/* polls on another CPU than the last (after idling) */
	TUNGRO_Q_LISTS,			/* lists handed to netif_receive_skb_list */
	TUNGRO_Q_LIST_PKTS,		/* packets in them */
	TUNGRO_Q_LIST_SEGS,		/* wire segments in them */
	TUNGRO_Q_COMPLETED,		/* GRO packets of 2+ segments completed */
	TUNGRO_Q_FINISH_FAILED,		/* GRO packet headers not fixable (delivered as is) */
	TUNGRO_Q_UNCLONE_FAILED,	/* a cloned skb (a tap) whose head stayed shared */
	TUNGRO_Q_HDR_FAILED,		/* headers could not be pulled into the linear part */
	TUNGRO_Q_HIST,			/* TGC_HIST_BUCKETS: segments per GRO packet */
	TUNGRO_Q_COUNT = TUNGRO_Q_HIST + TGC_HIST_BUCKETS
};

/* Traffic the engine does not handle: passed up unmerged, counted by kind. */
enum tungro_nh {
	TUNGRO_NH_GRE,
	TUNGRO_NH_UDP,			/* plain UDP, UDP GRO impossible (tungro_udp.c) */
	TUNGRO_NH_OTHER,		/* ARP, ICMP, other IP protocols, IPv6 tunnels, non-IP */
	TUNGRO_NH_COUNT
};

struct tungro_dev;

/* One receive queue of an attached device: its input queue, its NAPI instance and its engine. */
struct tungro_rxq {
	struct napi_struct napi;	/* on the attached device's dummy netdev */
	struct sk_buff_head input;	/* filled by the rx_handler (any CPU), under input.lock */
	struct tungro_dev *td;
	struct tgc_engine *engine;	/* in mem: buckets x flows held packets */
	u32 flags;			/* its TGC_ENGINE_* (for tgc_parse_as()) */
	void *mem;
	struct list_head out;		/* packets to deliver, in order */
	unsigned int out_pkts, out_segs;
	unsigned int merged;		/* merged skbs freed, not yet taken off td->inflight */
	bool direct;			/* device going away: netif_receive_skb_core */
	u32 defer_count;		/* napi_defer_hard_irqs deferrals left (poll only) */
	unsigned int cpu;		/* where the last frame was queued (tungro_rxq_kick) */
	unsigned int poll_cpu;		/* where the last poll ran (a detach's direct pass) */
	unsigned long last_poll;	/* jiffies at the end of the last poll */
	call_single_data_t csd;		/* a poll scheduled on poll_cpu from another CPU */
	struct hrtimer timer;		/* gro_flush_timeout: polls again for what is kept */
	u64 acc[TUNGRO_Q_COUNT];	/* counters, written by the NAPI poll only ... */
	struct u64_stats_sync syncp;	/* ... published at the end of each poll: */
	u64_stats_t c[TUNGRO_Q_COUNT];
	struct tgc_engine_stats snap;
};

/* An attached device. Created, found and freed under rtnl. */
struct tungro_dev {
	struct list_head node;
	struct net_device *dev;
	struct net_device *napi_dev;	/* alloc_netdev_dummy(): carries the NAPI instances */
	struct dentry *dir;		/* debugfs tungro/<dev>/ */
	bool gro_was_wanted;		/* NETIF_F_GRO in wanted_features before the attach */
	bool closing;			/* detaching: flush all, pass frames once idle */
	int rx_cpu;			/* CPU of the rx_handler's latest frame; -1: none yet */
	atomic_t inflight;		/* skbs queued or held, not yet handed to the stack */
	atomic64_t not_handled[TUNGRO_NH_COUNT];
	unsigned int nq;
	struct tungro_rxq rxq[];
};

int tungro_rxq_init(struct tungro_rxq *q, struct tungro_dev *td, u32 buckets, u32 flows, u32 flags);
void tungro_rxq_enqueue(struct tungro_rxq *q, struct sk_buff *skb);
void tungro_rxq_kick(struct tungro_rxq *q);
void tungro_napi_schedule_on(struct napi_struct *napi, int cpu);
void tungro_rxq_stop(struct tungro_rxq *q, bool direct, u64 *held, u64 *queued);
void tungro_rxq_free(struct tungro_rxq *q);
int tungro_engine_show(struct seq_file *m, struct tungro_dev *td);

/* tungro_udp.c: the engine's UDP GRO question (6.12's udp_gro_receive), answered for the core */
u32 tungro_udp_gro_lookup(struct sk_buff *skb, const struct tgc_seg *seg);

/* Device features that let 6.12 merge UDP with no UDP_GRO socket (udp_gro_receive). */
#define TUNGRO_UDP_DEV_FEATURES (NETIF_F_GRO_UDP_FWD | NETIF_F_GRO_FRAGLIST)

/**
 * tungro_udp_gro_possible() - whether any UDP datagram on @dev may be merged now
 * @dev: the attached device
 *
 * False while no socket has UDP_GRO (or UDP encapsulation) on and @dev has neither
 * NETIF_F_GRO_UDP_FWD nor NETIF_F_GRO_FRAGLIST: then no lookup can say yes, and the rx_handler
 * may pass plain UDP up without the engine. Inline: asked of every frame in the poll, and of
 * plain UDP in the rx_handler. Any context.
 *
 * Return: true when a datagram on @dev may be merged, depending on its socket.
 */
static inline bool tungro_udp_gro_possible(const struct net_device *dev)
{
	return udp_encap_needed() || (READ_ONCE(dev->features) & TUNGRO_UDP_DEV_FEATURES);
}

/**
 * tungro_udp_gro_in() - TGC_IN_UDP_GRO for a segment the engine is about to receive, or 0
 * @skb: the segment (skb->dev the attached device), headers pulled to @seg->hdr
 * @seg: the segment as the engine will see it (hdr, hdr_len, pkt_len, encap set)
 *
 * 0 at once while no datagram on the device may merge (tungro_udp_gro_possible()), else
 * tungro_udp_gro_lookup()'s answer. Softirq (the engine's NAPI poll).
 *
 * Return: TGC_IN_UDP_GRO, or 0.
 */
static inline u32 tungro_udp_gro_in(struct sk_buff *skb, const struct tgc_seg *seg)
{
	return tungro_udp_gro_possible(skb->dev) ? tungro_udp_gro_lookup(skb, seg) : 0;
}

#endif /* TUNGRO_ENGINE_H */
