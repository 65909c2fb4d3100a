// SPDX-License-Identifier: GPL-2.0
// tgc_receive: the receive loop (receive.hpp) on the caller's tgc_rx_ops, for the module's offload path and every
// host caller.
#include "freestanding.hpp"
#include "receive.hpp"

using namespace tungro;

namespace {

// The bytes of the IP header at @nh that layer length @hlen must be: IPv4's IHL x 4; IPv6's 40 plus a multiple of 8
// (its extension headers, RFC 8200 4.2). False for anything else, another version included.
__attribute__((always_inline)) inline bool ip_span_ok(const u8 *nh, u32 hlen)
{
	if (ip_version(nh) == 4)
		return hlen == (nh[0] & 0xfu) * 4u && hlen >= ipv4::kMinLen;
	return ip_version(nh) == 6 && hlen >= ipv6::kLen && (hlen - ipv6::kLen) % 8 == 0;
}

// Whether the segment's ports at @tcp_off are the held packet's: the cheap test that tells flows apart first (the
// kernel offers the first candidate of its GRO list, often another flow's), both views long enough to read them.
__attribute__((always_inline)) inline bool same_ports(const tgc_seg *seg, const tgc_held &held, u32 tcp_off)
{
	return seg->hdr && tcp_off + 4 <= seg->hdr_len && tcp_off + 4 <= held.hdr_len &&
	       raw32(seg->hdr + tcp_off) == raw32(held.hdr + tcp_off);
}

// A held packet the caller named (tgc_rx_ops.expect) as the fast stage's Held (fastpath.hpp: hdr, first, total_len,
// payload_len, count, gso_size, id_state), its first segment's record rebuilt from the layout and the held bytes
// (expected_of()).
struct Expected {
	const u8 *hdr;
	tgc_pkt first;
	u32 total_len, payload_len;
	u16 count, gso_size;
	u8 id_state;
};

// @held and @layout as the fast stage's Expected, into @x. False when @layout does not describe a TCP segment's
// headers that lie in @held's bytes: every IP layer's span its header's length (ip_span_ok), the TCP header's its
// data offset, all within held.hdr_len (the fast stage reads the held bytes and the segment's up to payload_off, no
// further).
__attribute__((always_inline)) inline bool expected_of(const tgc_held &held, const tgc_layout &layout, Expected *x)
{
	const u32 ioff = layout.inner_off, toff = layout.tcp_off, poff = layout.payload_off;
	const bool tunnel = layout.encap != TGC_ENCAP_NONE;
	if (poff > held.hdr_len || poff > TGC_MAX_HDR_BYTES || toff + tcp::kMinLen > poff ||
	    (tunnel ? ioff >= toff : ioff != 0))
		return false;
	const u8 *h = held.hdr;
	if (poff - toff != (h[toff + tcp::kDoff] >> 4) * 4u ||
	    (tunnel ? !ip_span_ok(h, ioff) || !ip_span_ok(h + ioff, toff - ioff) : !ip_span_ok(h, toff)))
		return false;
	x->hdr = h;
	x->first = tgc_pkt{};
	x->first.seq = load32(h + toff + tcp::kSeq);
	x->first.payload_len = held.payload_len;
	x->first.inner_off = static_cast<u16>(ioff);
	x->first.tcp_off = static_cast<u16>(toff);
	x->first.payload_off = static_cast<u16>(poff);
	x->first.encap = layout.encap;
	x->first.inner_version = static_cast<u8>(ip_version(h + ioff));
	x->first.tcp_flags = h[toff + tcp::kFlags];
	x->first.nlayers = tunnel ? 2 : 1;
	x->first.gso_segs = 1;
	x->total_len = held.total_len;
	x->payload_len = held.payload_len;
	x->count = held.count;
	x->gso_size = held.gso_size;
	x->id_state = held.id_state;
	return true;
}

static_assert(TGC_PRED_HDR_BYTES == kPredMax, "tgc_pred.hdr holds the headers a prediction compares");

// tgc_rx_ops as receive()'s Ops: absent callbacks prepare nothing, find nothing, append everything, expect nothing
// (no fast stage).
class FnOps {
public:
	// What fast() and grow() write before they read it, kept apart from FnOps (whose members are initialised)
	// so that it can go unzeroed (tgc_receive()).
	struct Scratch {
		tgc_held held;	// what expect said of the fast stage's packet
		tgc_seg whole;	// the segment with the view op's headers
	};
	static constexpr bool kFastStage = true;
	FnOps(const tgc_rx_ops *ops, void *ctx, Scratch *s) : ops_(ops), ctx_(ctx), s_(s) {}
	static u32 outer(const tgc_seg * /*seg*/) { return 0; } // the caller's seg->in says it (TGC_IN_OUTER_FLUSH)
	// The caller's prepare, once a segment: after fast() ran it, what it said (fast() took the segment, so the full
	// parse gives the very record it was called with).
	__attribute__((always_inline)) u32 prepare(const tgc_pkt *pkt)
	{
		if (!prepared_) {
			prepared_ = true;
			prepared_in_ = ops_ && ops_->prepare ? ops_->prepare(ctx_, pkt) : 0;
		}
		return prepared_in_;
	}
	void *find(const tgc_pkt *pkt, const u8 *hdr, tgc_held *held) const
	{
		return ops_ && ops_->find ? ops_->find(ctx_, pkt, hdr, held) : nullptr;
	}
	// The caller's append; then, when @held is the packet the caller's prediction is for, that prediction kept up
	// (keep_up()).
	__attribute__((always_inline)) int append(void *held, const tgc_rx_result *r)
	{
		const int err = ops_ && ops_->append ? ops_->append(ctx_, held, r) : 0;
		if (!err && pred_ && held == pred_held_)
			keep_up(r);
		return err;
	}

