// SPDX-License-Identifier: GPL-2.0
// Internet checksum (RFC 1071): 32-bit accumulation of big-endian 16-bit words, folded at the end.
#ifndef TUNGRO_CHECKSUM_HPP
#define TUNGRO_CHECKSUM_HPP

#include "be.hpp"

namespace tungro {

// Adds bytes[0..n) to a running sum as big-endian 16-bit words; an odd last byte is the high half of a word.
// The sum is kept below 2^31 by folding, so any length is safe.
static inline u32 csum_add_bytes(u32 sum, const u8 *p, u32 n)
{
	u32 i = 0;
	for (; i + 1 < n; i += 2) {
		sum += load16(p + i);
		if (sum & 0x80000000u)
			sum = (sum & 0xffff) + (sum >> 16);
	}
	if (i < n)
		sum += static_cast<u32>(p[i]) << 8;
	return sum;
}

static inline u16 csum_fold(u32 sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return static_cast<u16>(sum);
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
