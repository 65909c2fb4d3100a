/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tungro_cb.h - tungro's per-skb GRO state in skb->cb, after the kernel's struct napi_gro_cb, and
 * the layout asserts for every struct in skb->cb or crossing the C/C++ boundary (case A01). On a
 * kernel whose napi_gro_cb fills skb->cb (6.1), module/compat/ keeps the state elsewhere, behind
 * the same accessors (tungro_cb_reset() ...).
 *
 * The 2024 upstream break: a group of napi_gro_cb read and zeroed as one u32 was 4-aligned on x86
 * but only 2-aligned on m68k, where u32 aligns to 2. tungro_gro_cb is read as one 32-bit word too,
 * so its alignment is explicit (__aligned(4) and a 4-aligned offset), never left to the arch, and
 * asserted here on every arch.
 */
#ifndef TUNGRO_CB_H
#define TUNGRO_CB_H

#include <linux/build_bug.h>
#include <linux/jiffies.h>
#include <linux/skbuff.h>
#include <linux/stddef.h>
#include <net/gro.h>

#include "../cxxcore/include/tungro_core.h"
#include "compat/tungro_compat.h"

/*
 * Marks an skb that tungro's gro_receive held. The bytes after napi_gro_cb are not cleared by the
 * kernel, so a packet the kernel's GRO held before tungro was installed may carry anything there,
 * this value included: the magic alone never decides (tungro_held_by_us()).
 */
#define TUNGRO_CB_MAGIC 0x7467	/* "tg" */

/*
 * Marks an skb the engine path (tungro_engine.c) delivers to the stack: tungro's rx_handler sees it
 * again (netif_receive_skb_list, on this CPU or after RPS on another) and lets it pass instead of
 * queueing it again. The mark travels with the skb, so it holds across CPUs where a per-CPU guard
 * would not. The skbs a virtio-net device hands up are fresh (build_skb/napi_alloc_skb zero
 * skb->cb), so they never carry it.
 */
#define TUNGRO_CB_DELIVERED 0x7464	/* "td" */

#ifdef TUNGRO_HAVE_GRO_CB_TAIL
#ifndef TUNGRO_LAYOUT_SELFTEST
#define TUNGRO_CB_ALIGN __aligned(4)
/* Right after napi_gro_cb, rounded up to 4 explicitly: the arch's u32 alignment is not trusted. */
#define TUNGRO_CB_OFFSET ALIGN(sizeof(struct napi_gro_cb), 4)
#else
/*
 * Build knob for the negative proof (make cross-check TUNGRO_LAYOUT_SELFTEST=1): the 2024 mistake
 * on purpose. The group is placed after a u16 with only the arch's natural u32 alignment: offset 4
 * on x86 (passes, as upstream did on x86), offset 2 on m68k where u32 aligns to 2. The asserts
 * below must fail there and name the field.
 */
struct tungro_selftest_pair {
	u16 half;
	u32 word;
};

#define TUNGRO_CB_ALIGN
#define TUNGRO_CB_OFFSET \
	(ALIGN(sizeof(struct napi_gro_cb), 4) + offsetof(struct tungro_selftest_pair, word))
#endif

struct tungro_gro_cb {
	union {
		struct {
			u16 magic;	/* TUNGRO_CB_MAGIC */
			u8 id_state;	/* TGC_ID_FIXED() bits (the core's tgc_held.id_state) */
			u8 pred_cpu;	/* tungro_pred_tag() of the CPU whose slot holds its
					 * prediction; 0: none (tungro_pred.h)
					 */
		};
		u32 word;		/* the group, initialised as one 32-bit store */
	};
} TUNGRO_CB_ALIGN;

static inline struct tungro_gro_cb *TUNGRO_CB(const struct sk_buff *skb)
{
	return (struct tungro_gro_cb *)(skb->cb + TUNGRO_CB_OFFSET);
}

static inline void tungro_cb_reset(struct sk_buff *skb)
{
	TUNGRO_CB(skb)->word = 0;
}

/* @mark: TUNGRO_CB_MAGIC or TUNGRO_CB_DELIVERED; id_state is kept */
static inline void tungro_cb_set_mark(struct sk_buff *skb, u16 mark)
{
	TUNGRO_CB(skb)->magic = mark;
}

static inline bool tungro_cb_has_mark(const struct sk_buff *skb, u16 mark)
{
	return TUNGRO_CB(skb)->magic == mark;
}

static inline u8 tungro_cb_id_state(const struct sk_buff *skb)
{
	return TUNGRO_CB(skb)->id_state;
}

