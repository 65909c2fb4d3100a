// SPDX-License-Identifier: GPL-2.0
/*
 * tungro_gro.c - gro_receive/gro_complete for IPIP and SIT: translate sk_buff + NAPI_GRO_CB to the
 * core's byte views, act on the core's verdict, and do the skb mechanics (the kernel's
 * skb_gro_receive is not exported in 6.12, so appending a segment to a held packet is done here).
 *
 * Where we are called: dev_gro_receive -> inet_gro_receive (outer IPv4 checked: 0x45, not a
 * fragment, header checksum, outer same_flow on addresses and protocol) -> inet_offloads[4 or
 * 41]->gro_receive, with the GRO offset just past the outer header and
 * NAPI_GRO_CB(skb)->network_offsets[0] at it (6.1: skb->network_header). Kernel differences are
 * handled in compat/tungro_compat.h.
 */
#define pr_fmt(fmt) "tungro: " fmt	/* also linked into tungro_kunit.ko: one name in the log */

#include <linux/skbuff.h>
#include <linux/mm.h>
#include <net/gro.h>
#include <net/ip6_checksum.h>

#include "tungro.h"
#include "tungro_cb.h"
#include "tungro_pred.h"
#include "tungro_trace.h"

/*
 * Forgets frag0 after a pull through skb_gro_header_slow(), tungro's or the kernel's. The pull
 * (pskb_may_pull()) may have moved the head (cloned skb, little tailroom) or released the page
 * frag0 points into (a frag of headers only), and 6.12's skb_gro_header_slow() leaves frag0 set,
 * so the kernel's own helpers (skb_gro_network_header() in the checksum pseudo-header) and
 * tungro's reads would still go through it: clear it, as older kernels did, so every header
 * pointer comes from skb->data. The headers then sit in the linear part: dev_gro_receive() has
 * nothing to copy from frag0.
 */
static void tungro_frag0_forget(struct sk_buff *skb)
{
	NAPI_GRO_CB(skb)->frag0 = NULL;
	NAPI_GRO_CB(skb)->frag0_len = 0;
}

/* @need bytes of headers from GRO offset @off: through frag0 while it holds them, else pulled. */
static const u8 *tungro_header_at(struct sk_buff *skb, unsigned int off, unsigned int need)
{
	const u8 *hdr;

	if (skb_gro_may_pull(skb, off + need))
		return skb_gro_header_fast(skb, off);
	hdr = skb_gro_header_slow(skb, off + need, off);
	if (!hdr)
		return NULL;
	tungro_frag0_forget(skb);
	return hdr;
}

/*
 * The bytes from GRO offset @off that frag0 holds, at most @pkt_len and TGC_MAX_HDR_BYTES: what
 * tungro_header_view() can take at once. A NIC that hands up whole frames in a page (virtio-net's
 * mergeable buffers) has every header there, so the view is whole at once, with no walk and no
 * pull; 0 when frag0 is unset or ends before @off (the view then grows step by step).
 */
static unsigned int tungro_frag0_have(const struct sk_buff *skb, unsigned int off,
				      unsigned int pkt_len)
{
	unsigned int have = NAPI_GRO_CB(skb)->frag0_len;

	if (have <= off)
		return 0;
	have -= off;
	return min3(have, pkt_len, TGC_MAX_HDR_BYTES);
}

/*
 * The kernel reads through frag0 only while it holds all it has read, so a frag0 shorter than the
 * GRO offset (the outer headers read before a tunnel's gro_receive) means the kernel's own pull
 * went past it and frag0 may point into a freed page: forget it. Found by the skb-shape fuzzer
 * under KASAN (a use-after-free in tgc_hdr_need() once the first step took what frag0 claimed to
 * hold).
 */
static void tungro_frag0_check(struct sk_buff *skb)
{
	if (NAPI_GRO_CB(skb)->frag0_len < skb_gro_offset(skb))
		tungro_frag0_forget(skb);
}

/*
 * The bytes from GRO offset @off on that can be read now, without a pull, at most the packet and
 * TGC_MAX_HDR_BYTES, into @len: what frag0 holds, else the linear part. All of a frame's headers
 * where a NIC hands up whole frames (virtio-net's mergeable buffers); maybe fewer, which the
 * offload path's view op (tungro_rx_view) completes only when the core asks (its fast stage's
 * candidate has longer headers, or its parse refused this view): a segment with its headers in
 * view pays no tgc_hdr_need() walk. NULL (and 0) when no byte there is readable.
 */
static const u8 *tungro_header_peek(struct sk_buff *skb, unsigned int off, unsigned int *len)
{
	unsigned int pkt_len = skb->len - off, have;

	tungro_frag0_check(skb);
	have = tungro_frag0_have(skb, off, pkt_len);
	if (have) {
		*len = have;
		return skb_gro_header_fast(skb, off);
	}
	if (skb_headlen(skb) <= off) {
		*len = 0;
		return NULL;
	}
	*len = min3(skb_headlen(skb) - off, pkt_len, TGC_MAX_HDR_BYTES);
	return skb->data + off;
}

