// Shared helpers of the core's unit tests: run a train through MiniGro, return segments per delivered packet.
#ifndef TUNGRO_TESTS_UTIL_HPP
#define TUNGRO_TESTS_UTIL_HPP

#include <algorithm>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "frames.hpp"
#include "mini_gro.hpp"

inline unsigned encap_of(const frames::Segment &s)
{
	switch (s.encap) {
	case frames::Encap::IPIP: return TGC_ENCAP_IPIP;
	case frames::Encap::SIT: return TGC_ENCAP_SIT;
	case frames::Encap::IP4IP6: return TGC_ENCAP_IP4IP6;
	case frames::Encap::IP6IP6: return TGC_ENCAP_IP6IP6;
	default: return TGC_ENCAP_NONE;
	}
}

inline std::vector<std::vector<uint8_t>> build_all(const std::vector<frames::Segment> &segs)
{
	std::vector<std::vector<uint8_t>> out;
	for (const auto &s : segs)
		out.push_back(frames::build(s));
	return out;
}

// Runs one NAPI poll's train and returns the segment count of each delivered packet, in delivery order.
inline std::vector<unsigned> gro_counts(const std::vector<frames::Segment> &segs, bool csum_help = true,
					unsigned align = 0)
{
	MiniGro g(encap_of(segs.at(0)), csum_help, align);
	g.receive_all(build_all(segs));
	g.flush();
	return g.seg_counts();
}

using Counts = std::vector<unsigned>;

// The device's part of CHECKSUM_PARTIAL on a completed GRO packet @b: the one's-complement sum from the L4 header
// at @l4_off to the end, over the pseudo-header sum the core left in the checksum field at @csum_off (from the L4
// header: 16 TCP, 6 UDP), written there complemented. Then tgc_tcp_csum_ok() must accept the packet.
inline void finish_partial_csum(std::vector<uint8_t> &b, size_t l4_off, size_t csum_off)
{
	uint32_t sum = 0;
	for (size_t i = l4_off; i + 1 < b.size(); i += 2)
		sum += (b[i] << 8) | b[i + 1];
	if ((b.size() - l4_off) & 1)
		sum += b.back() << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	b[l4_off + csum_off] = static_cast<uint8_t>(~sum >> 8);
	b[l4_off + csum_off + 1] = static_cast<uint8_t>(~sum);
}

// The offload path's model on tgc_receive(): the kernel's GRO list of one NAPI poll as a list of held packets
// (first segment's headers, counts), every segment through the shared receive loop, everything held completed at
// the end in hold order. With @fast, the model offers the fast stage the list's first held packet of the segment's
// encap (tgc_rx_ops.expect, as the module offers the first same_flow candidate), and every kPartialEvery-th segment
// (the 4th, 8th, ...) comes with only 24 bytes of headers in view, the rest given by the view op when the fast
// stage (for its candidate's headers) or the full stage asks (as the module gives what frag0 or the linear part
// holds, then pulls). With @predict too, the model keeps a prediction with each held packet (tgc_pred_hold(), as
// the module keeps one per CPU in a slot of the held skb) and offers the predicted stage the expected packet's
// while it is current (its count the packet's). Each header view is its own exact allocation (ASan).
class OffloadModel {
public:
	static constexpr unsigned kPartialEvery = 4;
	explicit OffloadModel(bool fast, bool predict = false) : fast_(fast || predict), predict_(predict) {}