static inline void tungro_cb_set_id_state(struct sk_buff *skb, u8 id_state)
{
	TUNGRO_CB(skb)->id_state = id_state;
}

/* Whether the skb has a byte for tungro_pred.h's tag (6.12: yes; 6.1: compat/tungro_compat.h). */
static inline bool tungro_cb_has_pred_cpu(void)
{
	return true;
}

static inline u8 tungro_cb_pred_cpu(const struct sk_buff *skb)
{
	return TUNGRO_CB(skb)->pred_cpu;
}

static inline void tungro_cb_set_pred_cpu(struct sk_buff *skb, u8 tag)
{
	TUNGRO_CB(skb)->pred_cpu = tag;
}

/* The group's layout, and its place in skb->cb after napi_gro_cb. */
static inline void tungro_cb_layout_asserts(void)
{
	BUILD_BUG_ON_MSG(sizeof(struct tungro_gro_cb) != 4, "tungro_gro_cb: size must be 4");
	BUILD_BUG_ON_MSG(__alignof__(struct tungro_gro_cb) != 4,
			 "tungro_gro_cb: alignment must be 4 (it is read as one u32; m68k aligns u32 to 2)");
	BUILD_BUG_ON_MSG(offsetof(struct tungro_gro_cb, magic) != 0, "tungro_gro_cb.magic: offset");
	BUILD_BUG_ON_MSG(offsetof(struct tungro_gro_cb, id_state) != 2,
			 "tungro_gro_cb.id_state: offset");
	BUILD_BUG_ON_MSG(offsetof(struct tungro_gro_cb, pred_cpu) != 3,
			 "tungro_gro_cb.pred_cpu: offset");
	BUILD_BUG_ON_MSG(offsetof(struct tungro_gro_cb, word) != 0, "tungro_gro_cb.word: offset");
	BUILD_BUG_ON_MSG(TUNGRO_CB_OFFSET % 4 != 0,
			 "tungro_gro_cb.word (magic, id_state, pred_cpu: one u32) must sit 4-aligned in skb->cb");
	BUILD_BUG_ON_MSG(TUNGRO_CB_OFFSET + sizeof(struct tungro_gro_cb) >
			 sizeof_field(struct sk_buff, cb),
			 "tungro_gro_cb does not fit in skb->cb after napi_gro_cb");
}
#endif /* TUNGRO_HAVE_GRO_CB_TAIL */

/*
 * Whether held packet @p was built by tungro's gro_receive (else the kernel's GRO held it, and the
 * kernel's own callbacks must complete it). Every skb that reaches tungro's gro_receive gets its
 * word written (the magic when held, zero otherwise, delegated ones included); the only skbs in
 * tungro's slots that never passed through it are those the kernel held before the slots changed,
 * and those are older than tungro_installed_at. The age test runs only in the first second after
 * the install (a held packet lives one NAPI poll, or gro_flush_timeout), so the wrap-around of
 * jiffies never matters. A wrong "no" costs one merge: the packet goes to the kernel's callbacks,
 * which accept tungro's packets. A wrong "yes" needs a kernel-held packet older than the install
 * still held a second later (a gro_flush_timeout over a second) with stale bytes equal to the
 * magic; gro_complete then falls back to the kernel's callback if the core cannot complete it.
 */
static __always_inline bool tungro_held_by_us(const struct sk_buff *p, unsigned long installed_at)
{
	if (!tungro_cb_has_mark(p, TUNGRO_CB_MAGIC))
		return false;
	return !time_before(jiffies, installed_at + HZ) ||
	       time_after(NAPI_GRO_CB(p)->age, installed_at);
}

/* One place for every layout fact; checked at build time on every arch tungro builds for. */
static inline void tungro_layout_asserts(void)
{
	tungro_cb_layout_asserts();
	/*
	 * skb->cb itself is 8-aligned in struct sk_buff on every arch, so a 4-aligned offset is a
	 * 4-aligned address.
	 */
	BUILD_BUG_ON_MSG(offsetof(struct sk_buff, cb) % 4 != 0, "skb->cb must be 4-aligned");
	/* The kernel's own u32 group, the one that broke m68k in 2024. */
	BUILD_BUG_ON_MSG(offsetof(struct napi_gro_cb, zeroed) % 4 != 0,
			 "napi_gro_cb.zeroed must be 4-aligned");

	/* Structs shared with the C++ core are pinned next to their definitions (tungro_core.h). */
}

#endif /* TUNGRO_CB_H */
