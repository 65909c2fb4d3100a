// SPDX-License-Identifier: GPL-2.0
// tgc_receive: the one receive loop of the core (parse, find, decide, append, retry), shared by the module's
// offload path, the engine and every host caller.
#include "freestanding.hpp"
#include "headers.hpp"

using namespace tungro;

namespace {

// The TGC_IN_* bits tgc_decide() knows.
constexpr u32 kDecideBits = TGC_IN_UPPER_FLUSH | TGC_IN_CSUM_BAD | TGC_IN_NOMERGE | TGC_IN_DECRYPTED;

void clear(tgc_rx_result *r)
{
	r->held = nullptr;
	r->pkt = tgc_pkt{};
	r->v = tgc_verdict{};
	r->flags_off = 0;
	r->parsed = r->located = r->foreign = r->retried = 0;
	r->pad[0] = r->pad[1] = 0;
}

void *find(const tgc_rx_ops *ops, void *ctx, const tgc_pkt *pkt, const u8 *hdr, tgc_held *held)
{
	*held = tgc_held{};
	return ops && ops->find ? ops->find(ctx, pkt, hdr, held) : nullptr;
}

} // namespace

extern "C" void tgc_receive(const tgc_seg *seg, const tgc_rx_ops *ops, void *ctx, tgc_rx_result *r)
{
	u32 in = seg->in;
	tgc_held held;

	clear(r);
	const unsigned refused = tgc_parse(seg->hdr, seg->hdr_len, seg->pkt_len, seg->encap, &r->pkt);
	if (refused) {
		// Passed up unmerged. When the outer layer refused it too (the kernel's inet_gro_receive flagged it), the
		// kernel's TCP GRO still finds its flow: that flow's held packet goes up first and the flow keeps its
		// order. A segment broken inside leaves the held packet alone, as 6.12 does.
		r->v.action = TGC_PASS;
		r->v.reason = static_cast<u8>(refused);
		if ((in & (TGC_IN_OUTER_FLUSH | TGC_IN_UPPER_FLUSH)) &&
		    tgc_flow_of(seg->hdr, seg->hdr_len, seg->encap, &r->pkt)) {
			r->located = 1;
			r->held = find(ops, ctx, &r->pkt, seg->hdr, &held);
			r->v.flush_held = r->held != nullptr;
		}
		return;
	}
	r->parsed = 1;
	if (seg->gso_size) {
		r->pkt.gso_size = seg->gso_size;
		r->pkt.gso_segs = seg->gso_segs;
	}
	if (ops && ops->prepare)
		in |= ops->prepare(ctx, &r->pkt);
	if ((in & TGC_IN_CSUM_CHECK) && !(in & (TGC_IN_UPPER_FLUSH | TGC_IN_CSUM_BAD)) &&
	    (!seg->data || !tgc_tcp_csum_ok(&r->pkt, seg->data, seg->pkt_len)))
		in |= TGC_IN_CSUM_BAD;

	r->held = find(ops, ctx, &r->pkt, seg->hdr, &held);
	if (r->held && (held.flags & TGC_HELD_FOREIGN)) {
		// Not tungro's packet (held before the install): it is completed, never merged into; start afresh.
		tgc_decide(&r->pkt, seg->hdr, nullptr, in & kDecideBits, &r->v);
		r->v.flush_held = 1;
		r->foreign = 1;
		return;
	}
	if (r->held && (held.flags & TGC_HELD_DECRYPTED))
		in |= TGC_IN_DECRYPTED;
	tgc_decide(&r->pkt, seg->hdr, r->held ? &held : nullptr, in & kDecideBits, &r->v);
	if (r->v.action != TGC_MERGE)
		return;
	r->flags_off = static_cast<u16>(r->pkt.tcp_off + TGC_TCP_FLAGS_OFF);
	if (ops && ops->append && ops->append(ctx, r->held, r) != 0) {
		// The buffers could not take it: the same segment, decided as one that may not merge.
		r->retried = 1;
		r->flags_off = 0;
		tgc_decide(&r->pkt, seg->hdr, &held, (in & kDecideBits) | TGC_IN_NOMERGE, &r->v);
	}
}
