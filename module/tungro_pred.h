/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tungro_pred.h - the offload path's predictions (the core's tgc_pred), one CPU's in slots keyed by
 * the held skb's address.
 *
 * The kernel's GRO list keeps nothing of tungro's with a held packet but 4 bytes of skb->cb, so the
 * prediction of its next segment lives here: per CPU, in the slot of the skb's address
 * (hash_ptr()), and the skb carries this CPU's tag (tungro_cb_pred_cpu()). Why a slot that names a
 * list's packet, with the tag and tgc_pred_current(), holds that very packet's current prediction:
 *   - every hold on this CPU writes the slot of the held skb, so an address held again on this
 *     CPU never finds an older packet's prediction;
 *   - an skb held on another CPU carries that CPU's tag, and one that went through tungro's
 *     gro_receive without being held by it (delegated to the kernel's callback) 0, so an
 *     address freed and held again elsewhere never matches here, whichever CPU its NAPI runs on
 *     later (a packet the kernel held before the install may carry stale bytes, but no slot
 *     names it: slots name only skbs held since, and fresh skbs come with a zeroed cb);
 *   - tgc_receive() keeps an ON prediction up at each of its merges into the packet it was
 *     offered for; any other merge (found by find behind another candidate, a GSO arrival, a
 *     merge on another CPU after a NAPI moved) leaves its count behind the packet's for good, as
 *     counts only grow (tgc_pred_current()); a LAZY one is made from the packet as it is then.
 * More than 255 possible CPUs: the tag does not fit its byte, and there are no predictions.
 */
#ifndef TUNGRO_PRED_H
#define TUNGRO_PRED_H

#include <linux/hash.h>
#include <linux/percpu.h>
#include <linux/skbuff.h>
#include <net/gro.h>

#include "../cxxcore/include/tungro_core.h"
#include "tungro_cb.h"

#define TUNGRO_PRED_SLOT_BITS 4	/* 16 slots of 360 bytes (64-bit) a CPU */

struct tungro_pred_slot {
	const struct sk_buff *p;	/* the held packet the prediction is for, or NULL */
	unsigned int outer_off;		/* its outer network header's GRO offset */
	struct tgc_pred pred;
};

struct tungro_pred_cpu {
	struct tungro_pred_slot slot[1 << TUNGRO_PRED_SLOT_BITS];
};

/* This CPU's slots while tungro's offloads are installed; NULL without predictions. */
extern struct tungro_pred_cpu __percpu *tungro_preds;

/* @p's slot on this CPU, of @preds (BH context). */
static inline struct tungro_pred_slot *tungro_pred_slot_of(struct tungro_pred_cpu __percpu *preds,
							   const struct sk_buff *p)
{
	return &this_cpu_ptr(preds)->slot[hash_ptr(p, TUNGRO_PRED_SLOT_BITS)];
}

/* This CPU's tag in a held skb's cb (1 + its number): 0 is no CPU's. */
static inline u8 tungro_pred_tag(void)
{
	return (u8)(smp_processor_id() + 1);
}

int tungro_pred_alloc(void);
void tungro_pred_free(void);

/**
 * tungro_pred_hold() - the slot of a packet tungro's gro_receive holds now
 * @skb: the segment, held from now on as a new GRO packet; NAPI_GRO_CB(skb)->count set
 * @outer_off: its outer network header's GRO offset
 *
 * The slot of @skb's address names it from now on (the invariant above), with a LAZY prediction
 * (tgc_pred_hold(): made by the core's fast stage at the packet's second merge, the first
 * tungro_rx_predict() offers it for).
 *
 * Context: softirq (NAPI), the CPU that holds @skb.
 */
static inline void tungro_pred_hold(struct sk_buff *skb, unsigned int outer_off)
{
	struct tungro_pred_cpu __percpu *preds = READ_ONCE(tungro_preds);
	struct tungro_pred_slot *s;

	if (!preds)
		return;
	s = tungro_pred_slot_of(preds, skb);
	s->p = skb;
	s->outer_off = outer_off;
	tgc_pred_hold(&s->pred);
	tungro_cb_set_pred_cpu(skb, tungro_pred_tag());
}

#endif /* TUNGRO_PRED_H */
