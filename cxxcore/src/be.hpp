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

// Equality of n bytes, n a multiple of 4 (addresses, TCP options: the header lengths are counted in 32-bit words),
// compared a word at a time with the same byte loads: no libc call, no alignment assumed.
__attribute__((always_inline)) static inline bool words_equal(const u8 *a, const u8 *b, u32 n)
{
	u32 diff = 0;
	for (u32 i = 0; i < n; i += 4)
		diff |= load32(a + i) ^ load32(b + i);
	return diff == 0;
}

} // namespace tungro
#endif