/**
 * tungro_header_view() - a segment's headers as one byte view, from GRO offset @off (its outer
 * network header) up to the first payload byte
 * @skb: the segment, NAPI_GRO_CB(skb)->frag0 set as skb_gro_reset_offset() sets it
 * @off: GRO offset of the outer network header
 * @have: bytes to fetch before the first tgc_hdr_need() (the outer IP header when @detect), or
 *	   more when frag0 holds them (tungro_frag0_have())
 * @detect: tell the tunnel from the headers after every step, into @encap (an outer IPv6 header's
 *	    extension headers hide which it is); else @encap is the caller's
 * @encap: the TGC_ENCAP_* the headers are parsed as
 * @len: set to the bytes readable at the returned pointer
 *
 * Read in place through frag0 while it holds them, as the kernel's GRO reads them (all of frag0's
 * bytes at once: a whole frame there needs no tgc_hdr_need() step); else pulled
 * into the linear part in the growing steps tgc_hdr_need() asks for, so no payload byte is copied
 * (finding 3 of issue 7, case K05). Used by the offload path and the engine's poll.
 *
 * Return: the headers, or NULL if the skb cannot provide them.
 */
const u8 *tungro_header_view(struct sk_buff *skb, unsigned int off, unsigned int have, bool detect,
			     unsigned int *encap, unsigned int *len)
{
	unsigned int pkt_len = skb->len - off, got = 0, need;
	const unsigned int whole = min(pkt_len, TGC_MAX_HDR_BYTES);
	const u8 *hdr = NULL;

	tungro_frag0_check(skb);
	need = max(have, tungro_frag0_have(skb, off, pkt_len));

	for (;;) {
		if (need > got) {
			hdr = tungro_header_at(skb, off, need);
			if (!hdr)
				return NULL;
			got = need;
		}
		if (detect)
			*encap = tgc_encap_detect(hdr, got);
		/* tgc_hdr_need() asks for no more than this: a whole frame in frag0 takes no walk
		 * (90 to 170 guest instructions a segment on x86_64, tungro_bench)
		 */
		if (got >= whole)
			break;
		need = tgc_hdr_need(hdr, got, pkt_len, *encap);
		if (need <= got)
			break;
	}
	*len = got;
	return hdr;
}

/* Moves the payload of @skb, from GRO offset @offset on, into page frags of @lp. Returns false if
 * it cannot.
 */
static bool tungro_steal_frags(struct sk_buff *lp, struct sk_buff *skb, unsigned int offset,
			       unsigned int *delta_truesize)
{
	struct skb_shared_info *to = skb_shinfo(lp), *from = skb_shinfo(skb);
	unsigned int headlen = skb_headlen(skb), new_truesize, i;
	skb_frag_t *dst;

	if (headlen <= offset) {
		/* Payload is all in frags; the GRO offset must fall inside the first one (headers
		 * are linear or in frag 0, as NAPI drivers build them).
		 */
		unsigned int skip = offset - headlen;

		if (!from->nr_frags || skip >= skb_frag_size(&from->frags[0]) ||
		    to->nr_frags + from->nr_frags > MAX_SKB_FRAGS)
			return false;
		dst = to->frags + to->nr_frags;
		for (i = 0; i < from->nr_frags; i++)
			dst[i] = from->frags[i];
		skb_frag_off_add(&dst[0], skip);
		skb_frag_size_sub(&dst[0], skip);
		to->nr_frags += from->nr_frags;
		from->nr_frags = 0;	/* the page references now belong to lp */

		new_truesize = SKB_TRUESIZE(skb_end_offset(skb));
		*delta_truesize = skb->truesize - new_truesize;
		skb->truesize = new_truesize;
		skb->len -= skb->data_len;
		skb->data_len = 0;
		NAPI_GRO_CB(skb)->free = NAPI_GRO_FREE;
		return true;
	}
	if (skb->head_frag) {
		/* The linear part lives in a page fragment: hand that page to lp as one more frag.
		 */
		struct page *page = virt_to_head_page(skb->head);

		if (to->nr_frags + 1 + from->nr_frags > MAX_SKB_FRAGS)
			return false;
		dst = to->frags + to->nr_frags;
		skb_frag_fill_page_desc(dst, page, skb->data + offset - (u8 *)page_address(page),
					headlen - offset);
		for (i = 0; i < from->nr_frags; i++)
			dst[1 + i] = from->frags[i];
		to->nr_frags += 1 + from->nr_frags;

		new_truesize = SKB_DATA_ALIGN(sizeof(struct sk_buff));
		*delta_truesize = skb->truesize - new_truesize;
		skb->truesize = new_truesize;
		NAPI_GRO_CB(skb)->free = NAPI_GRO_FREE_STOLEN_HEAD;
		return true;
	}
	return false;
}

/* Chains @skb, trimmed to its payload, on @p's frag_list. Returns false if GSO could not split it
 * again.
 */
