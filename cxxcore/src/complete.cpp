// SPDX-License-Identifier: GPL-2.0
// gro_complete fixups on byte views: IP lengths and header checksum, TCP pseudo-header checksum, gso bits.
#include "freestanding.hpp"
#include "parse.hpp"

using namespace tungro;

namespace {

// tgc_fix_ipv4() and tgc_complete(), inline in them and in tgc_finish(): one call a completed packet, not three.
// Total length @len and the header checksum of the IPv4 header at @iph. The 20-byte header is summed in host order
// (ipv4_sum_with_len()) from words loaded before either store; with options, the general sum over the IHL.
__attribute__((always_inline)) inline void fix_ipv4(u8 *iph, u16 len)
{
	const u32 ihl = (iph[0] & 0x0fu) * 4u;
	if (ihl <= ipv4::kMinLen) {
		const u16 sum = ipv4_sum_with_len(iph, len);
		store16(iph + ipv4::kTotLen, len);
		store_raw16(iph + ipv4::kCheck, static_cast<u16>(~sum));
		return;
	}
	store16(iph + ipv4::kTotLen, len);
	store16(iph + ipv4::kCheck, 0);
	store16(iph + ipv4::kCheck, static_cast<u16>(~csum_fold(csum_add_bytes(0, iph, ihl))));
}

__attribute__((always_inline)) inline int complete_inner(u8 *nh, u32 nh_len, u32 len, u8 id_state,
							  unsigned int layer, tgc_completion *out)
{
	// Lengths first: no field is read before the bytes that hold it are known to be there.
	if (nh_len < 1 || nh_len > len)
		return -1;
	u32 ip_hlen = 0;
	u8 l4 = 0;
	const unsigned version = ip_version(nh);
	if (version == 4) {
		// IHL > 5: options an engine with TGC_ENGINE_IPV4_OPTIONS merged through; the checksum covers them.
		ip_hlen = (nh[0] & 0x0fu) * 4u;
		l4 = nh_len >= ipv4::kMinLen ? nh[ipv4::kProto] : 0;
		if (nh_len < ipv4::kMinLen || ip_hlen < ipv4::kMinLen || (l4 != kProtoTCP && l4 != kProtoUDP) ||
		    len > 0xffff)
			return -1;
	} else if (version == 6) {
		// Through the extension headers tgc_parse() walked (ipv6_gro_complete: the payload length covers them).
		if (nh_len < ipv6::kLen || len - ipv6::kLen > 0xffff)
			return -1;
		ExtUse use;
		u8 next = nh[ipv6::kNextHdr];
		ip_hlen = ipv6::kLen;
		if (walk_ext(nh, nh_len, &ip_hlen, &next, &use) || (next != kProtoTCP && next != kProtoUDP))
			return -1;
		l4 = next;
	}
	if (!ip_hlen || nh_len < ip_hlen + (l4 == kProtoUDP ? udp::kLen : tcp::kMinLen))
		return -1;

	u8 *th = nh + ip_hlen;
	if (version == 4)
		fix_ipv4(nh, static_cast<u16>(len));
	else
		store16(nh + ipv6::kPayloadLen, static_cast<u16>(len - ipv6::kLen));
	*out = tgc_completion{};
	out->tcp_off = static_cast<u16>(ip_hlen);
	out->tcpv6 = version == 6;
	if (l4 == kProtoUDP) {
		udp_complete(nh, th, len - ip_hlen);
		out->csum_offset = static_cast<u16>(udp::kCheck);
		out->udp = 1;
		return 0;
	}

	// CHECKSUM_PARTIAL: the field holds the folded pseudo-header sum; the stack (or GSO) adds the rest.
	store16(th + tcp::kCheck, csum_fold(pseudo_sum(nh, len - ip_hlen, kProtoTCP)));

	out->csum_offset = static_cast<u16>(tcp::kCheck);
	// SKB_GSO_TCP_FIXEDID only with DF: 6.12's GSO refuses FIXEDID on a DF-clear header, and a GRO packet GSO
	// cannot segment again would be dropped if forwarded. Fixed IDs with DF clear (L12) still merge; GSO then
	// numbers the IDs upwards from the first segment's, which is what the wire allows with DF clear.
	out->fixedid = version == 4 && (id_state & TGC_ID_FIXED(layer)) &&
		       (load16(nh + ipv4::kFragOff) & ipv4::kDF);
	out->ecn = (th[tcp::kFlags] & tcp::kCWR) != 0;
	return 0;
}

// complete_inner() of the common GRO packet, plain TCP in one IPv4 header without options (version and IHL 0x45,
// protocol TCP, @len at most 64 KiB: the caller's tests): the same bytes and completion, without complete_inner()'s
// walk of what the caller has already tested. The pseudo-header sum adds the addresses in host order, loaded
// before fix_ipv4()'s stores.
__attribute__((always_inline)) inline void finish_tcp4(u8 *nh, u32 len, u8 id_state, tgc_completion *out)
{
	u8 *th = nh + ipv4::kMinLen;
	const u16 pseudo = fold_words(static_cast<unsigned long long>(raw32(nh + ipv4::kSaddr)) +
				      raw32(nh + ipv4::kDaddr) + raw_of_be16(len - ipv4::kMinLen + kProtoTCP));
	fix_ipv4(nh, static_cast<u16>(len));
	store_raw16(th + tcp::kCheck, pseudo);
	*out = tgc_completion{};
	out->tcp_off = static_cast<u16>(ipv4::kMinLen);
	out->csum_offset = static_cast<u16>(tcp::kCheck);
	out->fixedid = (id_state & TGC_ID_FIXED(0)) && (load16(nh + ipv4::kFragOff) & ipv4::kDF);
	out->ecn = (th[tcp::kFlags] & tcp::kCWR) != 0;
}

} // namespace

