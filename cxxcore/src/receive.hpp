// SPDX-License-Identifier: GPL-2.0
// The one receive loop of the core (fast stage, parse, find, decide, append, retry), inline and generic over the
// caller's side: tgc_receive() runs it on the function pointers of tgc_rx_ops, the engine on its own table, so the
// engine's lookup and append are inlined into the loop. One loop in the source, whoever drives it.
#ifndef TUNGRO_RECEIVE_HPP
#define TUNGRO_RECEIVE_HPP

#include "fastpath.hpp"
#include "parse.hpp"
#include "rules.hpp"

namespace tungro {

// The TGC_IN_* bits tgc_decide() knows.
constexpr u32 kDecideBits = TGC_IN_UPPER_FLUSH | TGC_IN_CSUM_BAD | TGC_IN_NOMERGE | TGC_IN_DECRYPTED;

__attribute__((always_inline)) static inline void clear_result(tgc_rx_result *r)
{
	r->held = nullptr;
	r->pkt = tgc_pkt{};
	r->v = tgc_verdict{};
	r->flags_off = 0;
	r->parsed = r->located = r->foreign = r->retried = 0;
	r->fast = r->pad = 0;
}

// The segment goes up unmerged, for @reason (TGC_R_*); the rest of @r as it stands.
static inline void pass_up(tgc_rx_result *r, unsigned reason)
{
	r->v.action = TGC_PASS;
	r->v.reason = static_cast<u8>(reason);
}

// The loop's last stage, after a MERGE verdict of either stage (r->held the held packet): the caller's append, and
// when its buffers cannot take the segment, the same segment decided again as one that may not merge. @held: what
// find filled in for the held packet (the full stage's), or nullptr after the fast stage (then ops.held_of()).
template <class Ops>
__attribute__((always_inline)) static inline void append_stage(const tgc_seg *seg, u32 in, Ops &ops, tgc_rx_result *r,
							       tgc_held *held)
{
	r->flags_off = is_udp(&r->pkt) ? 0 : static_cast<u16>(r->pkt.tcp_off + TGC_TCP_FLAGS_OFF); // UDP: no flags
	if (ops.append(r->held, r) == 0)
		return;
	r->retried = 1;
	r->flags_off = 0;
	tgc_held fast_held;
	if constexpr (Ops::kFastStage) {
		if (!held) {
			ops.held_of(r->held, &fast_held);
			held = &fast_held;
		}
	}
	decide(&r->pkt, seg->hdr, held, (in & kDecideBits) | TGC_IN_NOMERGE, &r->v);
}

// The full stage: parse, find, decide, append (the whole loop where no fast stage applies). Inline, as the fast
// stage (always: at the test kernels' -Os g++ made it a function of its own for tgc_receive(), 80 guest
// instructions a segment more in tungro_bench's 16-flow train): split into functions of their own, both cost more (make bench, 1 flow: 390 instructions a segment
// inlined, 412 with the fast stage apart, 425 with this stage apart: the calls, and the records passed through
// memory).
template <class Ops>
__attribute__((always_inline)) static inline void full_receive(const tgc_seg *seg, u32 in, u32 mode, Ops &ops,
							       tgc_rx_result *r)
{
	tgc_held held{};

	in |= ops.outer(seg);
	clear_result(r);
	unsigned refused;
	for (;;) {
		refused = parse(seg->hdr, seg->hdr_len, seg->pkt_len, seg->encap, mode, &r->pkt, in & TGC_IN_UDP_GRO);
		// A view too short for the headers (MALFORMED, which every check of the bytes present says): the
		// caller's view op grows it, once, and the parse runs again; so for any refusal whose flow is located
		// below (tgc_flow_of() reads up to the ports). No other answer needs growing: parse() is monotone in
		// hdr_len, so an acceptance or another refusal is the same on the view op's (a longer view, or the
		// prefix tgc_hdr_need() settles on: fuzz_parse checks both), and most segments never pay the view op's
		// walk (tgc_rx_ops.view). One parse in the source: g++ at -Os inlines it then.
		const bool locate = refused && (in & (TGC_IN_OUTER_FLUSH | TGC_IN_UPPER_FLUSH));
		const tgc_seg *grown = refused == TGC_R_MALFORMED || locate ? ops.grow(seg) : seg;
		if (grown == seg)
			break;
		if (!grown) { // the view op could not provide the headers: nothing looked up
			clear_result(r);
			pass_up(r, TGC_R_MALFORMED);
			return;
		}
		seg = grown;
		clear_result(r);
	}
	if (refused) {
		// Passed up unmerged. When the outer layer refused it too (the kernel's inet_gro_receive flagged it), the
		// kernel's TCP GRO still finds its flow: that flow's held packet goes up first and the flow keeps its
		// order. A segment broken inside leaves the held packet alone, as 6.12 does.
		pass_up(r, refused);
		if ((in & (TGC_IN_OUTER_FLUSH | TGC_IN_UPPER_FLUSH)) &&
		    tgc_flow_of(seg->hdr, seg->hdr_len, seg->encap, &r->pkt)) {
			r->located = 1;
			r->held = ops.find(&r->pkt, seg->hdr, &held);
			r->v.flush_held = r->held != nullptr;
		}
		return;
	}
	r->parsed = 1;
	if (seg->gso_size) {
		r->pkt.gso_size = seg->gso_size;
		r->pkt.gso_segs = seg->gso_segs;
	}
	in |= ops.prepare(&r->pkt);
	if ((in & TGC_IN_CSUM_CHECK) && !(in & (TGC_IN_UPPER_FLUSH | TGC_IN_CSUM_BAD)) &&
	    (!seg->data || !tgc_tcp_csum_ok(&r->pkt, seg->data, seg->pkt_len)))
		in |= TGC_IN_CSUM_BAD;

	r->held = ops.find(&r->pkt, seg->hdr, &held);
	if (r->held && (held.flags & TGC_HELD_FOREIGN)) {
		// Not tungro's packet (held before the install): it is completed, never merged into; start afresh.
		decide(&r->pkt, seg->hdr, nullptr, in & kDecideBits, &r->v);
		r->v.flush_held = 1;
		r->foreign = 1;
		return;
	}
	if (r->held && (held.flags & TGC_HELD_DECRYPTED))
		in |= TGC_IN_DECRYPTED;
	decide_inline(&r->pkt, seg->hdr, r->held ? &held : nullptr, in & kDecideBits, &r->v);
	if (r->v.action == TGC_MERGE)
		append_stage(seg, in, ops, r, &held);
}

/*
 * tgc_receive() on @seg with @in in place of seg->in, parsed in @mode (kParseIPv4Options: the engine's flag only;
 * tgc_receive(), the offload path's loop, passes 0). @ops: what tgc_rx_ops holds, as members:
 *   u32 prepare(const tgc_pkt *pkt);                  TGC_IN_* bits to add (0: nothing to prepare)
 *   void *find(const tgc_pkt *pkt, const u8 *hdr, tgc_held *held);   held is zeroed before
 *   int append(void *held, const tgc_rx_result *r);   0, or nonzero when the buffers cannot
 *   u32 outer(const tgc_seg *seg);                    TGC_IN_* bits of the caller's outer layer, for the full
 *                                                     stage (the engine's TGC_IN_OUTER_FLUSH)
 * and, when Ops::kFastStage is true, the fast stage's side (fastpath.hpp):
 *   bool fast(const tgc_seg *seg, u32 in, tgc_rx_result *r);   tgc_receive(): the predicted stage on the
 *                                                     caller's prediction (tgc_rx_ops.predict), else
 *                                                     fast_merge() on the held packet the segment is
 *                                                     expected to join (one it has fast_shape() for, whose
 *                                                     template_match() it passes and that find would return
 *                                                     for it), r->held set to it; false when there is none or
 *                                                     the rules say no
 *   void held_of(const void *h, tgc_held *held);      what find fills in for it (a failed append's second decide),
 *                                                     after either stage
 *   const tgc_seg *viewed(const tgc_seg *seg);        the view fast() took the segment on: the grown one when
 *                                                     fast() grew it (nullptr when that failed), else @seg
 *   const tgc_seg *grow(const tgc_seg *seg);          the segment with its whole headers, for a parse that found
 *                                                     @seg's view short: @seg itself when nothing can grow it (whole
 *                                                     views, grown already, or after fast() ran prepare), nullptr
 *                                                     when growing failed
 * fast() may run the caller's prepare for a segment it took (tgc_receive(): the kernel's pulls and checksum come
 * before append) and still return false (a bad checksum); the full stage's prepare() then returns the bits it gave,
 * so the caller's prepare runs once a segment. tgc_receive() offers the caller's expect (tgc_rx_ops) as the
 * expectation; the engine, its previous flow or the recent one (engine.cpp).
 * Stages: the fast one (a segment matching the header template of the held packet it is expected to join merges
 * without the parse, lookup and decide, with the very result they would give: fastpath.hpp), else the full one;
 * then the append of either. Returns true when the fast stage (tgc_receive(): or its predicted stage) merged the
 * segment. (The engine runs its predicted stage, fastpath.hpp, before this loop: a segment it merges never
 * reaches it.)
 */
template <class Ops>
__attribute__((always_inline)) static inline bool receive(const tgc_seg *seg, u32 in, u32 mode, Ops &ops,
							  tgc_rx_result *r)
{
	if constexpr (Ops::kFastStage) {
		const bool taken = ops.fast(seg, in, r);
		seg = ops.viewed(seg);
		if (taken) {
			append_stage(seg, in, ops, r, nullptr);
			return true;
		}
		if (!seg) { // fast() asked the view op, which could not provide the headers
			clear_result(r);
			pass_up(r, TGC_R_MALFORMED);
			return false;
		}
	}
	full_receive(seg, in, mode, ops, r);
	return false;
}

} // namespace tungro
#endif
