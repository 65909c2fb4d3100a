// Shared oracles of the fuzz harnesses (checks.hpp).
#include "checks.hpp"

#include <sys/mman.h>

// The manual poisoning interface: ASan's own macros, no-ops in a build without ASan (the coverage runners).
#if defined(__has_include) && __has_include(<sanitizer/asan_interface.h>)
#include <sanitizer/asan_interface.h>
#endif
#ifndef ASAN_POISON_MEMORY_REGION
#define ASAN_POISON_MEMORY_REGION(addr, size) ((void)(addr), (void)(size))
#define ASAN_UNPOISON_MEMORY_REGION(addr, size) ((void)(addr), (void)(size))
#endif

namespace fuzzchk {

FlowKey flow_key(const tgc_pkt &pkt, const uint8_t *hdr)
{
	FlowKey k;
	k.put(&pkt.nlayers, 1);
	// hlen: the layer's header span; an IPv6 layer's extension headers belong to its identity.
	auto layer = [&](const uint8_t *nh, uint32_t hlen) {
		if (nh[0] >> 4 == 4) {
			k.put(nh, 1);
			k.put(nh + 9, 1);
			k.put(nh + 12, 8);
		} else {
			uint8_t w[4];
			st32(w, ld32(nh) & 0xf00fffffu); // version + flow label, not the traffic class
			k.put(w, 4);
			k.put(nh + 6, 1);
			k.put(nh + 8, hlen - 8);
		}
	};
	layer(hdr, pkt.nlayers == 2 ? pkt.inner_off : pkt.tcp_off);
	if (pkt.nlayers == 2)
		layer(hdr + pkt.inner_off, pkt.tcp_off - pkt.inner_off);
	k.put(hdr + pkt.tcp_off, 4);
	return k;
}

Arena::Arena(size_t cap) : cap_(cap)
{
	void *m = mmap(nullptr, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	FUZZ_CHECK(m != MAP_FAILED, "arena of %zu bytes: mmap failed", cap);
	mem_ = static_cast<uint8_t *>(m);
	ASAN_POISON_MEMORY_REGION(mem_, cap_);
}

uint8_t *Arena::copy(const uint8_t *src, uint32_t n, unsigned align)
{
	constexpr size_t kGap = 32; // poisoned bytes after each buffer; starts 32-aligned, as ASan's granules need
	const size_t need = align + n + kGap;
	FUZZ_CHECK(used_ + need <= cap_, "arena of %zu bytes full", cap_);
	uint8_t *start = mem_ + used_;
	used_ = (used_ + need + kGap - 1) & ~(kGap - 1);
	ASAN_UNPOISON_MEMORY_REGION(start, align + n);
	uint8_t *p = start + align;
	if (n)
		std::memcpy(p, src, n);
	return p;
}

void Arena::release(const uint8_t *p, uint32_t n)
{
	ASAN_POISON_MEMORY_REGION(p, n);
}

void Arena::reset()
{
	ASAN_POISON_MEMORY_REGION(mem_, used_);
	used_ = 0;
}

unsigned pick_encap(uint8_t flags, const uint8_t *p, uint32_t n)
{
	switch (flags & fuzzin::kEncapMask) {
	// The forced paths name the inner version; the outer version picks the row (IPIP/ip4ip6, SIT/ip6ip6).
	case fuzzin::kEncapIpip: return n && p[0] >> 4 == 6 ? TGC_ENCAP_IP4IP6 : TGC_ENCAP_IPIP;
	case fuzzin::kEncapSit: return n && p[0] >> 4 == 6 ? TGC_ENCAP_IP6IP6 : TGC_ENCAP_SIT;
	case fuzzin::kEncapPlain: return TGC_ENCAP_NONE;
	default: return tgc_encap_detect(p, n);
	}
}

void check_parsed(const tgc_pkt &p, unsigned encap, uint32_t hl, uint32_t n)
{
	FUZZ_CHECK(p.encap == encap && p.nlayers == (encap ? 2 : 1), "encap %u nlayers %u", p.encap, p.nlayers);
	FUZZ_CHECK(p.inner_version == 4 || p.inner_version == 6, "inner version %u", p.inner_version);
	FUZZ_CHECK(encap ? p.inner_off >= 20 : p.inner_off == 0, "inner_off %u", p.inner_off);
	FUZZ_CHECK(p.inner_off < p.tcp_off && p.tcp_off + (tgc_pkt_is_udp(&p) ? TGC_UDP_HLEN : 20u) <= p.payload_off &&
			   p.payload_off <= hl,
		   "offsets %u/%u/%u, view %u", p.inner_off, p.tcp_off, p.payload_off, hl);
	FUZZ_CHECK(uint64_t(p.payload_off) + p.payload_len <= n, "payload %u+%u past %u", p.payload_off, p.payload_len,
		   n);
	// Short of n: link padding (padded), or an inner length shorter than the outer payload (K03, IP_LEN).
	const bool short_of_n = p.payload_off + p.payload_len < n;
	FUZZ_CHECK(p.padded ? short_of_n : (!short_of_n || p.l3_flush == TGC_R_IP_LEN),
		   "padded %u l3_flush %u, %u+%u of %u", p.padded, p.l3_flush, p.payload_off, p.payload_len, n);
}

void check_located(const tgc_pkt &w, unsigned encap, uint32_t hl, const tgc_pkt *parsed)
{
	FUZZ_CHECK(w.encap == encap && w.nlayers == (encap ? 2 : 1) && w.tcp_off + 4u <= hl && w.inner_off < w.tcp_off &&
			   (w.inner_version == 4 || w.inner_version == 6),
		   "flow_of layout encap %u nlayers %u inner_off %u tcp_off %u view %u", w.encap, w.nlayers, w.inner_off,
		   w.tcp_off, hl);
	if (parsed)
		FUZZ_CHECK(w.inner_off == parsed->inner_off && w.tcp_off == parsed->tcp_off &&
				   w.inner_version == parsed->inner_version,
			   "flow_of %u/%u differs from parse %u/%u", w.inner_off, w.tcp_off, parsed->inner_off,
			   parsed->tcp_off);
}

} // namespace fuzzchk
