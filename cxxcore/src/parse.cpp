// SPDX-License-Identifier: GPL-2.0
// tgc_parse: header validation of one segment, layer by layer, never past hdr_len.
#include "freestanding.hpp"
#include "checksum.hpp"
#include "headers.hpp"

namespace tungro {
namespace {

struct Layer {
	u32 hlen;     // network header bytes
	u32 end;      // offset just past this layer's payload (its IP length), from the outer header
	u8 next;      // next protocol
	u8 flush;     // TGC_R_IP_LEN / TGC_R_IP_FLAGS: parses, but never merges (tgc_pkt.l3_flush)
};

// IPv6 next-header values that are extension headers other than the fragment header (44, never merged). tungro
// does not merge through them yet; the kernel's GRO does for identical hop-by-hop, destination options and
// routing headers, so the glue hands such packets to it.
bool is_ipv6_ext(u8 nh) { return nh == 0 || nh == 43 || nh == 60 || nh == 51 || nh == 50 || nh == 135; }

// Sets l->end from an IP length field. Outer layer: must equal avail exactly. Inner layer: the smaller of the two
// (never past the outer payload), flagged TGC_R_IP_LEN when they differ.
unsigned set_extent(Layer *l, u32 off, u32 ip_len, u32 min_len, u32 avail, bool inner)
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
unsigned parse_ip(const u8 *hdr, u32 hdr_len, u32 off, u32 avail, bool inner, Layer *l)
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
		if (ihl != ipv4::kMinLen)
			return TGC_R_IP_OPTIONS;
		const u16 frag = load16(nh + ipv4::kFragOff);
		if (frag & (ipv4::kMF | ipv4::kOffsetMask))
			return TGC_R_FRAGMENT;
		if (csum_fold(csum_add_bytes(0, nh, ipv4::kMinLen)) != 0xffff)
			return TGC_R_CSUM;
		unsigned r = set_extent(l, off, load16(nh + ipv4::kTotLen), ipv4::kMinLen, avail, inner);
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
		const u8 next = nh[ipv6::kNextHdr];
		if (next == 44)
			return TGC_R_FRAGMENT;
		if (is_ipv6_ext(next))
			return TGC_R_IPV6_EXT;
		l->hlen = ipv6::kLen;
		l->next = next;
		return TGC_R_NONE;
	}
	return TGC_R_MALFORMED;
}

bool is_tunnel_proto(u8 p) { return p == TGC_ENCAP_IPIP || p == TGC_ENCAP_SIT; }

} // namespace
} // namespace tungro

using namespace tungro;

extern "C" unsigned int tgc_parse(const u8 *hdr, u32 hdr_len, u32 pkt_len, unsigned int encap, tgc_pkt *out)
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
	unsigned r = parse_ip(hdr, hdr_len, 0, pkt_len, false, &outer);
	if (r)
		return r;

	u32 inner_off = 0;
	Layer inner = outer;
	u8 nlayers = 1;
	if (encap == TGC_ENCAP_NONE) {
		if (is_tunnel_proto(outer.next))
			return TGC_R_NOT_TCP; // a tunnel packet is not plain TCP; the tunnel's own offload handles it
	} else {
		if ((encap != TGC_ENCAP_IPIP && encap != TGC_ENCAP_SIT) || ip_version(hdr) != 4 || outer.next != encap)
			return TGC_R_MALFORMED;
		inner_off = outer.hlen;
		r = parse_ip(hdr, hdr_len, inner_off, outer.end - inner_off, true, &inner);
		if (r)
			return r;
		// IPIP carries IPv4 and SIT carries IPv6: anything else is not this tunnel's packet.
		if (ip_version(hdr + inner_off) != (encap == TGC_ENCAP_IPIP ? 4u : 6u))
			return TGC_R_MALFORMED;
		if (is_tunnel_proto(inner.next))
			return TGC_R_NESTED;
		nlayers = 2;
	}
	if (inner.next != kProtoTCP)
		return TGC_R_NOT_TCP;

	const u32 tcp_off = inner_off + inner.hlen;
	if (tcp_off + tcp::kMinLen > hdr_len || tcp_off + tcp::kMinLen > inner.end)
		return TGC_R_MALFORMED;
	const u32 thlen = (hdr[tcp_off + tcp::kDoff] >> 4) * 4u;
	if (thlen < tcp::kMinLen || tcp_off + thlen > inner.end || tcp_off + thlen > hdr_len)
		return TGC_R_MALFORMED;

	out->seq = load32(hdr + tcp_off + tcp::kSeq);
	out->payload_len = inner.end - (tcp_off + thlen);
	out->inner_off = static_cast<u16>(inner_off);
	out->tcp_off = static_cast<u16>(tcp_off);
	out->payload_off = static_cast<u16>(tcp_off + thlen);
	out->encap = static_cast<u8>(encap);
	out->inner_version = static_cast<u8>(ip_version(hdr + inner_off));
	out->tcp_flags = hdr[tcp_off + tcp::kFlags];
	out->nlayers = nlayers;
	out->padded = padded;
	out->l3_flush = outer.flush ? outer.flush : inner.flush;
	out->gso_size = 0;
	out->gso_segs = 1;
	return TGC_R_NONE;
}

