#include "mini_gro.hpp"

#include <algorithm>
#include <cstring>

namespace {
constexpr unsigned kMaxHeldPerBucket = 8; // MAX_GRO_SKBS
}

std::vector<unsigned> MiniGro::seg_counts() const
{
	std::vector<unsigned> v;
	for (const auto &d : out_)
		v.push_back(d.segs);
	return v;
}

void MiniGro::complete(Held &h)
{
	Delivered d;
	d.segs = h.count;
	d.seqs = h.seqs;
	d.bytes = h.bytes;
	d.id_state = h.id_state;
	d.gso_size = h.gso_size;
	d.parsed = true;
	if (h.count > 1) {
		// As inet_gro_complete does for the outer header, then the tunnel's gro_complete for the inner one.
		if (h.first.nlayers == 2)
			tgc_fix_ipv4(d.bytes.data(), static_cast<uint16_t>(d.bytes.size()));
		uint8_t *nh = d.bytes.data() + h.first.inner_off;
		uint32_t len = static_cast<uint32_t>(d.bytes.size() - h.first.inner_off);
		int rc = tgc_complete(nh, len, len, h.id_state, h.first.nlayers - 1, &d.completion);
		if (rc != 0)
			d.parsed = false;
	}
	out_.push_back(std::move(d));
}

tgc_verdict MiniGro::receive(const std::vector<uint8_t> &frame_in)
{
	// Place the frame at the requested alignment (2 mod 4 as with NET_IP_ALIGN on m68k) in its own buffer so
	// ASan catches any read past its end.
	std::vector<uint8_t> storage(frame_in.size() + align_);
	std::memcpy(storage.data() + align_, frame_in.data(), frame_in.size());
	const uint8_t *hdr = storage.data() + align_;
	const uint32_t pkt_len = static_cast<uint32_t>(frame_in.size());
	const uint32_t hdr_len = std::min<uint32_t>(pkt_len, TGC_MAX_HDR_BYTES);
	std::vector<uint8_t> view(hdr, hdr + hdr_len); // exactly hdr_len bytes: reading further is an ASan error

	tgc_verdict v{};
	tgc_pkt pkt{};
	unsigned r = tgc_parse(view.data(), hdr_len, pkt_len, encap_, &pkt);
	if (r) {
		reasons_[r]++;
		// As the module: a segment refused for its outer header (the kernel's inet_gro_receive flags the outer
		// length mismatch before the tunnel's gro_receive runs) completes its flow's held packet first.
		const bool outer_flush = encap_ != TGC_ENCAP_NONE && hdr_len >= 4 &&
					 static_cast<uint32_t>((hdr[2] << 8) | hdr[3]) != pkt_len;
		tgc_pkt where{};
		if (outer_flush && tgc_flow_of(view.data(), hdr_len, encap_, &where)) {
			for (size_t i = 0; i < held_.size(); i++) {
				if (tgc_same_flow(&where, view.data(), held_[i].bytes.data(), held_[i].first.payload_off)) {
					Held h = std::move(held_[i]);
					held_.erase(held_.begin() + i);
					complete(h);
					break;
				}
			}
		}
		Delivered d;
		d.segs = 1;
		d.bytes = frame_in;
		d.pass_reason = r;
		out_.push_back(std::move(d));
		return v;
	}

	unsigned in = 0;
	if (!csum_help_ && !tgc_tcp_csum_ok(&pkt, hdr, pkt_len))
		in |= TGC_IN_CSUM_BAD;

	Held *match = nullptr;
	for (auto &h : held_) {
		if (tgc_same_flow(&pkt, view.data(), h.bytes.data(), h.first.payload_off)) {
			match = &h;
			break;
		}
	}
	tgc_held th{};
	if (match) {
		th.hdr = match->bytes.data();
		th.hdr_len = match->first.payload_off;
		th.total_len = static_cast<uint32_t>(match->bytes.size());
		th.payload_len = match->payload_len;
		th.count = match->count;
		th.gso_size = match->gso_size;
		th.id_state = match->id_state;
	}
	tgc_decide(&pkt, view.data(), match ? &th : nullptr, in, &v);
	reasons_[v.reason]++;
	last_ = v;

	auto drop_match = [&]() {
		Held h = std::move(*match);
		held_.erase(held_.begin() + (match - held_.data()));
		complete(h);
	};

	switch (v.action) {
	case TGC_MERGE:
		match->bytes.insert(match->bytes.end(), hdr + pkt.payload_off, hdr + pkt.payload_off + pkt.payload_len);
		match->payload_len += pkt.payload_len;
		match->count++;
		match->id_state = v.id_state;
		match->seqs.push_back(pkt.seq);
		match->bytes[match->first.tcp_off + TGC_TCP_FLAGS_OFF] |= v.held_flags;
		if (v.flush_held)
			drop_match();
		break;
	case TGC_HOLD: {
		if (v.flush_held)
			drop_match();
		if (held_.size() >= kMaxHeldPerBucket) {
			// Bucket full: the oldest is completed and the new one held (upstream since 2023).
			auto oldest = std::min_element(held_.begin(), held_.end(),
						       [](const Held &a, const Held &b) { return a.age < b.age; });
			Held h = std::move(*oldest);
			held_.erase(oldest);
			complete(h);
		}
		Held h;
		h.bytes.assign(hdr, hdr + pkt.payload_off + pkt.payload_len); // never the padding
		h.first = pkt;
		h.payload_len = pkt.payload_len;
		h.count = 1;
		h.gso_size = static_cast<uint16_t>(pkt.payload_len);
		h.seqs.push_back(pkt.seq);
		h.age = clock_++;
		held_.insert(held_.begin(), std::move(h));
		break;
	}
	case TGC_PASS: {
		if (v.flush_held)
			drop_match();
		Delivered d;
		d.segs = 1;
		d.seqs.push_back(pkt.seq);
		d.bytes = frame_in;
		d.parsed = true;
		d.pass_reason = v.reason;
		out_.push_back(std::move(d));
		break;
	}
	}
	return v;
}

void MiniGro::receive_all(const std::vector<std::vector<uint8_t>> &frames)
{
	for (const auto &f : frames)
		receive(f);
}

void MiniGro::flush()
{
	std::sort(held_.begin(), held_.end(), [](const Held &a, const Held &b) { return a.age < b.age; });
	for (auto &h : held_)
		complete(h);
	held_.clear();
}
