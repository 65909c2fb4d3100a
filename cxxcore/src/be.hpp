// SPDX-License-Identifier: GPL-2.0
// Explicit big-endian (network order) loads and stores, byte by byte: correct on little- and big-endian hosts and
// at any alignment (headers sit at 2 mod 4 on m68k), so no unaligned 32-bit access is ever emitted. always_inline:
// the kernel builds the core with its own flags, -Os on the test kernels, where g++ kept load32 and friends as
// out-of-line calls (each through the return thunk); inline, x86 folds a load32 into one load and a bswap.
#ifndef TUNGRO_BE_HPP
#define TUNGRO_BE_HPP

#include "tungro_core.h"

namespace tungro {

using u8 = tgc_u8;
using u16 = tgc_u16;
using u32 = tgc_u32;

__attribute__((always_inline)) static inline u16 load16(const u8 *p) { return static_cast<u16>((p[0] << 8) | p[1]); }
__attribute__((always_inline)) static inline u32 load32(const u8 *p)
{
	return (static_cast<u32>(p[0]) << 24) | (static_cast<u32>(p[1]) << 16) | (static_cast<u32>(p[2]) << 8) | p[3];
}
__attribute__((always_inline)) static inline void store16(u8 *p, u16 v)
{
	p[0] = static_cast<u8>(v >> 8);
	p[1] = static_cast<u8>(v);
}

using u64 = unsigned long long;

// Bytes p[0..2), p[0..4) and p[0..8) as one value in the host's byte order, composed from byte loads like load32 (no
// alignment assumed; where the arch allows unaligned loads, g++ folds them into one, without load32's byte swap).
// For equality tests (the XOR of two such values is 0 exactly when the bytes are equal, whatever the byte order)
// and one's-complement sums tested against 0 modulo 0xffff (a byte-swapped 16-bit word is 256 times the word
// modulo 0xffff, and 256 is invertible there: RFC 1071 section 2(B)); header fields are read with load16/load32. 64-bit values are shifts and ORs only (no libgcc helper on
// 32-bit arches).
__attribute__((always_inline)) static inline u32 raw16(const u8 *p)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return static_cast<u32>(p[0]) | (static_cast<u32>(p[1]) << 8);
#else
	return load16(p);
#endif
}
__attribute__((always_inline)) static inline u32 raw32(const u8 *p)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return static_cast<u32>(p[0]) | (static_cast<u32>(p[1]) << 8) | (static_cast<u32>(p[2]) << 16) |
	       (static_cast<u32>(p[3]) << 24);
#else
	return load32(p);
#endif
}
__attribute__((always_inline)) static inline u64 raw64(const u8 *p)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return static_cast<u64>(raw32(p)) | (static_cast<u64>(raw32(p + 4)) << 32);
#else
	return (static_cast<u64>(raw32(p)) << 32) | raw32(p + 4);
#endif
}

// @v into p[0..2) in the host's byte order (the bytes raw16() reads back as @v).
__attribute__((always_inline)) static inline void store_raw16(u8 *p, u32 v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	p[0] = static_cast<u8>(v);
	p[1] = static_cast<u8>(v >> 8);
#else
	store16(p, static_cast<u16>(v));
#endif
}

// What raw16() reads from bytes holding @v in network order: the host-order form of a big-endian field, for sums in
// host order (a one's-complement sum of such values is the sum of the @v in host order, RFC 1071 section 2(B)).
__attribute__((always_inline)) static inline u32 raw_of_be16(u32 v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return ((v & 0xffu) << 8) | ((v >> 8) & 0xffu);
#else
	return v & 0xffffu;
#endif
}

// Nonzero when the n bytes at a and b differ, n a multiple of 4 (addresses, IPv4 and TCP options, IPv6 extension
// headers: their lengths are counted in 32-bit words), eight bytes at a time (raw64), then a last four. No libc
// call, no alignment assumed.
__attribute__((always_inline)) static inline u64 words_diff(const u8 *a, const u8 *b, u32 n)
{
	u64 diff = 0;
	u32 i = 0;
	for (; i + 8 <= n; i += 8)
		diff |= raw64(a + i) ^ raw64(b + i);
	if (i < n)
		diff |= raw32(a + i) ^ raw32(b + i);
	return diff;
}

// Equality of n bytes, n a multiple of 4 (words_diff).
__attribute__((always_inline)) static inline bool words_equal(const u8 *a, const u8 *b, u32 n)
{
	return words_diff(a, b, n) == 0;
}

} // namespace tungro
#endif