extern "C" int tgc_flow_of(const u8 *hdr, u32 hdr_len, unsigned int encap, tgc_pkt *out)
{
	// Walks version/IHL/protocol only: the fields that say where the next header is, never the lengths.
	auto locate = [&](u32 off, u8 *next, u32 *hlen) -> bool {
		if (off + ipv6::kLen > hdr_len && !(off + ipv4::kMinLen <= hdr_len && ip_version(hdr + off) == 4))
			return false;
		const u8 *nh = hdr + off;
		if (ip_version(nh) == 4) {
			const u32 ihl = (nh[0] & 0x0f) * 4u;
			if (ihl < ipv4::kMinLen || (load16(nh + ipv4::kFragOff) & ipv4::kOffsetMask))
				return false; // no TCP header in a non-first fragment
			*next = nh[ipv4::kProto];
			*hlen = ihl;
			return true;
		}
		if (ip_version(nh) == 6) {
			*next = nh[ipv6::kNextHdr];
			*hlen = ipv6::kLen;
			return true;
		}
		return false;
	};
	u8 next;
	u32 hlen, inner_off = 0;
	if (!locate(0, &next, &hlen))
		return 0;
	u8 nlayers = 1;
	if (encap != TGC_ENCAP_NONE) {
		if (ip_version(hdr) != 4 || next != encap)
			return 0;
		inner_off = hlen;
		if (!locate(inner_off, &next, &hlen))
			return 0;
		nlayers = 2;
	}
	if (next != kProtoTCP || inner_off + hlen + 4 > hdr_len)
		return 0;
	*out = tgc_pkt{};
	out->inner_off = static_cast<u16>(inner_off);
	out->tcp_off = static_cast<u16>(inner_off + hlen);
	out->payload_off = out->tcp_off;
	out->encap = static_cast<u8>(encap);
	out->inner_version = static_cast<u8>(ip_version(hdr + inner_off));
	out->nlayers = nlayers;
	return 1;
}

extern "C" u32 tgc_hdr_need(const u8 *hdr, u32 hdr_len, u32 pkt_len, unsigned int encap)
{
	const u32 cap = pkt_len < TGC_MAX_HDR_BYTES ? pkt_len : TGC_MAX_HDR_BYTES;
	auto upto = [cap](u32 n) { return n < cap ? n : cap; };
	const unsigned nlayers = encap == TGC_ENCAP_NONE ? 1u : 2u;
	u32 off = 0;
	u8 next = 0;

	// Each IP layer: its first byte gives the version (and IPv4's IHL), then the whole header gives the
	// protocol. Anything implausible stops the walk: tgc_parse() will refuse it from the bytes at hand.
	for (unsigned layer = 0; layer < nlayers; layer++) {
		if (hdr_len < off + 1)
			return upto(off + ipv4::kMinLen);
		u32 hlen;
		if (ip_version(hdr + off) == 4)
			hlen = (hdr[off] & 0x0f) * 4u;
		else if (ip_version(hdr + off) == 6)
			hlen = ipv6::kLen;
		else
			return hdr_len;
		if (hlen < ipv4::kMinLen)
			return hdr_len;
		if (hdr_len < off + hlen)
			return upto(off + hlen);
		next = ip_version(hdr + off) == 4 ? hdr[off + ipv4::kProto] : hdr[off + ipv6::kNextHdr];
		off += hlen;
	}
	if (next != kProtoTCP)
		return hdr_len < off ? upto(off) : hdr_len; // not TCP: the IP headers are all tgc_parse() reads
	if (hdr_len < off + tcp::kMinLen)
		return upto(off + tcp::kMinLen);
	const u32 thlen = (hdr[off + tcp::kDoff] >> 4) * 4u;
	return upto(off + (thlen > tcp::kMinLen ? thlen : tcp::kMinLen));
}
