// Helpers shared by the fuzz harnesses (fuzz_parse, fuzz_receive, fuzz_engine): the abort-on-violation check,
// big-endian loads written apart from the core's (so that the two check each other), exact heap buffers and an
// arena of exact buffers for ASan, and the oracles on tgc_parse's and tgc_flow_of's layouts.
#ifndef TUNGRO_FUZZ_CHECKS_HPP
#define TUNGRO_FUZZ_CHECKS_HPP

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "fuzz_input.hpp"
#include "tungro_core.h"

#define FUZZ_CHECK(cond, ...)                                                                              \
	do {                                                                                               \
		if (!(cond)) {                                                                             \
			std::fprintf(stderr, "tungro fuzz: invariant violated: %s (%s:%d): ", #cond, __FILE__, \
				     __LINE__);                                                            \
			std::fprintf(stderr, __VA_ARGS__);                                                 \
			std::fputc('\n', stderr);                                                          \
			std::abort();                                                                      \
		}                                                                                          \
	} while (0)

namespace fuzzchk {

constexpr uint32_t kHdrView = TGC_MAX_HDR_BYTES;

inline uint16_t ld16(const uint8_t *p) { return static_cast<uint16_t>(p[0] << 8 | p[1]); }
inline uint32_t ld32(const uint8_t *p) { return uint32_t(ld16(p)) << 16 | ld16(p + 2); }
inline void st16(uint8_t *p, uint16_t v)
{
	p[0] = static_cast<uint8_t>(v >> 8);
	p[1] = static_cast<uint8_t>(v);
}
inline void st32(uint8_t *p, uint32_t v)
{
	st16(p, static_cast<uint16_t>(v >> 16));
	st16(p + 2, static_cast<uint16_t>(v));
}

// RFC 1071 sum, written independently of the core's: eight bytes a load (one ASan check instead of eight; the
// completion check sums whole 64 KiB packets), the 16-bit words taken big-endian whatever the host. The result is
// the sum kept in 32 bits by end-around carry (2^32 = 1 modulo 0xffff): fold() it.
inline uint32_t sum16(const uint8_t *p, size_t n, uint32_t s = 0)
{
	uint64_t acc = s;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		std::memcpy(&w, p + i, 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		w = __builtin_bswap64(w);
#endif
		acc += (w >> 48) + (w >> 32 & 0xffff) + (w >> 16 & 0xffff) + (w & 0xffff);
	}
	for (; i + 1 < n; i += 2)
		acc += ld16(p + i);
	if (n & 1)
		acc += uint32_t(p[n - 1]) << 8;
	acc = (acc & 0xffffffffu) + (acc >> 32);
	return static_cast<uint32_t>((acc & 0xffffffffu) + (acc >> 32));
}
inline uint16_t fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return static_cast<uint16_t>(s);
}
// Header checksum over the IHL, options included (an IHL below 5 counts as 5).
inline bool ipv4_hdr_ok(const uint8_t *iph)
{
	const uint32_t ihl = (iph[0] & 15u) * 4u;
	return fold(sum16(iph, ihl < 20 ? 20 : ihl)) == 0xffff;
}

// Whether the outer IP length of @p (@hl bytes seen) is not the @n bytes present: the flush bit 6.12's
// inet_gro_receive / ipv6_gro_receive set before the tunnel's or TCP's gro_receive runs.
inline bool outer_len_differs(const uint8_t *p, uint32_t hl, uint32_t n)
{
	if (hl >= 4 && p[0] >> 4 == 4)
		return ld16(p + 2) != n;
	return hl >= 6 && p[0] >> 4 == 6 && ld16(p + 4) + 40u != n;
}

// Whether the outer IP header of a completed packet of @n bytes has its length (and IPv4 checksum) right.
inline bool outer_len_ok(const uint8_t *p, uint32_t n)
{
	return p[0] >> 4 == 4 ? ipv4_hdr_ok(p) && ld16(p + 2) == n : ld16(p + 4) + 40u == n;
}

