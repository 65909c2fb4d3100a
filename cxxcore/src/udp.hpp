// SPDX-License-Identifier: GPL-2.0
// UDP GRO on attached devices: the rules of 6.12's udp_gro_receive_segment (net/ipv4/udp_offload.c) and the
// fixups of udp4/6_gro_complete and udp_gro_complete_segment, on byte views. The caller decides whether UDP GRO
// is allowed at all (TGC_IN_UDP_GRO: its socket lookup or device features, as udp_gro_receive does); everything
// else is decided here. Inline, for parse.hpp, rules.hpp and complete.cpp.
#ifndef TUNGRO_UDP_HPP
#define TUNGRO_UDP_HPP

#include "checksum.hpp"
#include "headers.hpp"

namespace tungro {

namespace udp {
constexpr u32 kLen = TGC_UDP_HLEN; // RFC 768
constexpr u32 kPorts = 0, kLength = 4, kCheck = 6;
// UDP_GRO_CNT_MAX of 6.12's udp_offload.c: a UDP GRO packet ends at this many datagrams (truesize under floods).
constexpr u16 kMaxCount = 64;
} // namespace udp

constexpr u8 kProtoUDP = 17;

__attribute__((always_inline)) static inline bool is_udp(const tgc_pkt *pkt) { return tgc_pkt_is_udp(pkt) != 0; }

// The UDP header at @off, inside both the bytes at hand (@hdr_len) and the innermost IP extent (@end). Only its
// presence: the length field and checksum are rules (udp_refusal), so a bad datagram still finds its flow.
__attribute__((always_inline)) static inline unsigned parse_udp(u32 hdr_len, u32 off, u32 end)
{
	return off + udp::kLen > hdr_len || off + udp::kLen > end ? TGC_R_MALFORMED : TGC_R_NONE;
}

// What keeps a datagram from any merge, for what it is (6.12's udp_gro_receive_segment flushes it): a length
// field that is not the bytes present (padding or a lie) or leaves no payload, a zero checksum, an arrival that
// is already GSO (its UDP length is one datagram's, never its bytes). Reads only the header (below payload_off).
__attribute__((always_inline)) static inline unsigned udp_refusal(const tgc_pkt *pkt, const u8 *hdr)
{
	const u8 *uh = hdr + pkt->tcp_off;
	if (pkt->gso_size)
		return TGC_R_UPPER;
	if (load16(uh + udp::kLength) != pkt->payload_len + udp::kLen || pkt->payload_len == 0)
		return TGC_R_UDP_LEN;
	if (load16(uh + udp::kCheck) == 0)
		return TGC_R_UDP_CSUM0;
	return TGC_R_NONE;
}

// The UDP fixup of a completed GRO packet, at @uh with @l4_len bytes of UDP from it; @nh is its IP header. As
// 6.12: the length covers the whole packet (udp_gro_complete); a non-zero checksum becomes the folded
// pseudo-header sum for CHECKSUM_PARTIAL (udp4/6_gro_complete's ~udp_v4/v6_check(len, saddr, daddr, 0)).
static inline void udp_complete(u8 *nh, u8 *uh, u32 l4_len)
{
	store16(uh + udp::kLength, static_cast<u16>(l4_len));
	if (load16(uh + udp::kCheck))
		store16(uh + udp::kCheck, csum_fold(pseudo_sum(nh, l4_len, kProtoUDP)));
}

} // namespace tungro
#endif