extern "C" void tgc_fix_ipv4(u8 *iph, u16 len)
{
	fix_ipv4(iph, len);
}

extern "C" int tgc_complete(u8 *nh, u32 nh_len, u32 len, u8 id_state, unsigned int layer,
			    tgc_completion *out)
{
	return complete_inner(nh, nh_len, len, id_state, layer, out);
}

extern "C" int tgc_tcp_csum_ok(const tgc_pkt *pkt, const u8 *hdr, u32 len)
{
	const u32 l4_len = pkt->payload_off + pkt->payload_len - pkt->tcp_off;
	if (len < pkt->payload_off + pkt->payload_len)
		return 0;
	if (is_udp(pkt) && load16(hdr + pkt->tcp_off + udp::kCheck) == 0)
		return 1; // no checksum sent: nothing to verify (decide() never merges it)
	u32 sum = pseudo_sum(hdr + pkt->inner_off, l4_len, is_udp(pkt) ? kProtoUDP : kProtoTCP);
	sum = csum_add_bytes(sum, hdr + pkt->tcp_off, l4_len);
	return csum_fold(sum) == 0xffff;
}

extern "C" int tgc_finish(u8 *bytes, u32 len, const tgc_done *d, tgc_completion *c)
{
	const tgc_pkt &f = d->first;
	*c = tgc_completion{};
	if (d->count < 2)
		return 0;
	if (len < f.payload_off || f.inner_off >= f.payload_off || (f.nlayers == 2 && len > 0xffff))
		return -1;
	if (f.nlayers == 1 && f.inner_off == 0 && bytes[0] == 0x45 && bytes[ipv4::kProto] == kProtoTCP &&
	    f.payload_off >= ipv4::kMinLen + tcp::kMinLen && len <= 0xffff) {
		finish_tcp4(bytes, len, d->id_state, c);
		return 0;
	}
	// As the kernel's inet_gro_complete / ipv6_gro_complete do for the outer header before the tunnel's
	// gro_complete: IPv4 length and header checksum, or the IPv6 payload length (its extension headers included).
	const tgc_tunnel *t = tunnel_of(f.encap);
	if (f.nlayers == 2 && !t)
		return -1;
	if (f.nlayers == 2 && t->outer_version == 4)
		fix_ipv4(bytes, static_cast<u16>(len));
	else if (f.nlayers == 2)
		store16(bytes + ipv6::kPayloadLen, static_cast<u16>(len - ipv6::kLen));
	return complete_inner(bytes + f.inner_off, f.payload_off - f.inner_off, len - f.inner_off,
			      d->id_state, f.nlayers - 1u, c);
}
