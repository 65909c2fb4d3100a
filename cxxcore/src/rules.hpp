// SPDX-License-Identifier: GPL-2.0
// same_flow and the GRO verdict: layer-3 flush checks against the matched held packet, then the TCP rules. Inline,
// for the receive loop (receive.hpp) and the engine's lookup; tgc_same_flow()/tgc_decide() in rules.cpp.
#ifndef TUNGRO_RULES_HPP
#define TUNGRO_RULES_HPP

#include "headers.hpp"
#include "udp.hpp"

namespace tungro {


// Per-layer flow identity. IPv4: version/IHL, protocol, addresses. IPv6: version and flow label (RFC 6437: a
// different label is a different flow), next header, addresses, and the walked extension headers byte for byte
// (6.12's ipv6_gro_receive: a difference there is another flow). @hlen: the layer's header span in @a's layout; the
// held side has at least as many bytes (same_flow checks). TTL/TOS/ID are flush checks, not identity.
__attribute__((always_inline)) static inline bool same_l3(const u8 *a, const u8 *b, u32 hlen)
{
	if (ip_version(a) == 4)
		return a[0] == b[0] && a[ipv4::kProto] == b[ipv4::kProto] && words_equal(a + ipv4::kSaddr, b + ipv4::kSaddr, 8);
	return ((load32(a) ^ load32(b)) & ipv6::kFlowMask) == 0 && a[ipv6::kNextHdr] == b[ipv6::kNextHdr] &&
	       words_equal(a + ipv6::kSaddr, b + ipv6::kSaddr, 32) &&
	       (hlen == ipv6::kLen || words_equal(a + ipv6::kLen, b + ipv6::kLen, hlen - ipv6::kLen)); // 8-byte units
}

// Whether the options of two IPv4 headers of one IHL > 5 differ (an engine with TGC_ENGINE_IPV4_OPTIONS; same_l3
// made the IHLs equal). Out of line and cold: the 20-byte header, every other segment, pays one byte compare.
__attribute__((noinline, cold)) static bool ipv4_options_differ(const u8 *nh, const u8 *held)
{
	return !words_equal(nh + ipv4::kMinLen, held + ipv4::kMinLen, (nh[0] & 0x0fu) * 4u - ipv4::kMinLen);
}

// The IPv4 ID rule of IP layer @layer (0 outer, 1 inner): @offset, the segment's ID minus the held packet's first
// segment's (mod 2^16), either increments by one per held wire segment (@count) or stays fixed; which one is
// decided at the first merge and kept per layer in *id_state (for a held packet of one segment: offset 0 or 1, as
// 6.12 decides at the second segment). DF does not exempt any layer (6.18; 6.12 skipped the outer check when
// DF=1). Returns TGC_R_NONE (*id_state updated when undecided) or TGC_R_IP_ID. Shared by l3_flush and the receive
// loop's fast stage (fastpath.hpp).
__attribute__((always_inline)) static inline unsigned ip_id_rule(u16 offset, u16 count, unsigned layer, u8 *id_state)
{
	const u8 fixed = TGC_ID_FIXED(layer), incr = TGC_ID_INCR(layer);
	if (!(*id_state & (fixed | incr))) {
		if (offset == 0)
			*id_state |= fixed;
		else if (offset == count)
			*id_state |= incr;
		else
			return TGC_R_IP_ID;
		return TGC_R_NONE;
	}
	const u16 expected = (*id_state & fixed) ? 0 : count;
	return offset == expected ? TGC_R_NONE : TGC_R_IP_ID;
}

// Layer-3 flush check of one IP layer against the held packet's first segment (kernel: inet_gro_flush /
// ipv6_gro_flush, with 6.18's per-layer fixed-ID state). Updates *id_state with the decision taken at the second
// segment. Returns a tgc_reason.
static inline unsigned l3_flush(const u8 *nh, const u8 *held, u16 count, unsigned layer, u8 *id_state)
{
	if (ip_version(nh) == 6) {
		if ((load32(nh) ^ load32(held)) & ipv6::kTrafficClassMask)
			return TGC_R_TOS;
		if (nh[ipv6::kHopLimit] != held[ipv6::kHopLimit])
			return TGC_R_TTL;
		return TGC_R_NONE;
	}
	if (nh[0] != 0x45 && ipv4_options_differ(nh, held))
		return TGC_R_IP_OPT_DIFF;
	if (nh[ipv4::kTtl] != held[ipv4::kTtl])
		return TGC_R_TTL;
	if (nh[ipv4::kTos] != held[ipv4::kTos])
		return TGC_R_TOS;
	if ((load16(nh + ipv4::kFragOff) ^ load16(held + ipv4::kFragOff)) & ipv4::kDF)
		return TGC_R_DF;

	return ip_id_rule(static_cast<u16>(load16(nh + ipv4::kId) - load16(held + ipv4::kId)), count, layer, id_state);
}

// The layer-3 flush checks of every IP layer against the held packet (TCP and UDP alike: 6.12 runs them in
// tcp_gro_receive and udp_gro_receive_segment through gro_receive_network_flush).
static inline unsigned layers_flush(const tgc_pkt *pkt, const u8 *hdr, const tgc_held *held, u8 *id_state)
{
	unsigned r = l3_flush(hdr, held->hdr, held->count, 0, id_state);
	// Counted apart: the one layer-3 rule where 6.18 (tungro) merges less than 6.12 (L11). (IP_ID: an IPv4 layer.)
	if (r == TGC_R_IP_ID && pkt->nlayers == 2 && (load16(hdr + ipv4::kFragOff) & ipv4::kDF))
		r = TGC_R_OUTER_ID;
	if (!r && pkt->nlayers == 2)
		r = l3_flush(hdr + pkt->inner_off, held->hdr + pkt->inner_off, held->count, 1, id_state);
	return r;
}

// A UDP datagram against the held packet of its flow (same addresses and ports: same_flow), as 6.12's
// udp_gro_receive_segment: the layer-3 checks, then a datagram longer than the held gso_size never joins (the
// held packet ends; a shorter one joins and ends it, decide()), and the aggregate stays below 64 KiB.
static inline unsigned udp_merge_flush(const tgc_pkt *pkt, const u8 *hdr, const tgc_held *held, u8 *id_state)
{
	if (held->hdr_len < pkt->payload_off)
		return TGC_R_MALFORMED;
	const unsigned r = layers_flush(pkt, hdr, held, id_state);
	if (r)
		return r;
	if (pkt->payload_len > held->gso_size)
		return TGC_R_MSS;
	if (held->total_len + pkt->payload_len >= TGC_MAX_GRO_BYTES)
		return TGC_R_SIZE;
	return TGC_R_NONE;
}

// Every rule that keeps a segment from joining the held packet, in the kernel's order of importance.
static inline unsigned merge_flush(const tgc_pkt *pkt, const u8 *hdr, const tgc_held *held, u8 *id_state)
{
	const u8 *th = hdr + pkt->tcp_off;
	const u8 *th2 = held->hdr + pkt->tcp_off;
	const u32 thlen = pkt->payload_off - pkt->tcp_off;

	if (held->hdr_len < pkt->payload_off)
		return TGC_R_MALFORMED;
	if (pkt->tcp_flags & tcp::kCWR)
		return TGC_R_FLAGS;
	if ((pkt->tcp_flags ^ th2[tcp::kFlags]) & ~(tcp::kCWR | tcp::kFIN | tcp::kPSH))
		return TGC_R_FLAGS;
	if (th[tcp::kDoff] != th2[tcp::kDoff])
		return TGC_R_OPTIONS;
	if (load16(th + tcp::kWindow) != load16(th2 + tcp::kWindow))
		return TGC_R_WINDOW;
	if (load32(th + tcp::kAck) != load32(th2 + tcp::kAck))
		return TGC_R_ACK;
	if (!words_equal(th + tcp::kMinLen, th2 + tcp::kMinLen, thlen - tcp::kMinLen))
		return TGC_R_OPTIONS;

	const unsigned r = layers_flush(pkt, hdr, held, id_state);
	if (r)
		return r;

	// A segment may be shorter than the held MSS (it then ends the packet) but never longer; one that arrives
	// already GSO joins only with the same gso_size (6.12's tcp_gro_receive).
	if (pkt->gso_size ? pkt->gso_size != held->gso_size : pkt->payload_len > held->gso_size)
		return TGC_R_MSS;
	if (static_cast<u32>(load32(th2 + tcp::kSeq) + held->payload_len) != pkt->seq)
		return TGC_R_SEQ;
	if (held->total_len + pkt->payload_len >= TGC_MAX_GRO_BYTES)
		return TGC_R_SIZE;
	return TGC_R_NONE;
}

constexpr u8 kEndFlags = tcp::kURG | tcp::kPSH | tcp::kRST | tcp::kSYN | tcp::kFIN;

// Whether the segment is short of full MSS segments: a wire segment shorter than @mss, or a GSO segment whose
// length is not gso_segs * gso_size (6.12's tcp_gro_receive, out_check_final). Either ends its GRO packet.
__attribute__((always_inline)) static inline bool short_of_mss(u32 payload_len, u16 seg_gso, u16 seg_segs, u32 mss)
{
	if (seg_gso)
		return payload_len != static_cast<u32>(seg_segs) * seg_gso;
	return payload_len < mss;
}
__attribute__((always_inline)) static inline bool short_of_mss(const tgc_pkt *pkt, u32 mss)
{
	return short_of_mss(pkt->payload_len, pkt->gso_size, pkt->gso_segs, mss);
}

// tgc_same_flow(), inline for the engine's flow lookup.
static inline int same_flow(const tgc_pkt *pkt, const u8 *hdr, const u8 *held_hdr, u32 held_len)
{
	if (held_len < pkt->tcp_off + 4u)
		return 0;
	// Ports first: flows sharing addresses (one host pair, many connections) differ there, in one compare.
	if (load32(hdr + pkt->tcp_off + tcp::kPorts) != load32(held_hdr + pkt->tcp_off + tcp::kPorts))
		return 0;
	if (!same_l3(hdr, held_hdr, pkt->nlayers == 2 ? pkt->inner_off : pkt->tcp_off))
		return 0;
	return pkt->nlayers != 2 || same_l3(hdr + pkt->inner_off, held_hdr + pkt->inner_off, pkt->tcp_off - pkt->inner_off);
}

// The MERGE verdict of a segment every rule let join the held packet (of MSS @mss, @count wire segments held), as
// scalars (the fast stage passes constants, and the compiler folds what they decide): the segment's TCP @flags, UDP
// or not, its payload and GSO size and segments, its innermost IP header at @inner (IP layer @layer), and the held
// packet's new @id_state. The flags to carry, the fixed-ID bit, and whether the segment ends the packet, into @v.
// Shared by decide() and the receive loop's fast stage (fastpath.hpp), so both give one record.
__attribute__((always_inline)) static inline void merge_verdict(u8 flags, bool udp, u32 payload_len, u16 seg_gso,
								 u16 seg_segs, const u8 *inner, unsigned layer, u16 mss,
								 u16 count, u8 id_state, tgc_verdict *v)
{
	tgc_verdict m;
	m.action = TGC_MERGE;
	m.id_state = id_state;
	m.pad[0] = m.pad[1] = 0;
	// FIN and PSH are allowed to differ; the GRO packet carries them (kernel: tcp_gro_receive).
	m.held_flags = flags & (tcp::kFIN | tcp::kPSH);
	// Same rule as tgc_complete(): the innermost IPv4 ID fixed, and DF set (6.12's GSO needs DF for FIXEDID).
	m.fixedid = !udp && ip_version(inner) == 4 && (id_state & TGC_ID_FIXED(layer)) &&
		    (load16(inner + ipv4::kFragOff) & ipv4::kDF);
	// The merged segment ends the packet: PSH/FIN/URG/RST/SYN, or it is shorter than the MSS (a GSO segment: its
	// length is not a whole number of gso_size segments).
	m.flush_held = 1;
	if (flags & kEndFlags) {
		m.reason = TGC_R_END;
	} else if (short_of_mss(payload_len, seg_gso, seg_segs, mss)) {
		m.reason = TGC_R_SHORT;
	} else if (udp && count + 1u >= udp::kMaxCount) {
		m.reason = TGC_R_SIZE; // 6.12 completes a UDP GRO packet of UDP_GRO_CNT_MAX datagrams
	} else {
		m.flush_held = 0;
		m.reason = TGC_R_NONE;
	}
	*v = m;
}

// tgc_decide(), inline for the receive loop: decide_inline() where one call site runs for most segments that
// reach it (the receive loop's full stage), decide() elsewhere (one out-of-line copy, never inlined: the engine's
// receive_slow() is flattened).
__attribute__((always_inline)) static inline void decide_inline(const tgc_pkt *pkt, const u8 *hdr,
								 const tgc_held *held, unsigned int in, tgc_verdict *v)
{
	const bool ends = pkt->tcp_flags & kEndFlags; // 0 for UDP (no flags)
	const bool udp = is_udp(pkt);
	unsigned r = TGC_R_NONE;

	v->flush_held = 0;
	v->held_flags = 0;
	v->fixedid = 0;
	v->pad[0] = v->pad[1] = 0;
	v->id_state = held ? held->id_state : 0;
	if (in & TGC_IN_UPPER_FLUSH)
		r = TGC_R_UPPER;
	else if (in & TGC_IN_CSUM_BAD)
		r = TGC_R_CSUM;
	else if (pkt->payload_len == 0)
		r = TGC_R_NO_PAYLOAD;
	else if (pkt->padded)
		r = TGC_R_PADDING;
	else if (pkt->l3_flush)
		r = pkt->l3_flush;
	else if (udp && udp_refusal(pkt, hdr))
		r = udp_refusal(pkt, hdr);
	else if (held && (in & TGC_IN_DECRYPTED))
		r = TGC_R_DECRYPTED;
	else if (held && (in & TGC_IN_NOMERGE))
		r = TGC_R_NOMERGE;
	else if (held)
		r = udp ? udp_merge_flush(pkt, hdr, held, &v->id_state) : merge_flush(pkt, hdr, held, &v->id_state);

	if (!r && held) {
		merge_verdict(pkt->tcp_flags, udp, pkt->payload_len, pkt->gso_size, pkt->gso_segs, hdr + pkt->inner_off,
			      pkt->nlayers - 1u, held->gso_size, held->count, v->id_state, v);
		return;
	}

	// Not merged. A held packet of the same flow goes up first, so the flow's order is kept.
	v->flush_held = held != nullptr;
	v->id_state = held ? held->id_state : 0;
	if (r == TGC_R_NONE && ends)
		r = TGC_R_END;
	// Held as a new flow unless it can never start one: a segment that ends a packet, or one refused for what it
	// is rather than for how it differs from the held packet. A GSO segment not made of whole MSS segments ends
	// its GRO packet at once (6.12 flushes it), so it is passed too.
	// A datagram refused for its layer-3 fields starts a new packet, as a TCP segment does (U03: "2 and the
	// rest"; 6.12's udp_gro_receive_segment passes it alone and holds the next one).
	if (r == TGC_R_UPPER || r == TGC_R_CSUM || r == TGC_R_NO_PAYLOAD || r == TGC_R_PADDING ||
	    r == TGC_R_IP_LEN || r == TGC_R_IP_FLAGS || r == TGC_R_UDP_LEN || r == TGC_R_UDP_CSUM0 || ends ||
	    (pkt->gso_size && short_of_mss(pkt, pkt->gso_size)))
		v->action = TGC_PASS;
	else
		v->action = TGC_HOLD;
	v->reason = static_cast<u8>(r);
}

__attribute__((noinline)) static void decide(const tgc_pkt *pkt, const u8 *hdr, const tgc_held *held, unsigned int in,
					     tgc_verdict *v)
{
	decide_inline(pkt, hdr, held, in, v);
}

} // namespace tungro
#endif
