// Shared helpers of the core's unit tests: run a train through MiniGro, return segments per delivered packet.
#ifndef TUNGRO_TESTS_UTIL_HPP
#define TUNGRO_TESTS_UTIL_HPP

#include <algorithm>
#include <vector>

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
// the end in hold order. Each header view is its own exact allocation (ASan). Returns the segment count of each
// delivered packet, in delivery order; @reasons (optional) collects each segment's reason.
inline Counts rx_counts(const std::vector<std::vector<uint8_t>> &frames, unsigned encap,
			std::vector<unsigned> *reasons = nullptr)
{
	struct Held {
		std::vector<uint8_t> hdr;
		tgc_pkt first;
		uint32_t total, payload;
		uint16_t count;
		uint8_t id_state;
	};
	struct List {
		std::vector<Held> held;
		Counts out;
		void complete(size_t i)
		{
			out.push_back(held[i].count);
			held.erase(held.begin() + static_cast<long>(i));
		}
	} list;
	auto find = [](void *ctx, const tgc_pkt *pkt, const uint8_t *hdr, tgc_held *h) -> void * {
		for (Held &x : static_cast<List *>(ctx)->held) {
			if (x.first.encap != pkt->encap || !tgc_same_flow(pkt, hdr, x.hdr.data(), x.first.payload_off))
				continue;
			*h = tgc_held{x.hdr.data(), x.first.payload_off, x.total, x.payload, x.count,
				      static_cast<uint16_t>(x.first.payload_len), x.id_state, 0, {0, 0}};
			return &x;
		}
		return nullptr;
	};
	auto append = [](void *, void *held, const tgc_rx_result *r) -> int {
		Held *x = static_cast<Held *>(held);
		x->total += r->pkt.payload_len;
		x->payload += r->pkt.payload_len;
		x->count++;
		return 0;
	};
	const tgc_rx_ops ops = {nullptr, find, append};
	for (const auto &f : frames) {
		const uint32_t n = static_cast<uint32_t>(f.size()), hl = std::min<uint32_t>(n, TGC_MAX_HDR_BYTES);
		const std::vector<uint8_t> view(f.begin(), f.begin() + hl);
		tgc_seg seg{};
		seg.hdr = view.data();
		seg.data = f.data();
		seg.hdr_len = hl;
		seg.pkt_len = n;
		seg.encap = static_cast<uint8_t>(encap);
		tgc_rx_result r;
		tgc_receive(&seg, &ops, &list, &r);
		if (reasons)
			reasons->push_back(r.v.reason);
		const size_t at = r.held ? static_cast<size_t>(static_cast<Held *>(r.held) - list.held.data()) : 0;
		if (r.v.action == TGC_MERGE) {
			list.held[at].id_state = r.v.id_state;
			list.held[at].hdr[r.flags_off] |= r.v.held_flags;
		}
		if (r.v.flush_held && r.held)
			list.complete(at);
		if (r.v.action == TGC_HOLD)
			list.held.push_back(Held{std::vector<uint8_t>(f.begin(), f.begin() + r.pkt.payload_off), r.pkt,
						 r.pkt.payload_off + r.pkt.payload_len, r.pkt.payload_len, 1, 0});
		else if (r.v.action != TGC_MERGE)
			list.out.push_back(1);
	}
	while (!list.held.empty())
		list.complete(0);
	return list.out;
}

#endif