	// One segment: its result, with the model's steps after it done.
	tgc_rx_result receive(const std::vector<uint8_t> &f, unsigned encap)
	{
		const uint32_t n = static_cast<uint32_t>(f.size()), hl = std::min<uint32_t>(n, TGC_MAX_HDR_BYTES);
		const std::vector<uint8_t> view(f.begin(), f.begin() + hl);
		const uint32_t part = fast_ && ++segs_ % kPartialEvery == 0 ? std::min<uint32_t>(hl, 24) : hl;
		const std::vector<uint8_t> partial(f.begin(), f.begin() + part);
		whole_ = &view;
		tgc_seg seg{};
		seg.hdr = partial.data();
		seg.data = f.data();
		seg.hdr_len = part;
		seg.pkt_len = n;
		seg.encap = static_cast<uint8_t>(encap);
		const tgc_rx_ops ops = {nullptr, find, append, fast_ ? expect : nullptr, fast_ ? view_of_seg : nullptr,
					predict_ ? predict : nullptr};
		tgc_rx_result r;
		tgc_receive(&seg, &ops, this, &r);
		fast_merged += r.fast != 0;
		predicted_merged += r.fast == 2;
		const size_t at = r.held ? static_cast<size_t>(static_cast<Held *>(r.held) - held_.data()) : 0;
		last_held = r.held ? static_cast<long>(at) : -1;
		if (r.v.action == TGC_MERGE) {
			held_[at].id_state = r.v.id_state;
			held_[at].hdr[r.flags_off] |= r.v.held_flags;
		}
		if (r.v.flush_held && r.held)
			complete(at);
		if (r.v.action == TGC_HOLD) {
			held_.push_back(Held{std::vector<uint8_t>(f.begin(), f.begin() + r.pkt.payload_off), r.pkt,
					     r.pkt.payload_off + r.pkt.payload_len, r.pkt.payload_len, 1, 0, {}, predict_});
			if (predict_)
				tgc_pred_hold(&held_.back().pred);
		} else if (r.v.action != TGC_MERGE)
			out.push_back(1);
		return r;
	}

	void flush()
	{
		while (!held_.empty())
			complete(0);
	}

	Counts out;		// segments of each delivered packet, in delivery order
	unsigned fast_merged = 0; // segments the fast or predicted stage took
	unsigned predicted_merged = 0; // of those, the predicted stage's
	long last_held = -1;	  // the last result's held packet: its place in the list, -1 for none

private:
	struct Held {
		std::vector<uint8_t> hdr;
		tgc_pkt first;
		uint32_t total, payload;
		uint16_t count;
		uint8_t id_state;
		tgc_pred pred;	// with has_pred: its prediction (tgc_pred_hold()), current while pred.count is count
		bool has_pred;
	};

	void complete(size_t i)
	{
		out.push_back(held_[i].count);
		held_.erase(held_.begin() + static_cast<long>(i));
	}
	static tgc_held view_of(Held &x)
	{
		return tgc_held{x.hdr.data(), x.first.payload_off, x.total, x.payload, x.count,
				static_cast<uint16_t>(x.first.payload_len), x.id_state, 0, {0, 0}};
	}
	static void *find(void *ctx, const tgc_pkt *pkt, const uint8_t *hdr, tgc_held *h)
	{
		for (Held &x : static_cast<OffloadModel *>(ctx)->held_) {
			if (x.first.encap != pkt->encap || !tgc_same_flow(pkt, hdr, x.hdr.data(), x.first.payload_off))
				continue;
			*h = view_of(x);
			return &x;
		}
		return nullptr;
	}
	// The first held packet of the segment's encap: the one find returns for a segment of its template (find
	// walks the list in the same order, and a segment that matches the template is of that packet's flow).
	static void *expect(void *ctx, const tgc_seg *seg, tgc_held *h, tgc_layout *layout)
	{
		for (Held &x : static_cast<OffloadModel *>(ctx)->held_) {
			if (x.first.encap != seg->encap)
				continue;
			*h = view_of(x);
			*layout = tgc_layout{x.first.inner_off, x.first.tcp_off, x.first.payload_off, x.first.encap, 0};
			return &x;
		}
		return nullptr;
	}
	// The prediction of the packet expect offers, while it is current, from its second segment on (as the
	// module offers it: tungro_rx_predict()).
	static void *predict(void *ctx, const tgc_seg *seg, tgc_pred **pred)
	{
		tgc_held h;
		tgc_layout layout;
		Held *x = static_cast<Held *>(expect(ctx, seg, &h, &layout));
		if (!x || x->count < 2 || !x->has_pred || !tgc_pred_current(&x->pred, x->count))
			return nullptr;
		*pred = &x->pred;
		return x;
	}
	static int view_of_seg(void *ctx, const uint8_t **hdr, uint32_t *hdr_len)
	{
		const std::vector<uint8_t> *v = static_cast<OffloadModel *>(ctx)->whole_;
		*hdr = v->data();
		*hdr_len = static_cast<uint32_t>(v->size());
		return 0;
	}
	static int append(void *ctx, void *held, const tgc_rx_result *r)
	{
		(void)ctx;
		Held *x = static_cast<Held *>(held);
		x->total += r->pkt.payload_len;
		x->payload += r->pkt.payload_len;
		x->count++;
		return 0;
	}