static bool tungro_chain(struct sk_buff *p, struct sk_buff *skb, unsigned int offset,
			 unsigned int *delta_truesize)
{
	unsigned int headlen = skb_headlen(skb);

	/* skb_segment() cannot split the linear part of a frag_list member across segments. */
	if (headlen > offset + skb_shinfo(p)->gso_size)
		return false;
	if (offset > headlen &&
	    (!skb_shinfo(skb)->nr_frags ||
	     offset - headlen >= skb_frag_size(&skb_shinfo(skb)->frags[0])))
		return false;
	/* From here on nothing fails: the socket ownership, if any, moves to the GRO packet. */
	skb->destructor = NULL;
	skb->sk = NULL;
	*delta_truesize = skb->truesize;
	if (offset > headlen) {
		unsigned int eat = offset - headlen;

		skb_frag_off_add(&skb_shinfo(skb)->frags[0], eat);
		skb_frag_size_sub(&skb_shinfo(skb)->frags[0], eat);
		skb->data_len -= eat;
		skb->len -= eat;
		offset = headlen;
	}
	__skb_pull(skb, offset);
	if (NAPI_GRO_CB(p)->last == p)
		skb_shinfo(p)->frag_list = skb;
	else
		NAPI_GRO_CB(p)->last->next = skb;
	NAPI_GRO_CB(p)->last = skb;
	__skb_header_release(skb);
	return true;
}

/**
 * tungro_append() - append a segment's payload to a held GRO packet
 * @p: the held packet; NAPI_GRO_CB(p)->last and ->count describe it
 * @skb: the segment; its payload starts at its GRO offset (skb_gro_offset()) and runs to its end
 *
 * Page frags are moved to the packet's last skb when possible, else @skb joins @p's frag_list.
 * On success NAPI_GRO_CB(skb)->free says how @skb itself is to be freed (its head or frags now
 * belong to @p).
 *
 * Return: 0, or -E2BIG/-ETOOMANYREFS when the buffers cannot be merged (the caller then
 * completes @p).
 */
int tungro_append(struct sk_buff *p, struct sk_buff *skb)
{
	unsigned int offset = skb_gro_offset(skb), len = skb_gro_len(skb), delta_truesize = 0;
	struct sk_buff *lp = NAPI_GRO_CB(p)->last;

	/* page_pool pages and zerocopy buffers have their own reference rules: never mix them. */
	if (p->pp_recycle != skb->pp_recycle || skb_zcopy(p) || skb_zcopy(skb))
		return -ETOOMANYREFS;
	if (p->len + len >= netif_get_gro_max_size(p->dev, p))
		return -E2BIG;

	if (!tungro_steal_frags(lp, skb, offset, &delta_truesize)) {
		if (!tungro_chain(p, skb, offset, &delta_truesize))
			return -E2BIG;
		lp = p;
	}

	NAPI_GRO_CB(p)->count += NAPI_GRO_CB(skb)->count;
	p->data_len += len;
	p->len += len;
	p->truesize += delta_truesize;
	skb_shinfo(p)->flags |= skb_shinfo(skb)->flags & SKBFL_SHARED_FRAG;
	if (lp != p) {
		lp->data_len += len;
		lp->len += len;
		lp->truesize += delta_truesize;
		skb_shinfo(lp)->flags |= skb_shinfo(skb)->flags & SKBFL_SHARED_FRAG;
	}
	NAPI_GRO_CB(skb)->same_flow = 1;
	return 0;
}

/* Whether the 4 bytes at @a and @b are equal: byte loads (any alignment, any arch), no memcmp()
 * (the kernel's is a byte loop; g++'s inline one a repz cmpsb at -Os).
 */
static __always_inline bool tungro_eq4(const u8 *a, const u8 *b)
{
	return !((a[0] ^ b[0]) | (a[1] ^ b[1]) | (a[2] ^ b[2]) | (a[3] ^ b[3]));
}

/* The held packet of @pkt's flow on this GRO list, or NULL; clears same_flow of the held packets it
 * rules out. Another connection between the same hosts has other ports, the test tgc_same_flow()
 * makes first: made here, it spares the call (the 16-flow train of tungro_bench walks 8 held
 * packets a segment).
 */
static struct sk_buff *tungro_find_held(struct list_head *head, const struct tgc_pkt *pkt,
					const u8 *hdr, unsigned int outer_off)
{
	const unsigned int ports = outer_off + pkt->tcp_off;
	struct sk_buff *p;

	list_for_each_entry(p, head, list) {
		if (!NAPI_GRO_CB(p)->same_flow)
			continue;
		if (skb_headlen(p) < ports + 4 ||
		    !tungro_eq4(hdr + pkt->tcp_off, p->data + ports) ||
		    !tgc_same_flow(pkt, hdr, p->data + outer_off, skb_headlen(p) - outer_off)) {
			NAPI_GRO_CB(p)->same_flow = 0;
			continue;
		}
		return p;
	}
	return NULL;
}

static bool tungro_tcp_csum_bad(struct sk_buff *skb, u8 inner_version)
{
	/* The pseudo-header comes from skb_gro_network_header() at network_offsets[1]: frag0 is
	 * valid or cleared (tungro_header_view), never stale.
	 */
	if (inner_version == 4)
		return skb_gro_checksum_validate(skb, IPPROTO_TCP, inet_gro_compute_pseudo) != 0;
	return skb_gro_checksum_validate(skb, IPPROTO_TCP, ip6_gro_compute_pseudo) != 0;
}