	// The predicted stage where the caller offers a prediction (predicted_stage()), else the fast stage on the
	// caller's expected held packet: its template (fastpath.hpp) and rules, then the caller's prepare, whose
	// bits may still refuse it (a bad checksum: the full stage decides, prepare not run again). The caller
	// vouches that find would return that packet for a segment of its template (the kernel:
	// it is the first same_flow candidate, and same_flow() reads only bytes the template compares) and that it
	// carries no TGC_HELD_* fact.
	__attribute__((always_inline)) bool fast(const tgc_seg *seg, u32 in, tgc_rx_result *r)
	{
		// what fast_shape() refuses whatever the candidate: no list walk for them
		if (!ops_ || (in & kFastRefuse) || !pred_shape(seg))
			return false;
		if (ops_->predict && !(in & kPredRefuse)) {
			if (predicted_stage(seg, r))
				return true;
			if (prepared_ || !seg) // prepare's bits refused it, or the view op failed: the full stage
				return false;
		}
		if (!ops_->expect)
			return false;
		tgc_held &held = s_->held;
		held.flags = held.pad[0] = held.pad[1] = 0;
		tgc_layout layout{};
		void *h = ops_->expect(ctx_, seg, &held, &layout);
		if (!h || held.flags)
			return false;
		// Fewer bytes in view than the candidate's headers (the kernel: no frag0 where NET_IP_ALIGN leaves the
		// network header 2 bytes off a word, as on m68k, so the linear part holds the outer header only): the
		// whole view, which the full stage's parse would refuse the short one for anyway.
		if (seg->hdr_len < layout.payload_off) {
			seg = grow(seg);
			if (!seg)
				return false;
		}
		if (!same_ports(seg, held, layout.tcp_off))
			return false;
		Expected x __attribute__((uninitialized)); // expected_of() writes it whole before any read
		if (!expected_of(held, layout, &x) || !fast_shape(seg, in, x.first) ||
		    !template_match(seg->hdr, x.hdr, x.first) || !fast_merge(seg, in, x, r) ||
		    (prepare(&r->pkt) & (kFastRefuse | TGC_IN_CSUM_CHECK)))
			return false; // a bit of prepare's the fast stage did not decide on: the full stage does
		if (pred_ && pred_->state == TGC_PRED_LAZY && h == pred_held_)
			start_prediction(x);
		r->held = h;
		return true;
	}
	// What find fills in for the packet a stage took the segment for (a failed append's second decide): the
	// prediction's copy after the predicted stage (find's bytes beyond payload_off are never read there).
	void held_of(const void * /*h*/, tgc_held *held) const
	{
		if (!taken_) {
			*held = s_->held;
			return;
		}
		held_view_of(*taken_, held);
	}
	bool took_prediction() const { return taken_ != nullptr; }
	const tgc_seg *viewed(const tgc_seg *seg) const
	{
		if (viewed_)
			return viewed_ok_ ? &s_->whole : nullptr;
		return seg;
	}
	// The caller's view op, when it has one and has not run: the whole headers, for fast() (a view shorter than
	// its candidate's) or a parse that found the view short (receive.hpp). Never after fast() ran prepare, a
	// guard: the segment matched a template then, so its view holds every header byte and parses.
	const tgc_seg *grow(const tgc_seg *seg)
	{
		if (viewed_ || !ops_ || !ops_->view || prepared_)
			return seg;
		viewed_ = true;
		s_->whole = *seg;
		viewed_ok_ = ops_->view(ctx_, &s_->whole.hdr, &s_->whole.hdr_len) == 0;
		return viewed_ok_ ? &s_->whole : nullptr;
	}

private:
	// The predicted stage (fastpath.hpp) on the caller's current prediction for its expected packet: a segment
	// equal to the predicted next one takes the prediction's record (the one the fast and full stages would
	// write), then the caller's prepare, whose bits may still refuse it as after the fast stage. A view shorter
	// than the prediction's headers is grown first, as the fast stage grows it (m68k); @seg is then the grown
	// one, or nullptr when the view op failed.
	__attribute__((always_inline)) bool predicted_stage(const tgc_seg *&seg, tgc_rx_result *r)
	{
		tgc_pred *p = nullptr;
		void *h = ops_->predict(ctx_, seg, &p);
		if (!h || !p)
			return false;
		pred_ = p;
		pred_held_ = h;
		// Another flow's segment or another length never takes the view op: grown only where the fast stage
		// would grow it too (its candidate, the ports equal or not in view).
		if (p->state != TGC_PRED_ON || seg->encap != p->first.encap || seg->pkt_len != p->pred_len)
			return false;
		if (seg->hdr_len < p->first.payload_off) {
			if (p->first.tcp_off + 4u <= seg->hdr_len && !pred_ports(seg, *p))
				return false;
			seg = grow(seg);
			if (!seg)
				return false;
		}
		if (!pred_shape_of(seg, *p) || !pred_ports(seg, *p) || !predicted(seg, *p) || !pred_fits(*p))
			return false;
		r->pkt = p->next;
		r->v = p->next_v;
		r->parsed = 1;
		r->located = r->foreign = r->retried = 0;
		r->fast = r->pad = 0;
		if (prepare(&r->pkt) & (kFastRefuse | TGC_IN_CSUM_CHECK))
			return false;
		r->held = h;
		taken_ = p;
		return true;
	}
	// The prediction of pred_, LAZY until now, from its packet as the fast stage found it (@x, before the merge
	// it just took: keep_up() adds that one): made at the first merge by the fast stage the caller offers it for
	// (the module: a packet's second), so a packet never joined (trains of many flows, or none that merge) pays
	// only the caller's slot at its hold. Out of line: once a packet. OFF where predict_start() finds nothing to
	// predict.
	__attribute__((noinline, flatten)) void start_prediction(const Expected &x)
	{
		tgc_pred &p = *pred_;
		p.state = TGC_PRED_OFF;
		if (x.first.payload_off > kPredMax || !x.gso_size)
			return;
		p.count = x.count; // predict_next() predicts for it
		p.first = x.first;
		p.total_len = x.total_len;
		p.payload_len = x.payload_len;
		p.gso_size = x.gso_size;
		p.id_state = x.id_state;
		pred_limits(p);
		__builtin_memcpy(p.hdr, x.hdr, x.first.payload_off); // expected_of(): within the held bytes
		if (predict_start(p) && predict_next(p))
			p.state = TGC_PRED_ON;
	}
	// A merge into the packet of prediction pred_ (its append done): the prediction's lengths, count and id_state
	// as the packet's are now, and its next segment. A predicted segment steps it (predict_step()); another one
	// that leaves the packet open predicts afresh (predict_next()); after a GSO arrival, FIN or PSH, or with
	// nothing to predict, it is OFF for good. A LAZY one stays LAZY (the fast stage makes it from the packet).
	__attribute__((always_inline)) void keep_up(const tgc_rx_result *r)
	{
		tgc_pred &p = *pred_;
		if (!taken_) {
			renew(r);
			return;
		}
		predicted_merged(p);
	}
	// keep_up() after a merge of another stage: out of line, as a predicted packet mostly grows by predicted
	// segments.
	__attribute__((noinline)) void renew(const tgc_rx_result *r)
	{
		tgc_pred &p = *pred_;
		if (p.state != TGC_PRED_ON) // LAZY: nothing made yet to keep up; OFF: nothing to
			return;
		p.total_len += r->pkt.payload_len;
		p.payload_len += r->pkt.payload_len;
		p.count++;
		p.id_state = r->v.id_state;
		if (r->pkt.gso_size || r->v.held_flags || r->v.flush_held || !predict_next(p))
			p.state = TGC_PRED_OFF;
	}

