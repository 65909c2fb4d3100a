// SPDX-License-Identifier: GPL-2.0
// tgc_parse (rules in parse.hpp), tgc_flow_of and tgc_hdr_need: header walks that never read past hdr_len.
#include "freestanding.hpp"
#include "parse.hpp"

using namespace tungro;

extern "C" unsigned int tgc_parse(const u8 *hdr, u32 hdr_len, u32 pkt_len, unsigned int encap, tgc_pkt *out)
{
	return parse(hdr, hdr_len, pkt_len, encap, out);
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