/* The core's view of @p, a held packet of the same flow that tungro built. */
static void tungro_held_view(struct sk_buff *p, unsigned int outer_off, struct tgc_held *held)
{
	held->hdr = p->data + outer_off;
	held->hdr_len = skb_headlen(p) - outer_off;
	held->total_len = p->len - outer_off;
	held->payload_len = skb_gro_len(p);
	held->count = NAPI_GRO_CB(p)->count;
	held->gso_size = skb_shinfo(p)->gso_size;
	held->id_state = tungro_cb_id_state(p);
}

/* What the core's receive loop (tgc_receive) needs of this call: the GRO list, the segment, its
 * headers.
 */
struct tungro_rx {
	struct list_head *head;
	struct sk_buff *skb;
	const u8 *hdr;		/* the segment's header view, from its outer network header */
	unsigned int hdr_len;	/* bytes readable at hdr */
	unsigned int outer_off;
	unsigned int encap;
	struct sk_buff *cand;	/* the first same_flow packet on the list, or NULL ... */
	bool cand_known;	/* ... once looked up (tungro_rx_candidate()) */
};

/*
 * The packet the core's fast and predicted stages take a segment for: the first on this GRO list
 * whose same_flow the kernel left set (gro_list_prepare: hash, device, MAC header; inet_gro_receive
 * or ipv6_gro_receive: the outer addresses and protocol), looked up once a segment.
 */
static __always_inline struct sk_buff *tungro_rx_candidate(struct tungro_rx *rx)
{
	struct sk_buff *p;

	if (rx->cand_known)
		return rx->cand;
	rx->cand_known = true;
	rx->cand = NULL;
	list_for_each_entry(p, rx->head, list) {
		if (NAPI_GRO_CB(p)->same_flow) {
			rx->cand = p;
			break;
		}
	}
	return rx->cand;
}

/* IP_DF of the IPv4 header at @iph: the high byte of frag_off, read as a byte (any alignment). */
static bool tungro_ipv4_df(const u8 *iph)
{
	return iph[offsetof(struct iphdr, frag_off)] & (IP_DF >> 8);
}

/* The segment parsed: the kernel's conventions for a tunnel packet, the GRO pulls, the checksum
 * check.
 */
static u32 tungro_rx_prepare(void *ctx, const struct tgc_pkt *pkt)
{
	struct tungro_rx *rx = ctx;
	struct sk_buff *skb = rx->skb;
	u32 in = 0;

	/* Inner network offset, transport header, protocol, as the kernel's own tunnel GRO sets
	 * them. encap_mark first: skb_gro_network_header() (the checksum's pseudo-header) reads
	 * network_offsets[encap_mark] in 6.12.
	 */
	NAPI_GRO_CB(skb)->encap_mark = 1;
	tungro_gro_enter_inner(skb, rx->outer_off + pkt->inner_off,
			       pkt->inner_version != 4 || tungro_ipv4_df(rx->hdr + pkt->inner_off));
	skb_gro_pull(skb, rx->outer_off + pkt->tcp_off - skb_gro_offset(skb));
	skb_set_transport_header(skb, skb_gro_offset(skb));
	/* CHECKSUM_COMPLETE: the running sum must drop the pulled inner header. A valid IPv4 header
	 * sums to zero, an IPv6 header does not (as ipv6_gro_receive does).
	 */
	if (pkt->inner_version == 6)
		skb_gro_postpull_rcsum(skb, rx->hdr + pkt->inner_off,
				       pkt->tcp_off - pkt->inner_off);
	/* With the flush bit set (TGC_IN_UPPER_FLUSH) nothing merges: no checksum to check. Nor
	 * when the inner header's length or flags refuse it (l3_flush), where 6.12's inner
	 * inet_gro_receive/ipv6_gro_receive set the flush bit: over the GRO length, which then
	 * includes bytes past the inner packet, a checksum that holds would mark the segment
	 * CHECKSUM_UNNECESSARY, and TCP would take a segment whose checksum over its IP length is
	 * wrong (hostile frame in_totlen_short).
	 */
	if (!NAPI_GRO_CB(skb)->flush && !pkt->l3_flush &&
	    tungro_tcp_csum_bad(skb, pkt->inner_version))
		in |= TGC_IN_CSUM_BAD;
	skb_gro_pull(skb, pkt->payload_off - pkt->tcp_off);
	return in;
}

/* The held packet of the segment's flow on this GRO list, with the facts only the kernel knows
 * about it.
 */
static void *tungro_rx_find(void *ctx, const struct tgc_pkt *pkt, const u8 *hdr,
			    struct tgc_held *held)
{
	struct tungro_rx *rx = ctx;
	struct sk_buff *p = tungro_find_held(rx->head, pkt, hdr, rx->outer_off);