	const tgc_rx_ops *ops_;
	void *ctx_;
	Scratch *s_;
	tgc_pred *pred_ = nullptr;	  // the caller's prediction for its expected packet (tgc_rx_ops.predict) ...
	void *pred_held_ = nullptr;	  // ... that packet
	const tgc_pred *taken_ = nullptr; // pred_, when the predicted stage took the segment
	u32 prepared_in_ = 0;
	bool prepared_ = false;
	bool viewed_ = false, viewed_ok_ = false; // the view op was called; it gave the headers
};

} // namespace

extern "C" void tgc_receive(const tgc_seg *seg, const tgc_rx_ops *ops, void *ctx, tgc_rx_result *r)
{
	// Written before read: not zeroed per segment by the kernel's -ftrivial-auto-var-init=zero
	// (the kernels' INIT_STACK_ALL_ZERO option; a rep stos of 80 bytes at -Os).
	FnOps::Scratch scratch __attribute__((uninitialized));
	// Its constructor writes every member: no zeroing before it either (a rep stos of 56 bytes, 14 instructions a
	// segment on the x86_64 test kernel).
	FnOps fn __attribute__((uninitialized))(ops, ctx, &scratch);
	// never IPv4 options: 6.12 may complete what it holds
	r->fast = receive(seg, seg->in, 0, fn, r) ? (fn.took_prediction() ? 2 : 1) : 0;
}