// The TCP (or UDP: tgc_pkt_is_udp) checksum sum (pseudo-header of the innermost IP header + L4 header + payload)
// of a parsed segment.
inline uint16_t tcp_sum(const uint8_t *b, const tgc_pkt &pkt)
{
	const uint8_t *nh = b + pkt.inner_off;
	const uint32_t l4 = pkt.payload_off + pkt.payload_len - pkt.tcp_off;
	uint32_t s = pkt.inner_version == 4 ? sum16(nh + 12, 8) : sum16(nh + 8, 32);
	s += (tgc_pkt_is_udp(&pkt) ? 17u : 6u) + (l4 >> 16) + (l4 & 0xffff);
	return fold(sum16(b + pkt.tcp_off, l4, s));
}

// Exactly n bytes on the heap (after align bytes of slack, for NET_IP_ALIGN-like placement): a read at p[n] is an
// ASan heap-buffer-overflow.
struct Buf {
	std::unique_ptr<uint8_t[]> mem;
	uint8_t *p;
	uint32_t n;
	Buf(const uint8_t *src, uint32_t len, unsigned align) : mem(new uint8_t[len + align]), p(mem.get() + align), n(len)
	{
		if (len)
			std::memcpy(p, src, len);
	}
};

// Buffers of exactly the bytes asked for, carved from one mapping per process and emptied per run. A heap
// allocation per segment and per header view made ASan's allocator most of fuzz_engine's time (perf: 25% in
// Allocate, 9% in its quarantine, 9% in page faults). Under ASan every byte of the mapping that is not inside a
// buffer handed out since the last reset is poisoned, and buffers are 32 bytes apart, so a read past either end
// of one is reported as one past a heap buffer would be ("use-after-poison").
class Arena {
public:
	explicit Arena(size_t cap);
	// A copy of the n bytes at src after align bytes of slack (NET_IP_ALIGN-like placement): returns the copy.
	uint8_t *copy(const uint8_t *src, uint32_t n, unsigned align);
	// Everything handed out since the last reset becomes unreadable again.
	void reset();
	// The n bytes at p become unreadable (a buffer given back: a later read is reported).
	static void release(const uint8_t *p, uint32_t n);

private:
	uint8_t *mem_;
	size_t cap_, used_ = 0;
};

// Flow identity as tgc_same_flow defines it (its header comment), as bytes: in a fixed array, so a segment's key is
// no heap allocation. At most one byte of layer count, two layers' fixed fields and the extension headers within
// TGC_MAX_HDR_BYTES, four bytes of ports.
struct FlowKey {
	static constexpr unsigned kMax = TGC_MAX_HDR_BYTES + 16;
	uint16_t n = 0;
	uint8_t b[kMax];
	bool empty() const { return n == 0; }
	void clear() { n = 0; }
	void put(const void *p, unsigned len)
	{
		FUZZ_CHECK(n + len <= kMax, "flow key of more than %u bytes", kMax);
		std::memcpy(b + n, p, len);
		n = static_cast<uint16_t>(n + len);
	}
	bool operator==(const FlowKey &o) const { return n == o.n && std::memcmp(b, o.b, n) == 0; }
	bool operator!=(const FlowKey &o) const { return !(*this == o); }
};

// Flow identity as tgc_same_flow defines it (its header comment), computed here from the bytes on our own.
FlowKey flow_key(const tgc_pkt &pkt, const uint8_t *hdr);

// The tgc_encap a record's flags dispatch to (fuzz_input.hpp), by the outer protocol for kEncapAuto.
unsigned pick_encap(uint8_t flags, const uint8_t *p, uint32_t n);

// tgc_parse's layout of an accepted segment of n bytes seen through a view of hl bytes is consistent.
void check_parsed(const tgc_pkt &p, unsigned encap, uint32_t hl, uint32_t n);

// tgc_flow_of's layout stays inside the view and, for a segment tgc_parse accepted (parsed), equals tgc_parse's.
void check_located(const tgc_pkt &w, unsigned encap, uint32_t hl, const tgc_pkt *parsed);

// Walks the records of a fuzz input (fuzz_input.hpp): calls fn(flags, repeat, bytes, len) for each.
template <typename Fn> void for_each_record(const uint8_t *data, size_t size, Fn fn)
{
	size_t off = 0;
	while (size - off >= fuzzin::kRecordHdr) {
		const uint8_t flags = data[off], repeat = data[off + 1];
		size_t len = ld16(data + off + 2);
		off += fuzzin::kRecordHdr;
		len = len < size - off ? len : size - off;
		if (!fn(flags, repeat, data + off, static_cast<uint32_t>(len)))
			return;
		off += len;
	}
}

} // namespace fuzzchk
#endif