	if (!p)
		return NULL;
	tungro_held_view(p, rx->outer_off, held);
	/* Held by the kernel's GRO before tungro was installed: completed, never merged into. */
	if (!tungro_held_by_us(p, READ_ONCE(tungro_installed_at)))
		held->flags |= TGC_HELD_FOREIGN;
	if (skb_cmp_decrypted(p, rx->skb))
		held->flags |= TGC_HELD_DECRYPTED;
	return p;
}

/*
 * The fast stage's candidate (tungro_rx_candidate()), if tungro built it and its TLS state is the
 * segment's. The core merges into it only when the segment's headers are its first segment's but
 * for the per-segment fields, so same_flow() would say yes and tungro_find_held() would return this
 * very packet (it walks the list in the same order, and none before it is a candidate). Its first
 * segment's layout is where tungro_rx_prepare() left the GRO offsets when it was held, unchanged
 * since: the inner network header, the transport header, and the GRO offset at the payload. Its
 * encap is this slot's: its outer header bytes, which the core compares, dispatched it here.
 */
static void *tungro_rx_expect(void *ctx, const struct tgc_seg *seg, struct tgc_held *held,
			      struct tgc_layout *layout)
{
	struct tungro_rx *rx = ctx;
	unsigned int off = rx->outer_off, tcp_off, inner;
	struct sk_buff *p = tungro_rx_candidate(rx);

	if (!p || skb_transport_offset(p) < (int)off)
		return NULL;
	tcp_off = skb_transport_offset(p) - off;
	/* Another flow's packet (interleaved flows, no hash to tell them apart): the ports differ,
	 * the full stage finds the flow's own. Compared here when the segment's ports are in view
	 * already; the core compares them again, after growing the view.
	 */
	if (off + tcp_off + 4 > skb_headlen(p) ||
	    (tcp_off + 4 <= seg->hdr_len &&
	     !tungro_eq4(seg->hdr + tcp_off, p->data + off + tcp_off)))
		return NULL;
	inner = tungro_gro_inner_nhoff(p);
	if (!tungro_held_by_us(p, READ_ONCE(tungro_installed_at)) ||
	    skb_cmp_decrypted(p, rx->skb) || inner < off || skb_gro_offset(p) < off)
		return NULL;
	tungro_held_view(p, off, held);
	layout->inner_off = inner - off;
	layout->tcp_off = tcp_off;
	layout->payload_off = skb_gro_offset(p) - off;
	layout->encap = seg->encap;
	return p;
}

/*
 * The predicted stage's packet: expect's candidate (tungro_rx_candidate()), when this CPU's slot of
 * its address holds its current prediction (tungro_pred.h: the slot names it, it carries this CPU's
 * tag, its count is the prediction's) and find would not flag it (TLS state; tungro's, which the
 * tag says but for a packet held in the install's first second). None for a packet not joined yet
 * (one segment): its prediction is made at its second merge, so trains that never merge (many
 * flows) pay no slot lookup a segment.
 */
static void *tungro_rx_predict(void *ctx, const struct tgc_seg *seg, struct tgc_pred **pred)
{
	struct tungro_pred_cpu __percpu *preds = READ_ONCE(tungro_preds);
	struct tungro_rx *rx = ctx;
	struct tungro_pred_slot *s;
	struct sk_buff *p;

	if (!preds)
		return NULL;
	p = tungro_rx_candidate(rx);
	if (!p || NAPI_GRO_CB(p)->count < 2)
		return NULL;
	s = tungro_pred_slot_of(preds, p);
	if (s->p != p || tungro_cb_pred_cpu(p) != tungro_pred_tag() ||
	    !tgc_pred_current(&s->pred, NAPI_GRO_CB(p)->count) || s->outer_off != rx->outer_off ||
	    !tungro_held_by_us(p, READ_ONCE(tungro_installed_at)) || skb_cmp_decrypted(p, rx->skb))
		return NULL;
	*pred = &s->pred;
	return p;
}

/* The segment's whole headers, when the core asks (its view so far: tungro_header_peek()). */
static int tungro_rx_view(void *ctx, const u8 **hdr, u32 *hdr_len)
{
	struct tungro_rx *rx = ctx;
	unsigned int encap = rx->encap, len;
	const u8 *h = tungro_header_view(rx->skb, rx->outer_off, 0, false, &encap, &len);

	if (!h)
		return -ENOMEM;
	rx->hdr = *hdr = h;
	rx->hdr_len = *hdr_len = len;
	return 0;
}

static int tungro_rx_append(void *ctx, void *held, const struct tgc_rx_result *r)
{
	struct tungro_rx *rx = ctx;

	return tungro_append(held, rx->skb);
}

static const struct tgc_rx_ops tungro_rx_ops = {
	.prepare = tungro_rx_prepare,
	.find = tungro_rx_find,
	.append = tungro_rx_append,
	.expect = tungro_rx_expect,
	.view = tungro_rx_view,
	.predict = tungro_rx_predict,
};

/**
 * tungro_seg_hash() - tungro's flow hash of a segment, for the tungro_flush tracepoint
 * @seg: the segment; @seg->hdr may be NULL (nothing was read of it)
 *
 * Parses the headers again: call it only while the tracepoint is enabled.
 *
 * Return: tgc_flow_hash() of the segment's flow (also of a segment tgc_parse() refuses when
 * tgc_flow_of() locates its flow), or 0 when the headers locate no flow.
 */
