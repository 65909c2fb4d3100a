/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tungro_trace.h - tracepoints of tungro.ko, in tracefs as events/tungro/ (tungro_kunit.ko,
 * which links the same glue, defines them as events/tungro_kunit/). Field names are stable:
 * perf, trace-cmd and bpftrace scripts may rely on them (README, "Statistics and traces").
 * Disabled, each costs a static branch: what needs work (the flow hash) is computed only under
 * trace_<event>_enabled().
 */
#undef TRACE_SYSTEM
#ifdef TUNGRO_TRACE_KUNIT
#define TRACE_SYSTEM tungro_kunit
#else
#define TRACE_SYSTEM tungro
#endif

#if !defined(TUNGRO_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define TUNGRO_TRACE_H

#include <linux/netdevice.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "../cxxcore/include/tungro_core.h"

/* tungro_flush.layer: which of tungro's GRO layers decided */
#define TUNGRO_LAYER_OFFLOAD	0	/* the IPIP/SIT offload slot, called by the kernel's GRO */
#define TUNGRO_LAYER_ENGINE	1	/* the engine of an attached device (tungro's own NAPI) */

/*
 * enum tgc_encap's constants resolved in the format file, so that perf and trace-cmd print
 * tungro_flush.encap by name: without these, user space sees the enum names and prints 0x1.
 */
TRACE_DEFINE_ENUM(TGC_ENCAP_NONE);
TRACE_DEFINE_ENUM(TGC_ENCAP_IPIP);
TRACE_DEFINE_ENUM(TGC_ENCAP_SIT);
TRACE_DEFINE_ENUM(TGC_ENCAP_IP4IP6);
TRACE_DEFINE_ENUM(TGC_ENCAP_IP6IP6);

/*
 * tungro_flush - a segment was not merged, or it ends its flow's GRO packet: one event wherever
 * debugfs counts flush_<reason> (tungro/stats for the offload layer, tungro/<dev>/stats for the
 * engine), so per reason the events equal the counter's increase over the same interval.
 * @reason: enum tgc_reason; reason_name: its debugfs name without "flush_"
 * @layer: TUNGRO_LAYER_OFFLOAD or TUNGRO_LAYER_ENGINE
 * @encap: the segment's tunnel, enum tgc_encap (1 IPIP, 2 SIT, 3 ip4ip6, 4 ip6ip6; 0 plain TCP,
 *         engine only), printed by its row's name
 * @hash: tungro's flow hash of the segment (tgc_flow_hash(): innermost addresses and ports,
 *        outer addresses), 0 when its headers locate no flow
 * @segs: wire segments the segment stands for (1, or its gso_segs when it arrived GSO)
 * @bytes: the segment's bytes from its outer network header
 * @ends: 1 when the flow's held GRO packet is completed now because of this segment
 */
TRACE_EVENT(tungro_flush,
	    TP_PROTO(unsigned int reason, unsigned int layer, unsigned int encap, u32 hash,
		     unsigned int segs, unsigned int bytes, bool ends),
	    TP_ARGS(reason, layer, encap, hash, segs, bytes, ends),
	    TP_STRUCT__entry(__field(u32, hash)
			     __field(u32, bytes)
			     __field(u16, segs)
			     __field(u8, reason)
			     __field(u8, layer)
			     __field(u8, encap)
			     __field(u8, ends)
			     __array(char, reason_name, 16)),
	    TP_fast_assign(__entry->hash = hash;
			   __entry->bytes = bytes;
			   __entry->segs = segs;
			   __entry->reason = reason;
			   __entry->layer = layer;
			   __entry->encap = encap;
			   __entry->ends = ends;
			   strscpy_pad(__entry->reason_name, tgc_reason_name(reason),
				       sizeof(__entry->reason_name));),
	    TP_printk("reason=%s layer=%s encap=%s hash=0x%08x segs=%u bytes=%u ends=%u",
		      __entry->reason_name,
		      __print_symbolic(__entry->layer, { TUNGRO_LAYER_OFFLOAD, "offload" },
				       { TUNGRO_LAYER_ENGINE, "engine" }),
		      __print_symbolic(__entry->encap, { TGC_ENCAP_NONE, "none" },
				       { TGC_ENCAP_IPIP, "ipip" }, { TGC_ENCAP_SIT, "sit" },
				       { TGC_ENCAP_IP4IP6, "ip4ip6" },
				       { TGC_ENCAP_IP6IP6, "ip6ip6" }),
		      __entry->hash, __entry->segs, __entry->bytes, __entry->ends)
);

/*
 * tungro_deliver - the engine handed one list of packets to the stack (netif_receive_skb_list(),
 * or netif_receive_skb_core() one by one while the device is being unregistered): one event
 * wherever debugfs tungro/<dev>/stats counts lists, list_pkts and list_segs.
 * @dev: the attached device (dev: its name, ifindex)
 * @queue: its receive queue (the engine instance)
 * @pkts: packets in the list (GRO packets and unmerged segments)
 * @segs: wire segments in them
 * @direct: 1 when delivered with netif_receive_skb_core() (device going away)
 */
TRACE_EVENT(tungro_deliver,
	    TP_PROTO(const struct net_device *dev, unsigned int queue, unsigned int pkts,
		     unsigned int segs, bool direct),
	    TP_ARGS(dev, queue, pkts, segs, direct),
	    TP_STRUCT__entry(__array(char, dev, IFNAMSIZ)
			     __field(int, ifindex)
			     __field(u32, pkts)
			     __field(u32, segs)
			     __field(u16, queue)
			     __field(u8, direct)),
	    TP_fast_assign(strscpy_pad(__entry->dev, dev->name, IFNAMSIZ);
			   __entry->ifindex = dev->ifindex;
			   __entry->pkts = pkts;
			   __entry->segs = segs;
			   __entry->queue = queue;
			   __entry->direct = direct;),
	    TP_printk("dev=%s ifindex=%d queue=%u pkts=%u segs=%u direct=%u", __entry->dev,
		      __entry->ifindex, __entry->queue, __entry->pkts, __entry->segs,
		      __entry->direct)
);

#endif /* TUNGRO_TRACE_H */

/* Out of the kernel tree: define_trace.h finds this header through Kbuild's -I$(src)/module. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE tungro_trace
#include <trace/define_trace.h>
