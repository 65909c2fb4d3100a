// SPDX-License-Identifier: GPL-2.0
// Included first by every core source: what the freestanding core must never use is an error at its first use.
// The core runs inside the kernel (no heap, no exceptions, no RTTI, no C or C++ library) and on host tools alike.
#ifndef TUNGRO_FREESTANDING_HPP
#define TUNGRO_FREESTANDING_HPP

#pragma GCC poison malloc calloc realloc free new delete throw try catch typeid dynamic_cast std printf

#endif
