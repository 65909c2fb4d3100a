// SPDX-License-Identifier: GPL-2.0
// Internet checksum (RFC 1071): 32-bit accumulation of big-endian 16-bit words, folded at the end.
#ifndef TUNGRO_CHECKSUM_HPP
#define TUNGRO_CHECKSUM_HPP

#include "be.hpp"

namespace tungro {

// Adds bytes[0..n) to a running sum as big-endian 16-bit words; an odd last byte is the high half of a word.
// Four bytes at a time: a big-endian 32-bit word is hi * 2^16 + lo, and 2^16 is 1 modulo 0xffff, so summing 32-bit
// words with end-around carry is the same one's-complement sum (RFC 1071 section 2(B)) in half the steps. The
// result is folded to at most 17 bits, so callers may add a few more 16-bit quantities before csum_fold().
static inline u32 csum_add_bytes(u32 sum, const u8 *p, u32 n)
{
	u32 carry = 0, i = 0;
	for (; i + 4 <= n; i += 4) {
		const u32 w = load32(p + i);
		sum += w;
		carry += sum < w;
	}
	if (i + 2 <= n) {
		const u32 w = load16(p + i);
		sum += w;
		carry += sum < w;
		i += 2;
	}
	if (i < n) {
		const u32 w = static_cast<u32>(p[i]) << 8;
		sum += w;
		carry += sum < w;
	}
	// sum + carry * 2^32 == sum + carry (mod 0xffff); carry < 2^30 for any n below 4 GiB.
	sum = (sum & 0xffff) + (sum >> 16) + (carry & 0xffff) + (carry >> 16);
	return (sum & 0xffff) + (sum >> 16);
}

// A sum of five 32-bit words (below 2^35) folded to 16 bits, with end-around carry.
__attribute__((always_inline)) static inline u16 fold_words(unsigned long long acc)
{
	const u32 lo = static_cast<u32>(acc), hi = static_cast<u32>(acc >> 32); // hi <= 4
	u32 sum = (lo & 0xffff) + (lo >> 16) + hi;
	sum = (sum & 0xffff) + (sum >> 16);
	return static_cast<u16>((sum & 0xffff) + (sum >> 16));
}

// The one's-complement sum of a 20-byte IPv4 header (no options), folded to 16 bits, in the host's byte order
// (raw32: no byte swaps; a sum of byte-swapped words is the byte-swapped sum, RFC 1071 section 2(B)): 0xffff (its
// own swap) when its checksum is right. Every segment's header is checked (as inet_gro_receive does), so: five
// 32-bit words summed in 64 bits (adds only: no libgcc helper on 32-bit arches), then the 2^32 and 2^16 parts
// folded back (both are 1 modulo 0xffff, RFC 1071).
__attribute__((always_inline)) static inline u16 ipv4_hdr_sum_raw(const u8 *nh)
{
	return fold_words(static_cast<unsigned long long>(raw32(nh)) + raw32(nh + 4) + raw32(nh + 8) +
			  raw32(nh + 12) + raw32(nh + 16));
}

// ipv4_hdr_sum_raw() of the 20-byte IPv4 header at @nh as it will be with total length @len and its checksum field
// zero, from the words as they are now: the length put into the first word, the checksum masked out of the third.
// For a completion, which stores both after: summed after the stores, the 4-byte loads would wait for the 2-byte
// stores under them to reach the cache.
__attribute__((always_inline)) static inline u16 ipv4_sum_with_len(const u8 *nh, u32 len)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	constexpr u32 kFirstTwo = 0xffffu; // raw32()'s bytes 0 and 1
	const u32 len_word = raw_of_be16(len) << 16;
#else
	constexpr u32 kFirstTwo = 0xffff0000u;
	const u32 len_word = len & 0xffffu;
#endif
	return fold_words(static_cast<unsigned long long>((raw32(nh) & kFirstTwo) | len_word) + raw32(nh + 4) +
			  (raw32(nh + 8) & kFirstTwo) + raw32(nh + 12) + raw32(nh + 16));
}

__attribute__((always_inline)) static inline u16 csum_fold(u32 sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return static_cast<u16>(sum);
}

// Whether the checksum of an IPv4 header of @ihl bytes is right (its one's-complement sum is 0xffff).
__attribute__((always_inline)) static inline bool ipv4_hdr_ok(const u8 *nh, u32 ihl)
{
	return (ihl == 20 ? ipv4_hdr_sum_raw(nh) : csum_fold(csum_add_bytes(0, nh, ihl))) == 0xffff;
}

// Sum of the TCP/UDP pseudo-header (RFC 9293 3.1, RFC 8200 8.1) for an IPv4 or IPv6 network header at nh.
static inline u32 pseudo_sum(const u8 *nh, u32 l4_len, u8 proto)
{
	u32 sum = 0;
	if (nh[0] >> 4 == 4)
		sum = csum_add_bytes(sum, nh + 12, 8);
	else
		sum = csum_add_bytes(sum, nh + 8, 32);
	return sum + (l4_len >> 16) + (l4_len & 0xffff) + proto;
}

} // namespace tungro
#endif