	bool fast_, predict_;
	unsigned segs_ = 0;
	const std::vector<uint8_t> *whole_ = nullptr;
	std::vector<Held> held_;
};

// Whether two results of the offload model are the same but for r.fast (@b's stage).
inline bool same_but_stage(const tgc_rx_result &a, const tgc_rx_result &b)
{
	return a.parsed == b.parsed && a.located == b.located && a.foreign == b.foreign && a.retried == b.retried &&
	       a.flags_off == b.flags_off && std::memcmp(&a.pkt, &b.pkt, sizeof(a.pkt)) == 0 &&
	       std::memcmp(&a.v, &b.v, sizeof(a.v)) == 0;
}

// Runs @frames through the offload model without the fast stage, with it, and with the predicted stage too, in
// lockstep: every result must be the same but for r.fast (the proof of both stages, fastpath.hpp, as the engine's
// MiniGro checks its own). Returns the segment count of each delivered packet, in delivery order; @reasons
// (optional) collects each segment's reason, @fast_merged (optional) the segments the fast stage took (without
// the predicted stage), @predicted (optional) those the predicted stage took.
inline Counts rx_counts(const std::vector<std::vector<uint8_t>> &frames, unsigned encap,
			std::vector<unsigned> *reasons = nullptr, unsigned *fast_merged = nullptr,
			unsigned *predicted = nullptr)
{
	OffloadModel full(false), fast(true), pred(true, true);
	size_t i = 0;
	for (const auto &f : frames) {
		const tgc_rx_result a = full.receive(f, encap), b = fast.receive(f, encap), c = pred.receive(f, encap);
		EXPECT_EQ(full.last_held, fast.last_held) << "segment " << i << ": another held packet";
		EXPECT_EQ(full.last_held, pred.last_held) << "segment " << i << ": another held packet (predicted)";
		EXPECT_EQ(a.fast, 0u);
		EXPECT_NE(b.fast, 2u) << "segment " << i << ": the predicted stage ran without a predict op";
		EXPECT_TRUE(same_but_stage(a, b)) << "segment " << i << ": fast stage " << unsigned(b.fast) << ", "
						  << tgc_reason_name(a.v.reason) << " against " << tgc_reason_name(b.v.reason);
		EXPECT_TRUE(same_but_stage(a, c)) << "segment " << i << ": stage " << unsigned(c.fast) << " with predictions, "
						  << tgc_reason_name(a.v.reason) << " against " << tgc_reason_name(c.v.reason);
		if (reasons)
			reasons->push_back(a.v.reason);
		i++;
	}
	full.flush();
	fast.flush();
	pred.flush();
	EXPECT_EQ(full.out, fast.out);
	EXPECT_EQ(full.out, pred.out);
	if (fast_merged)
		*fast_merged = fast.fast_merged;
	if (predicted)
		*predicted = pred.predicted_merged;
	return full.out;
}

#endif