u32 tungro_seg_hash(const struct tgc_seg *seg)
{
	struct tgc_pkt pkt;

	if (!seg->hdr)
		return 0;
	if (tgc_parse(seg->hdr, seg->hdr_len, seg->pkt_len, seg->encap, &pkt) == TGC_R_NONE ||
	    tgc_flow_of(seg->hdr, seg->hdr_len, seg->encap, &pkt))
		return tgc_flow_hash(&pkt, seg->hdr);
	return 0;
}

/* Counts @reason for the offload layer's debugfs stats and traces it (tungro_flush); none for 0. */
static __always_inline void tungro_offload_reason(unsigned int reason, const struct tgc_seg *seg,
						  bool ends)
{
	if (!reason)
		return;
	tungro_count_reason(reason);
	if (trace_tungro_flush_enabled())
		trace_tungro_flush(reason, TUNGRO_LAYER_OFFLOAD, seg->encap, tungro_seg_hash(seg),
				   seg->gso_segs ? seg->gso_segs : 1, seg->pkt_len, ends);
}

/*
 * gro_receive for IPIP and SIT, called by inet_gro_receive() (outer IPv4 checked and pulled, flush
 * set on an outer length or flag mismatch) or by fou/gue_gro_receive() (the outer header is the UDP
 * carrier's). Returns the held packet to complete now, or NULL, as every gro_receive does;
 * NAPI_GRO_CB(skb) says merged (same_flow), held, or passed (flush). The core's tgc_receive() runs
 * the receive loop (parse, find, decide, append, retry); this function does what its result says
 * with the skbs.
 */
static struct sk_buff *tungro_gro_receive(struct list_head *head, struct sk_buff *skb,
					  struct tungro_slot *slot)
{
	/*
	 * rx, seg and r are written member by member (seg's padding aside), and r whole by
	 * tgc_receive(): not zeroed first per segment by CONFIG_INIT_STACK_ALL_ZERO, or by an
	 * initializer, which -Os makes a rep stos (22 instructions a segment on x86_64).
	 */
	struct tungro_rx rx __attribute__((uninitialized));
	struct tgc_seg seg __attribute__((uninitialized));
	struct tgc_rx_result r __attribute__((uninitialized));
	struct sk_buff *match = NULL;
	unsigned int reason;

	rx.head = head;
	rx.skb = skb;
	rx.outer_off = tungro_gro_outer_nhoff(skb);
	rx.encap = slot->encap;
	rx.cand_known = false;
	seg.hdr = NULL;		/* nothing read yet: the tracepoint's hash on the early exits */
	seg.hdr_len = 0;
	seg.data = NULL;
	seg.pkt_len = skb->len - rx.outer_off;
	seg.in = 0;
	seg.hash = 0;
	seg.time = 0;
	seg.gso_size = 0;
	seg.gso_segs = 0;
	seg.encap = slot->encap;

	tungro_count(TUNGRO_S_SEEN, 1);
	/* Whatever happens next, this skb is not a tungro-held packet until TGC_HOLD says so. */
	tungro_cb_reset(skb);

	/*
	 * FOU and GUE call the IPIP/SIT offload with the GRO offset past their UDP header and
	 * network_offsets[0] at the carrier's IP header (case K01): the kernel's callback handles
	 * that shape, as in 6.12.
	 */
	if (NAPI_GRO_CB(skb)->is_fou) {
		reason = TGC_R_UDP_ENCAP;
		goto delegate;
	}
	/* One tunnel layer only: an IPIP/SIT packet inside another tunnel is delivered as it is
	 * (M06).
	 */
	if (NAPI_GRO_CB(skb)->encap_mark) {
		reason = TGC_R_NESTED;
		goto pass;
	}

	/* What can be read now; the core asks for the rest (tungro_rx_view) if it needs it. */
	rx.hdr = tungro_header_peek(skb, rx.outer_off, &rx.hdr_len);
	seg.hdr = rx.hdr;
	seg.hdr_len = rx.hdr_len;
	/* inet_gro_receive() set flush (outer length or flags): nothing merges, and a segment the
	 * core refuses still completes its flow's held packet first, as the kernel's TCP GRO finds
	 * the flow then.
	 */
	if (NAPI_GRO_CB(skb)->flush)
		seg.in |= TGC_IN_UPPER_FLUSH;
	/* Already GSO (veth with GRO on, case K02): it stands for gso_segs wire segments of
	 * gso_size bytes.
	 */
	if (skb_is_gso(skb)) {
		seg.gso_size = skb_shinfo(skb)->gso_size;
		seg.gso_segs = NAPI_GRO_CB(skb)->count;
	}
	tgc_receive(&seg, &tungro_rx_ops, &rx, &r);
	match = r.held;
	/* the tracepoint's flow hash: the whole view, if the core took it */
	seg.hdr = rx.hdr;
	seg.hdr_len = rx.hdr_len;

