// Delivery oracle (oracle.hpp): exactly once, per-flow order, and the resegmentation of every GRO packet.
#include "oracle.hpp"

#include <cstring>

#include "checks.hpp"

namespace fuzzchk {
namespace {

constexpr uint8_t kFin = 0x01, kPsh = 0x08, kUrg = 0x20, kCwr = 0x80;

// One IP layer of a segment: its offset and ID-state index (0 outer or only, 1 tunneled inner).
struct Layer {
	uint32_t off;
	unsigned index;
};

// The bytes of input segment b that GSO may rewrite: the IPv4 header checksums and the TCP checksum (recomputed),
// and the urgent pointer of a segment without URG (RFC 9293: meaningless then; the kernel's GRO does not compare it
// and GSO copies the first segment's). A UDP datagram's (@udp): its checksum (recomputed), the same IPv4 fields.
// All lie within the headers (before payload_off).
struct FreeFields {
	uint32_t at[8];
	unsigned n = 0;
	const uint32_t *begin() const { return at; }
	const uint32_t *end() const { return at + n; }
	void pair(uint32_t k)
	{
		at[n++] = k;
		at[n++] = k + 1;
	}
};
FreeFields free_fields(const Layer *l, unsigned nl, const uint8_t *b, uint32_t tcp_off, bool udp)
{
	FreeFields f;
	f.pair(tcp_off + (udp ? 6 : 16));
	if (!udp && !(b[tcp_off + 13] & kUrg))
		f.pair(tcp_off + 18);
	for (unsigned i = 0; i < nl; i++)
		if (b[l[i].off] >> 4 == 4)
			f.pair(l[i].off + 10);
	return f;
}

} // namespace

void Delivery::reset()
{
	segs_.clear(); // capacities stay: no allocation per input once warm
	arena_.clear();
	last_.clear();
}

uint64_t Delivery::add(const uint8_t *p, uint32_t n)
{
	segs_.emplace_back();
	Seg &s = segs_.back();
	s.off = arena_.size();
	s.n = n;
	arena_.insert(arena_.end(), p, p + n);
	return segs_.size() - 1;
}

void Delivery::mark(uint64_t id)
{
	FUZZ_CHECK(id < segs_.size() && !segs_[id].out, "segment %llu delivered twice", (unsigned long long)id);
	Seg &s = segs_[id];
	s.out = true;
	if (s.key.empty())
		return; // never parsed and its flow not located: no flow to keep order with
	for (auto &l : last_)
		if (l.first == s.key) {
			FUZZ_CHECK(l.second < id, "flow order: segment %llu after %llu", (unsigned long long)id,
				   (unsigned long long)l.second);
			l.second = id;
			return;
		}
	last_.emplace_back(s.key, id);
}

void Delivery::single(uint64_t id) { mark(id); }

void Delivery::gro(const std::vector<uint64_t> &ids, const uint8_t *b, uint32_t n, const tgc_pkt &first,
		   uint32_t gso_size, uint8_t id_state)
{
	const uint32_t hl = first.payload_off, m = static_cast<uint32_t>(ids.size());
	FUZZ_CHECK(m >= 1 && n >= hl && gso_size > 0, "GRO packet of %u segments, %u bytes, headers %u, gso_size %u", m, n,
		   hl, gso_size);
	FUZZ_CHECK(n - hl > uint64_t(m - 1) * gso_size && n - hl <= uint64_t(m) * gso_size,
		   "%u payload bytes do not make %u segments of %u", n - hl, m, gso_size);
	const Layer layers[2] = {{0, 0}, {first.inner_off, 1}};
	const unsigned nl = first.nlayers == 2 ? 2 : 1;
	const bool udp = tgc_pkt_is_udp(&first);
	const uint32_t seq0 = ld32(b + first.tcp_off + 4);
	std::vector<uint8_t> &seg = seg_;
	for (uint32_t k = 0; k < m; k++) {
		const uint32_t off = hl + k * gso_size, len = k + 1 < m ? gso_size : n - off, total = hl + len;
		seg.assign(b, b + hl);
		seg.insert(seg.end(), b + off, b + off + len);
		for (unsigned i = 0; i < nl; i++) {
			uint8_t *nh = seg.data() + layers[i].off;
			if (nh[0] >> 4 == 6) {
				st16(nh + 4, static_cast<uint16_t>(total - layers[i].off - 40));
				continue;
			}
			st16(nh + 2, static_cast<uint16_t>(total - layers[i].off));
			if (id_state & TGC_ID_INCR(layers[i].index))
				st16(nh + 4, static_cast<uint16_t>(ld16(nh + 4) + k));
			else
				FUZZ_CHECK(k == 0 || (id_state & TGC_ID_FIXED(layers[i].index)),
					   "IPv4 ID of layer %u undecided in a GRO packet of %u segments (id_state %#x)",
					   layers[i].index, m, id_state);
		}
		uint8_t *th = seg.data() + first.tcp_off;
		if (udp) {
			st16(th + 4, static_cast<uint16_t>(len + TGC_UDP_HLEN)); // __udp_gso_segment: each datagram's length
		} else {
			st32(th + 4, seq0 + k * gso_size);
			if (k + 1 < m)
				th[13] &= static_cast<uint8_t>(~(kFin | kPsh));
			if (k > 0)
				th[13] &= static_cast<uint8_t>(~kCwr);
		}

		const Seg &in = segs_[ids[k]];
		const uint8_t *want = arena_.data() + in.off;
		// The input may carry link padding after its IP packet (a held first segment): not part of the packet.
		FUZZ_CHECK(in.n >= total, "segment %u of %u: resegmented %u bytes, input %u", k, m, total, in.n);
		// The fields GSO may rewrite take the input's values, then one compare; byte by byte only to report.
		for (uint32_t j : free_fields(layers, nl, want, first.tcp_off, udp))
			seg[j] = want[j];
		if (std::memcmp(seg.data(), want, total) != 0)
			for (uint32_t j = 0; j < total; j++)
				FUZZ_CHECK(seg[j] == want[j], "segment %u of %u (input %llu) resegments with byte %u = %#x, input %#x",
					   k, m, (unsigned long long)ids[k], j, seg[j], want[j]);
		mark(ids[k]);
	}
}

void Delivery::finish() const
{
	for (size_t i = 0; i < segs_.size(); i++)
		FUZZ_CHECK(segs_[i].out, "segment %zu of %zu never delivered", i, segs_.size());
}

} // namespace fuzzchk
