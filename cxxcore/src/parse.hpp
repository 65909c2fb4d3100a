// SPDX-License-Identifier: GPL-2.0
// tgc_parse's rules: header validation of one segment, layer by layer, never past hdr_len. Inline, for the receive
// loop (receive.hpp) and for tgc_parse() in parse.cpp.
#ifndef TUNGRO_PARSE_HPP
#define TUNGRO_PARSE_HPP

#include "checksum.hpp"
#include "headers.hpp"
#include "udp.hpp"

namespace tungro {


struct Layer {
	u32 hlen;     // network header bytes
	u32 end;      // offset just past this layer's payload (its IP length), from the outer header
	u8 next;      // next protocol
	u8 flush;     // TGC_R_IP_LEN / TGC_R_IP_FLAGS: parses, but never merges (tgc_pkt.l3_flush)
};

// The tunnel table: one row per tunnel, in enum tgc_encap order; row 0 (NONE) is no tunnel. constexpr, so every
// lookup below folds to constants (and no symbol, no initializer).
constexpr tgc_tunnel kTunnels[TGC_ENCAP_COUNT] = {
	{0, 0, 0, 0, "none"},
	{4, 4, 4, TGC_GSO_IPXIP4, "ipip"},	// 6.12: ipip_gro_receive, inet_offloads[IPPROTO_IPIP]
	{4, 41, 6, TGC_GSO_IPXIP4, "sit"},	// sit_gro_complete: IPXIP4
	{6, 4, 4, TGC_GSO_IPXIP6, "ip4ip6"},	// ip4ip6_gro_receive/complete, inet6_offloads[IPPROTO_IPIP]
	{6, 41, 6, TGC_GSO_IPXIP6, "ip6ip6"},	// ip6ip6_gro_complete, inet6_offloads[IPPROTO_IPV6]
};

__attribute__((always_inline)) static inline const tgc_tunnel *tunnel_of(unsigned encap)
{
	return encap > TGC_ENCAP_NONE && encap < TGC_ENCAP_COUNT ? &kTunnels[encap] : nullptr;
}

// Whether protocol @p over an IP header of version @version carries a tunnel of the table.
__attribute__((always_inline)) static inline bool is_tunnel_proto(u32 version, u8 p)
{
	for (unsigned e = TGC_ENCAP_NONE + 1; e < TGC_ENCAP_COUNT; e++)
		if (kTunnels[e].outer_version == version && kTunnels[e].proto == p)
			return true;
	return false;
}

// The extension headers walked and merged through when byte-identical, as 6.12 does (the INET6_PROTO_GSO_EXTHDR
// offloads of exthdrs_offload.c: hop-by-hop, routing, destination options; length (hdrlen + 1) * 8, RFC 8200 4.3).
__attribute__((always_inline)) static inline bool is_walked_ext(u8 nh)
{
	return nh == ipv6::kHopByHop || nh == ipv6::kRouting || nh == ipv6::kDstOpts;
}
// Other IPv6 extension headers (RFC 8200 4.1 and the IANA list): not walked, never merged.
__attribute__((always_inline)) static inline bool is_other_ext(u8 nh)
{
	return nh == 50 || nh == 51 || nh == 135 || nh == 139 || nh == 140 || nh == 253 || nh == 254;
}

// Extension headers walked so far in the packet, against TGC_MAX_EXT_HDRS / TGC_MAX_EXT_BYTES.
struct ExtUse {
	u32 hdrs = 0, bytes = 0;
};
constexpr u32 kExtLimit = 0xffffffffu;

// Walks the extension headers of is_walked_ext() from *off, where *next names the header found there; stops at
// the first other one, leaving *off and *next at it. Reads only below @lim. Returns 0 when walked; kExtLimit past
// the bounds; else the bytes it would need to see (> lim: the header runs past them).
__attribute__((always_inline)) static inline u32 walk_ext(const u8 *hdr, u32 lim, u32 *off, u8 *next, ExtUse *use)
{
	while (is_walked_ext(*next)) {
		if (use->hdrs == TGC_MAX_EXT_HDRS)
			return kExtLimit;
		if (*off + 2 > lim)
			return *off + 2;
		const u32 len = (hdr[*off + 1] + 1u) * 8u;
		if (use->bytes + len > TGC_MAX_EXT_BYTES)
			return kExtLimit;
		if (*off + len > lim)
			return *off + len;
		*next = hdr[*off];
		*off += len;
		use->hdrs++;
		use->bytes += len;
	}
	return 0;
}

// The caller-selected parse modes (tgc_parse_as(), the engine's flags): TGC_ENGINE_IPV4_OPTIONS only.
constexpr u32 kParseIPv4Options = TGC_ENGINE_IPV4_OPTIONS;

// IPv4 option types never merged, even byte-identical (TGC_ENGINE_IPV4_OPTIONS says why; RFC 791 3.1, RFC 1063,
// RFC 1108, RFC 1393, RFC 2113, include/uapi/linux/ip.h IPOPT_*).
__attribute__((always_inline)) static inline bool ipv4_opt_denied(u8 type)
{
	switch (type) {
	case 7:   // IPOPT_RR: each router writes its address
	case 11:  // MTU probe: routers lower the value
	case 68:  // IPOPT_TIMESTAMP: each router writes a time (and an address)
	case 82:  // traceroute: routers count hops
	case 130: // IPOPT_SEC: ip_options_compile and the LSM act on it
	case 131: // IPOPT_LSRR: steers routing; TCP's pseudo-header uses the final destination
	case 133: // extended security
	case 134: // IPOPT_CIPSO: labels the packet for the LSM
	case 137: // IPOPT_SSRR: as LSRR
	case 148: // IPOPT_RA: router alert, the stack hands the packet to raw sockets that ask
		return true;
	default:
		return false;
	}
}

// Walks the options of an IPv4 header of @ihl bytes at @nh (all readable), as ip_options_compile walks them:
// end of list (0) ends the walk, NOP (1) is one byte, every other option has a length byte >= 2 and ends inside
// the header. TGC_R_MALFORMED for a length 0/1 or past the header, TGC_R_IP_OPTIONS for a denied type.
static inline unsigned ipv4_options(const u8 *nh, u32 ihl)
{
	for (u32 i = ipv4::kMinLen; i < ihl;) {
		const u8 type = nh[i];
		if (type == 0)
			return TGC_R_NONE;
		if (type == 1) {
			i++;
			continue;
		}
		if (i + 2 > ihl || nh[i + 1] < 2 || i + nh[i + 1] > ihl)
			return TGC_R_MALFORMED;
		if (ipv4_opt_denied(type))
			return TGC_R_IP_OPTIONS;
		i += nh[i + 1];
	}
	return TGC_R_NONE;
}

// Sets l->end from an IP length field. Outer layer: must equal avail exactly. Inner layer: the smaller of the two
// (never past the outer payload), flagged TGC_R_IP_LEN when they differ.
static inline unsigned set_extent(Layer *l, u32 off, u32 ip_len, u32 min_len, u32 avail, bool inner)
{
	if (ip_len == avail) {
		l->end = off + avail;
		return TGC_R_NONE;
	}
	if (!inner || ip_len < min_len)
		return TGC_R_MALFORMED;
	l->end = off + (ip_len < avail ? ip_len : avail);
	l->flush = TGC_R_IP_LEN;
	return TGC_R_NONE;
}

// Validates the IP header at off; avail = bytes from off that belong to it (the enclosing length). The outer layer
// must fill avail exactly (the caller has cut link-layer padding off; longer is truncation, M02). An inner layer
// whose length disagrees with what the outer layer carries is kept to the smaller extent and flagged, as 6.12's
// inet_gro_receive/ipv6_gro_receive set the flush bit and still let TCP find the flow (K03).
// Inlined at both layers: it runs for every segment and its call cost was a tenth of the parse (make bench).
// An IPv6 layer's hlen counts its walked extension headers (@use: the packet's so far).
// IPv4 options (IHL > 5) only with kParseIPv4Options in @mode, and only safe ones (ipv4_options()).
__attribute__((always_inline)) static inline unsigned parse_ip(const u8 *hdr, u32 hdr_len, u32 off, u32 avail,
							       bool inner, Layer *l, ExtUse *use, u32 mode)
{
	l->flush = TGC_R_NONE;
	if (off + 1 > hdr_len)
		return TGC_R_MALFORMED;
	const u8 *nh = hdr + off;
	if (ip_version(nh) == 4) {
		if (off + ipv4::kMinLen > hdr_len || avail < ipv4::kMinLen)
			return TGC_R_MALFORMED;
		const u32 ihl = (nh[0] & 0x0f) * 4u;
		if (ihl < ipv4::kMinLen)
			return TGC_R_MALFORMED;
		if (ihl != ipv4::kMinLen) {
			if (!(mode & kParseIPv4Options))
				return TGC_R_IP_OPTIONS;
			if (off + ihl > hdr_len || ihl > avail)
				return TGC_R_MALFORMED;
			const unsigned o = ipv4_options(nh, ihl);
			if (o)
				return o;
		}
		const u16 frag = load16(nh + ipv4::kFragOff);
		if (frag & (ipv4::kMF | ipv4::kOffsetMask))
			return TGC_R_FRAGMENT;
		if (!ipv4_hdr_ok(nh, ihl))
			return TGC_R_CSUM;
		unsigned r = set_extent(l, off, load16(nh + ipv4::kTotLen), ihl, avail, inner);
		if (r)
			return r;
		// Any flag bit but DF (that is, the reserved bit here) makes 6.12 flush (K04).
		if ((frag & ipv4::kReserved) && !l->flush)
			l->flush = TGC_R_IP_FLAGS;
		l->hlen = ihl;
		l->next = nh[ipv4::kProto];
		return TGC_R_NONE;
	}
	if (ip_version(nh) == 6) {
		if (off + ipv6::kLen > hdr_len || avail < ipv6::kLen)
			return TGC_R_MALFORMED;
		unsigned r = set_extent(l, off, load16(nh + ipv6::kPayloadLen) + ipv6::kLen, ipv6::kLen, avail, inner);
		if (r)
			return r;
		u8 next = nh[ipv6::kNextHdr];
		u32 end = off + ipv6::kLen;
		const u32 walked = walk_ext(hdr, hdr_len < l->end ? hdr_len : l->end, &end, &next, use);
		if (walked == kExtLimit)
			return TGC_R_EXT_LIMIT;
		if (walked)
			return TGC_R_MALFORMED; // an extension header runs past the bytes or the IPv6 payload
		if (next != kProtoTCP) { // TCP first: the common case, one compare
			if (next == ipv6::kFragment)
				return TGC_R_FRAGMENT;
			if (is_other_ext(next))
				return TGC_R_IPV6_EXT;
		}
		l->hlen = end - off;
		l->next = next;
		return TGC_R_NONE;
	}
	return TGC_R_MALFORMED;
}

// tgc_parse()/tgc_parse_as(), always inline: the receive loops run it on every segment of their full stage (one
// call site each: tgc_receive()'s, the engine's, tgc_parse_as()'s). At -Os g++ left it out of line in
// tgc_receive() once the predicted stage grew it, 25 guest instructions a segment more on tungro_bench's
// 16-flow train. @mode: TGC_ENGINE_* flags (TGC_ENGINE_IPV4_OPTIONS); @udp: the caller allows UDP GRO
// (TGC_IN_UDP_GRO), so UDP parses too (udp.hpp).
__attribute__((always_inline)) static inline unsigned parse(const u8 *hdr, u32 hdr_len, u32 pkt_len, unsigned int encap, u32 mode, tgc_pkt *out,
			     bool udp = false)
{
	if (!hdr || hdr_len > pkt_len)
		return TGC_R_MALFORMED;

	// Link-layer padding: bytes after the outer IP packet. Parse the packet the IP header describes and flag it.
	u8 padded = 0;
	u32 ip_len = pkt_len;
	if (hdr_len >= 4 && ip_version(hdr) == 4 && load16(hdr + ipv4::kTotLen) >= ipv4::kMinLen)
		ip_len = load16(hdr + ipv4::kTotLen);
	else if (hdr_len >= 6 && ip_version(hdr) == 6)
		ip_len = load16(hdr + ipv6::kPayloadLen) + ipv6::kLen;
	if (ip_len < pkt_len) {
		pkt_len = ip_len;
		padded = 1;
		if (hdr_len > pkt_len)
			hdr_len = pkt_len;
	}

	Layer outer;
	ExtUse use;
	unsigned r = parse_ip(hdr, hdr_len, 0, pkt_len, false, &outer, &use, mode);
	if (r)
		return r;

	u32 inner_off = 0;
	Layer inner = outer;
	u8 nlayers = 1;
	const tgc_tunnel *t = tunnel_of(encap);
	if (encap == TGC_ENCAP_NONE) {
		if (is_tunnel_proto(ip_version(hdr), outer.next))
			return TGC_R_NOT_TCP; // a tunnel packet is not plain TCP; the tunnel's own offload handles it
	} else {
		if (!t || ip_version(hdr) != t->outer_version || outer.next != t->proto)
			return TGC_R_MALFORMED;
		inner_off = outer.hlen;
		r = parse_ip(hdr, hdr_len, inner_off, outer.end - inner_off, true, &inner, &use, mode);
		if (r)
			return r;
		// Each row carries one inner version: anything else is not this tunnel's packet.
		if (ip_version(hdr + inner_off) != t->inner_version)
			return TGC_R_MALFORMED;
		if (is_tunnel_proto(t->inner_version, inner.next))
			return TGC_R_NESTED;
		nlayers = 2;
	}
	const u32 tcp_off = inner_off + inner.hlen;
	const bool is_udp = udp && inner.next == kProtoUDP;
	u32 thlen = udp::kLen;
	if (is_udp) {
		r = parse_udp(hdr_len, tcp_off, inner.end);
		if (r)
			return r;
	} else {
		if (inner.next != kProtoTCP)
			return TGC_R_NOT_TCP;
		if (tcp_off + tcp::kMinLen > hdr_len || tcp_off + tcp::kMinLen > inner.end)
			return TGC_R_MALFORMED;
		thlen = (hdr[tcp_off + tcp::kDoff] >> 4) * 4u;
		if (thlen < tcp::kMinLen || tcp_off + thlen > inner.end || tcp_off + thlen > hdr_len)
			return TGC_R_MALFORMED;
	}
	// Only IPv4 options take headers past the view the engine keeps per flow.
	if (tcp_off + thlen > TGC_MAX_HDR_BYTES)
		return TGC_R_IP_OPTIONS;

	out->seq = is_udp ? 0 : load32(hdr + tcp_off + tcp::kSeq);
	out->payload_len = inner.end - (tcp_off + thlen);
	out->inner_off = static_cast<u16>(inner_off);
	out->tcp_off = static_cast<u16>(tcp_off);
	out->payload_off = static_cast<u16>(tcp_off + thlen);
	out->encap = static_cast<u8>(encap);
	out->inner_version = static_cast<u8>(ip_version(hdr + inner_off));
	out->tcp_flags = is_udp ? 0 : hdr[tcp_off + tcp::kFlags];
	out->nlayers = nlayers;
	out->padded = padded;
	out->l3_flush = outer.flush ? outer.flush : inner.flush;
	out->gso_size = 0;
	out->gso_segs = 1;
	return TGC_R_NONE;
}

} // namespace tungro
#endif