	/* UDP and the rest, and inner IPv6 extension headers the core does not walk or has too
	 * many of, stay with the kernel. Nothing was looked up or pulled for them.
	 */
	if (!r.parsed && (r.v.reason == TGC_R_NOT_TCP || r.v.reason == TGC_R_IPV6_EXT ||
			  r.v.reason == TGC_R_EXT_LIMIT)) {
		reason = r.v.reason;
		goto delegate;
	}
	NAPI_GRO_CB(skb)->encap_mark = 1;
	if (!r.parsed) {
		/* Refused. After an outer-header refusal the flow's held packet (match) goes up
		 * first; a segment broken inside leaves the held packet as the kernel leaves it
		 * (match is NULL).
		 */
		reason = r.v.reason;
		goto pass;
	}
	if (r.foreign)
		tungro_offload_reason(TGC_R_FOREIGN, &seg, true);
	tungro_offload_reason(r.v.reason, &seg, r.v.flush_held && match);

	switch (r.v.action) {
	case TGC_MERGE:
		tungro_count(TUNGRO_S_MERGED, 1);
		if (r.fast)
			tungro_count(r.fast == 2 ? TUNGRO_S_MERGED_PRED : TUNGRO_S_MERGED_FAST, 1);
		tungro_cb_set_id_state(match, r.v.id_state);
		/* Kept for the kernel's tcp4_gro_complete in case tungro is unloaded before this
		 * packet completes.
		 */
		tungro_gro_set_fixedid(match, r.v.fixedid);
		match->data[rx.outer_off + r.flags_off] |= r.v.held_flags;
		break;
	case TGC_HOLD:
		tungro_count(TUNGRO_S_HELD, 1);
		tungro_cb_set_mark(skb, TUNGRO_CB_MAGIC);
		tungro_pred_hold(skb, rx.outer_off);
		break;
	default:
		tungro_count(TUNGRO_S_PASSED, 1);
		NAPI_GRO_CB(skb)->flush = 1;
		break;
	}
	return r.v.flush_held ? match : NULL;

pass:
	tungro_offload_reason(reason, &seg, match);
	tungro_count(TUNGRO_S_PASSED, 1);
	NAPI_GRO_CB(skb)->flush = 1;
	return match;

delegate:
	tungro_offload_reason(reason, &seg, false);
	tungro_count(TUNGRO_S_DELEGATED, 1);
	return tungro_orig(slot)->callbacks.gro_receive(head, skb);
}

/*
 * gro_receive of tungro's four offloads: inet_offloads[IPPROTO_IPIP] (IPIP) and [IPPROTO_IPV6]
 * (SIT), called by inet_gro_receive() with the GRO offset past the outer IPv4 header; and
 * inet6_offloads[IPPROTO_IPIP] (ip4ip6) and [IPPROTO_IPV6] (ip6ip6), called by ipv6_gro_receive()
 * past the outer IPv6 header and the extension headers it pulled (the ip6 tunnels' encapsulation
 * limit option). Any of them by fou/gue_gro_receive() too (K01, K08). Softirq (NAPI).
 */
static struct sk_buff *tungro_ipip_gro_receive(struct list_head *head, struct sk_buff *skb)
{
	return tungro_gro_receive(head, skb, &tungro_slots[TUNGRO_SLOT_IPIP]);
}

static struct sk_buff *tungro_sit_gro_receive(struct list_head *head, struct sk_buff *skb)
{
	return tungro_gro_receive(head, skb, &tungro_slots[TUNGRO_SLOT_SIT]);
}

static struct sk_buff *tungro_ip4ip6_gro_receive(struct list_head *head, struct sk_buff *skb)
{
	return tungro_gro_receive(head, skb, &tungro_slots[TUNGRO_SLOT_IP4IP6]);
}

static struct sk_buff *tungro_ip6ip6_gro_receive(struct list_head *head, struct sk_buff *skb)
{
	return tungro_gro_receive(head, skb, &tungro_slots[TUNGRO_SLOT_IP6IP6]);
}

struct sk_buff *(*const tungro_gro_receive_of[TUNGRO_SLOT_COUNT])(struct list_head *head,
								  struct sk_buff *skb) = {
	[TUNGRO_SLOT_IPIP] = tungro_ipip_gro_receive,
	[TUNGRO_SLOT_SIT] = tungro_sit_gro_receive,
	[TUNGRO_SLOT_IP4IP6] = tungro_ip4ip6_gro_receive,
	[TUNGRO_SLOT_IP6IP6] = tungro_ip6ip6_gro_receive,
};

/**
 * tungro_gso_fixup() - checksum and GSO fields of a GRO packet whose headers the core fixed
 * @skb: the GRO packet (2+ segments), skb->data at its outermost network header
 * @nhoff: offset of its innermost network header from skb->data (0 for plain TCP)
 * @encap: its tunnel (enum tgc_encap, TGC_ENCAP_NONE for plain TCP): inner protocol and the
 *         IPXIP4/IPXIP6 bit come from the core's row (tgc_tunnel_of())
 * @c: what tgc_complete() reported
 * @segs: wire segments in it
 *
 * The same conventions as the kernel's tcp4/6_gro_complete and ipip_gro_complete (for UDP, from
 * the engine: udp_gro_complete_segment), so GSO can split the packet again and the stack trusts
 * its checksum (CHECKSUM_PARTIAL over the inner TCP or UDP header).
 */
