// SPDX-License-Identifier: GPL-2.0
// tgc_parse/tgc_parse_as (rules in parse.hpp), tgc_flow_of and tgc_hdr_need: header walks that never read past
// hdr_len.
#include "freestanding.hpp"
#include "parse.hpp"

using namespace tungro;

extern "C" unsigned int tgc_parse_as(const u8 *hdr, u32 hdr_len, u32 pkt_len, unsigned int encap, u32 engine_flags,
				    unsigned int in, tgc_pkt *out)
{
	return parse(hdr, hdr_len, pkt_len, encap, engine_flags & kParseIPv4Options, out, (in & TGC_IN_UDP_GRO) != 0);
}

extern "C" unsigned int tgc_parse(const u8 *hdr, u32 hdr_len, u32 pkt_len, unsigned int encap, tgc_pkt *out)
{
	return tgc_parse_as(hdr, hdr_len, pkt_len, encap, 0, 0, out); // the one copy of parse() here
}

namespace {

// One IP header's version, header span (IPv4 IHL; IPv6 with its walked extension headers) and next protocol,
// from the fields that say where the next header is, never the lengths. Returns 0 when located, else what
// walk_ext() says (the bytes needed, or kExtLimit), or kExtLimit for a version or IHL that locates nothing.
u32 locate_ip(const u8 *hdr, u32 hdr_len, u32 off, ExtUse *use, u32 *hlen, u8 *next)
{
	if (off + 1 > hdr_len)
		return off + ipv4::kMinLen;
	const u8 *nh = hdr + off;
	if (ip_version(nh) == 4) {
		*hlen = (nh[0] & 0x0f) * 4u;
		if (*hlen < ipv4::kMinLen)
			return kExtLimit;
		if (off + *hlen > hdr_len)
			return off + *hlen;
		*next = nh[ipv4::kProto];
		return 0;
	}
	if (ip_version(nh) != 6)
		return kExtLimit;
	if (off + ipv6::kLen > hdr_len)
		return off + ipv6::kLen;
	u32 end = off + ipv6::kLen;
	*next = nh[ipv6::kNextHdr];
	const u32 r = walk_ext(hdr, hdr_len, &end, next, use);
	*hlen = end - off;
	return r;
}

} // namespace

extern "C" const tgc_tunnel *tgc_tunnel_of(unsigned int encap)
{
	return tunnel_of(encap);
}

extern "C" unsigned int tgc_encap_detect(const u8 *hdr, u32 hdr_len)
{
	ExtUse use;
	u32 hlen = 0;
	u8 next;
	if (!hdr || locate_ip(hdr, hdr_len, 0, &use, &hlen, &next))
		return TGC_ENCAP_NONE;
	for (unsigned e = TGC_ENCAP_NONE + 1; e < TGC_ENCAP_COUNT; e++)
		if (kTunnels[e].outer_version == ip_version(hdr) && kTunnels[e].proto == next)
			return e;
	return TGC_ENCAP_NONE;
}

extern "C" int tgc_flow_of(const u8 *hdr, u32 hdr_len, unsigned int encap, tgc_pkt *out)
{
	ExtUse use;
	u8 next;
	u32 hlen = 0, inner_off = 0;
	const tgc_tunnel *t = tunnel_of(encap);
	if (!hdr || locate_ip(hdr, hdr_len, 0, &use, &hlen, &next))
		return 0;
	// No TCP header in a non-first IPv4 fragment.
	if (ip_version(hdr) == 4 && (load16(hdr + ipv4::kFragOff) & ipv4::kOffsetMask))
		return 0;
	u8 nlayers = 1;
	if (encap != TGC_ENCAP_NONE) {
		if (!t || ip_version(hdr) != t->outer_version || next != t->proto)
			return 0;
		inner_off = hlen;
		if (locate_ip(hdr, hdr_len, inner_off, &use, &hlen, &next) || ip_version(hdr + inner_off) != t->inner_version)
			return 0;
		if (ip_version(hdr + inner_off) == 4 && (load16(hdr + inner_off + ipv4::kFragOff) & ipv4::kOffsetMask))
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
	ExtUse use;
	u32 off = 0;
	u8 next = 0;

	// Each IP layer: its first byte gives the version (and IPv4's IHL), then the whole header gives the
	// protocol, then each IPv6 extension header its length. Anything implausible (or past the extension header
	// bounds) stops the walk: tgc_parse() will refuse it from the bytes at hand.
	for (unsigned layer = 0; layer < nlayers; layer++) {
		u32 hlen = 0;
		const u32 r = hdr ? locate_ip(hdr, hdr_len, off, &use, &hlen, &next) : off + ipv4::kMinLen;
		if (r == kExtLimit)
			return hdr_len;
		if (r)
			return upto(r);
		off += hlen;
	}
	if (next == kProtoUDP)
		return upto(off + udp::kLen); // with TGC_IN_UDP_GRO tgc_parse_as() reads the UDP header; no more
	if (next != kProtoTCP)
		return hdr_len < off ? upto(off) : hdr_len; // not TCP: the IP headers are all tgc_parse() reads
	if (hdr_len < off + tcp::kMinLen)
		return upto(off + tcp::kMinLen);
	const u32 thlen = (hdr[off + tcp::kDoff] >> 4) * 4u;
	return upto(off + (thlen > tcp::kMinLen ? thlen : tcp::kMinLen));
}
