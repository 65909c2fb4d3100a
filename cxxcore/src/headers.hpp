// SPDX-License-Identifier: GPL-2.0
// Field offsets of the headers the core reads (RFC 791 IPv4, RFC 8200 IPv6, RFC 9293 TCP).
#ifndef TUNGRO_HEADERS_HPP
#define TUNGRO_HEADERS_HPP

#include "be.hpp"

namespace tungro {

namespace ipv4 {
constexpr u32 kMinLen = 20;
constexpr u32 kTos = 1, kTotLen = 2, kId = 4, kFragOff = 6, kTtl = 8, kProto = 9, kCheck = 10, kSaddr = 12,
	      kDaddr = 16;
constexpr u16 kReserved = 0x8000, kDF = 0x4000, kMF = 0x2000, kOffsetMask = 0x1fff;
} // namespace ipv4

namespace ipv6 {
constexpr u32 kLen = 40;
constexpr u32 kPayloadLen = 4, kNextHdr = 6, kHopLimit = 7, kSaddr = 8, kDaddr = 24;
constexpr u32 kTrafficClassMask = 0x0ff00000u, kFlowMask = 0xf00fffffu; // version + flow label
constexpr u8 kHopByHop = 0, kRouting = 43, kFragment = 44, kDstOpts = 60; // next header values (RFC 8200 4.1)
} // namespace ipv6

namespace tcp {
constexpr u32 kMinLen = 20;
constexpr u32 kPorts = 0, kSeq = 4, kAck = 8, kDoff = 12, kFlags = 13, kWindow = 14, kCheck = 16;
constexpr u8 kFIN = 0x01, kSYN = 0x02, kRST = 0x04, kPSH = 0x08, kACK = 0x10, kURG = 0x20, kECE = 0x40,
	     kCWR = 0x80;
} // namespace tcp

constexpr u8 kProtoTCP = 6;

__attribute__((always_inline)) static inline u32 ip_version(const u8 *nh) { return nh[0] >> 4; }

} // namespace tungro
#endif