void tungro_gso_fixup(struct sk_buff *skb, int nhoff, unsigned int encap,
		      const struct tgc_completion *c, unsigned int segs)
{
	const struct tgc_tunnel *t = tgc_tunnel_of(encap);
	struct skb_shared_info *shinfo = skb_shinfo(skb);

	skb_set_transport_header(skb, nhoff + c->tcp_off);
	if (t) {
		skb->encapsulation = 1;
		skb_set_inner_protocol(skb, htons(t->inner_version == 6 ? ETH_P_IPV6 : ETH_P_IP));
		skb_set_inner_network_header(skb, nhoff);
		skb->inner_transport_header = skb->transport_header;
		shinfo->gso_type |= t->gso == TGC_GSO_IPXIP6 ? SKB_GSO_IPXIP6 : SKB_GSO_IPXIP4;
	}
	skb->csum_start = skb_transport_header(skb) - skb->head;
	skb->csum_offset = c->csum_offset;
	skb->ip_summed = CHECKSUM_PARTIAL;

	shinfo->gso_segs = segs;
	/* UDP as 6.12's udp_gro_complete_segment() leaves it: UDP_L4, the rest as for TCP */
	if (c->udp)
		shinfo->gso_type |= SKB_GSO_UDP_L4;
	else
		shinfo->gso_type |= c->tcpv6 ? SKB_GSO_TCPV6 : SKB_GSO_TCPV4;
	if (c->fixedid)
		shinfo->gso_type |= SKB_GSO_TCP_FIXEDID;
	if (c->ecn)
		shinfo->gso_type |= SKB_GSO_TCP_ECN;
}

/*
 * Called from inet_gro_complete() on the outer IPv4 header (already fixed: tot_len, checksum), or
 * from fou/gue_gro_complete(), with @nhoff at the inner network header, for held packets of 2+
 * segments.
 */
static int tungro_gro_complete(struct sk_buff *skb, int nhoff, struct tungro_slot *slot)
{
	struct tgc_completion c;

	if (!tungro_held_by_us(skb, READ_ONCE(tungro_installed_at))) {
		tungro_count(TUNGRO_S_FOREIGN_COMPLETED, 1);
		return tungro_orig(slot)->callbacks.gro_complete(skb, nhoff);
	}
	if (nhoff < 0 || nhoff > skb_headlen(skb) ||
	    tgc_complete(skb->data + nhoff, skb_headlen(skb) - nhoff, skb->len - nhoff,
			 tungro_cb_id_state(skb), 1, &c)) {
		/* Not a packet the core can complete (it wrote nothing): the kernel's callback
		 * decides, never a drop.
		 */
		tungro_count(TUNGRO_S_COMPLETE_FALLBACK, 1);
		return tungro_orig(slot)->callbacks.gro_complete(skb, nhoff);
	}

	tungro_gso_fixup(skb, nhoff, slot->encap, &c, NAPI_GRO_CB(skb)->count);
	tungro_count(TUNGRO_S_COMPLETED, 1);
	tungro_count(TUNGRO_S_HIST + tgc_hist_bucket(NAPI_GRO_CB(skb)->count), 1);
	return 0;
}

/*
 * gro_complete of the four offloads: a held GRO packet of 2+ segments, its outer header fixed by
 * inet_gro_complete() or ipv6_gro_complete(), @nhoff at the inner network header. Returns 0, or
 * what the kernel's own callback returns for a packet tungro did not build. Softirq (NAPI).
 */
static int tungro_ipip_gro_complete(struct sk_buff *skb, int nhoff)
{
	return tungro_gro_complete(skb, nhoff, &tungro_slots[TUNGRO_SLOT_IPIP]);
}

static int tungro_sit_gro_complete(struct sk_buff *skb, int nhoff)
{
	return tungro_gro_complete(skb, nhoff, &tungro_slots[TUNGRO_SLOT_SIT]);
}

static int tungro_ip4ip6_gro_complete(struct sk_buff *skb, int nhoff)
{
	return tungro_gro_complete(skb, nhoff, &tungro_slots[TUNGRO_SLOT_IP4IP6]);
}

static int tungro_ip6ip6_gro_complete(struct sk_buff *skb, int nhoff)
{
	return tungro_gro_complete(skb, nhoff, &tungro_slots[TUNGRO_SLOT_IP6IP6]);
}

int (*const tungro_gro_complete_of[TUNGRO_SLOT_COUNT])(struct sk_buff *skb, int nhoff) = {
	[TUNGRO_SLOT_IPIP] = tungro_ipip_gro_complete,
	[TUNGRO_SLOT_SIT] = tungro_sit_gro_complete,
	[TUNGRO_SLOT_IP4IP6] = tungro_ip4ip6_gro_complete,
	[TUNGRO_SLOT_IP6IP6] = tungro_ip6ip6_gro_complete,
};
