#include "frames.hpp"

namespace frames {
namespace {

void put16(std::vector<uint8_t> &b, size_t at, uint16_t v)
{
	b[at] = v >> 8;
	b[at + 1] = v & 0xff;
}
void put32(std::vector<uint8_t> &b, size_t at, uint32_t v)
{
	put16(b, at, v >> 16);
	put16(b, at + 2, v & 0xffff);
}
uint32_t sum16(const uint8_t *p, size_t n, uint32_t sum = 0)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		sum += (p[i] << 8) | p[i + 1];
	if (n & 1)
		sum += p[n - 1] << 8;
	return sum;
}
uint16_t fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return static_cast<uint16_t>(s);
}

// A V4's IHL in 32-bit words: its own, or its options' when it says 5 and has some.
unsigned ihl_of(const V4 &h)
{
	return h.ihl == 5 && !h.options.empty() ? static_cast<unsigned>(5 + (h.options.size() + 3) / 4) : h.ihl;
}

size_t put_v4(std::vector<uint8_t> &b, const V4 &h, uint16_t total_len, uint8_t proto)
{
	size_t at = b.size();
	const unsigned ihl = ihl_of(h);
	size_t hl = ihl * 4u < 20 ? 20 : ihl * 4u;
	b.resize(at + hl, 0);
	b[at] = static_cast<uint8_t>(0x40 | ihl);
	for (size_t i = 0; i < h.options.size() && 20 + i < hl; i++)
		b[at + 20 + i] = h.options[i];
	b[at + 1] = h.tos;
	put16(b, at + 2, total_len);
	put16(b, at + 4, h.id);
	put16(b, at + 6, (h.reserved ? 0x8000 : 0) | (h.df ? 0x4000 : 0) | (h.mf ? 0x2000 : 0) | h.frag_offset);
	b[at + 8] = h.ttl;
	b[at + 9] = h.proto ? h.proto : proto;
	put32(b, at + 12, h.saddr);
	put32(b, at + 16, h.daddr);
	put16(b, at + 10, static_cast<uint16_t>(~fold(sum16(&b[at], hl))));
	return at;
}

// Bytes of an extension header: its data padded to a multiple of 8 after the two bytes of next header and length.
size_t ext_len(const ExtHdr &e) { return (e.data.size() + 2 + 7) / 8 * 8; }

// An IPv6 header and its extension headers, then @upper_len bytes of what it carries (@natural_next unless
// h.next_header says otherwise). Returns the offset of the IPv6 header.
size_t put_v6(std::vector<uint8_t> &b, const V6 &h, size_t upper_len, uint8_t natural_next)
{
	size_t ext = 0;
	for (const ExtHdr &e : h.ext)
		ext += ext_len(e);
	size_t at = b.size();
	b.resize(at + 40, 0);
	put32(b, at, (6u << 28) | (uint32_t(h.traffic_class) << 20) | (h.flow_label & 0xfffff));
	put16(b, at + 4, static_cast<uint16_t>(ext + upper_len));
	const uint8_t last = h.next_header ? h.next_header : natural_next;
	b[at + 6] = h.ext.empty() ? last : h.ext[0].type;
	b[at + 7] = h.hop_limit;
	const uint8_t prefix[6] = {0x20, 0x01, 0x0d, 0xb8, 0x00, 0x41};
	for (int i = 0; i < 6; i++)
		b[at + 8 + i] = b[at + 24 + i] = prefix[i];
	b[at + 23] = h.saddr_last;
	b[at + 39] = h.daddr_last;
	for (size_t i = 0; i < h.ext.size(); i++) {
		const ExtHdr &e = h.ext[i];
		const size_t x = b.size(), n = ext_len(e);
		b.resize(x + n, 0);
		b[x] = i + 1 < h.ext.size() ? h.ext[i + 1].type : last;
		b[x + 1] = static_cast<uint8_t>(e.hdrlen_override >= 0 ? e.hdrlen_override : n / 8 - 1);
		std::copy(e.data.begin(), e.data.end(), b.begin() + x + 2);
	}
	return at;
}

size_t v6_len(const V6 &h)
{
	size_t n = 40;
	for (const ExtHdr &e : h.ext)
		n += ext_len(e);
	return n;
}

void put_tcp(std::vector<uint8_t> &b, size_t th, size_t thlen, size_t l4, uint32_t sum, const Segment &s);

} // namespace

Segment ipip()
{
	Segment s;
	s.encap = Encap::IPIP;
	s.inner4.saddr = 0xc6130102; // 198.19.1.2 -> 198.19.1.1
	s.inner4.daddr = 0xc6130101;
	s.inner4.id = 1;
	return s;
}
Segment ipip_as(Encap e)
{
	Segment s = ipip();
	s.encap = e;
	return s;
}
Segment sit() { return ipip_as(Encap::SIT); }
Segment plain4()
{
	Segment s = ipip_as(Encap::Plain4);
	s.outer.id = 1;
	return s;
}
Segment ip4ip6() { return ipip_as(Encap::IP4IP6); }
Segment ip6ip6() { return ipip_as(Encap::IP6IP6); }
bool is_tunnel(Encap e) { return e != Encap::Plain4 && e != Encap::Plain6; }
Segment as_udp(Segment s, uint32_t payload)
{
	s.udp.on = true;
	s.payload_len = payload;
	return s;
}

std::vector<uint8_t> dsr_option(uint8_t v)
{
	return {0x9e, 8, 0xc6, 0x33, 0x64, 0x0a, 0x1f, v};
}

ExtHdr encap_limit(uint8_t limit)
{
	return ExtHdr{60, {4, 1, limit, 1, 1, 0}};
}

std::vector<uint8_t> wrap_ipv4(const std::vector<uint8_t> &inner, uint8_t proto)
{
	std::vector<uint8_t> b;
	V4 outer;
	put_v4(b, outer, static_cast<uint16_t>(20 + inner.size()), proto);
	b.insert(b.end(), inner.begin(), inner.end());
	return b;
}

std::vector<uint8_t> build(const Segment &s)
{
	const uint8_t l4proto = s.udp.on ? 17 : 6;
	const size_t thlen = s.udp.on ? 8 : s.tcp.options.size() + 20;
	const size_t l4 = thlen + s.payload_len;
	std::vector<uint8_t> b;
	size_t inner_at = 0;
	uint8_t inner_proto = s.inner_proto_override ? s.inner_proto_override : l4proto;
	const bool v6_inner = s.encap == Encap::SIT || s.encap == Encap::Plain6 || s.encap == Encap::IP6IP6;
	V4 in4 = s.inner4;
	V6 in6 = s.inner6;
	if (s.inner_proto_override)
		in4.proto = in6.next_header = s.inner_proto_override;
	const size_t inner_len = v6_inner ? v6_len(in6) + l4 : ihl_of(in4) * 4 + l4;
	const size_t outer_payload = inner_len + s.inner_padding + s.outer_len_delta;

	switch (s.encap) {
	case Encap::Plain4: {
		V4 h = s.outer;
		inner_at = put_v4(b, h, static_cast<uint16_t>(ihl_of(h) * 4 + l4 + s.outer_len_delta), inner_proto);
		break;
	}
	case Encap::Plain6:
		inner_at = put_v6(b, s.inner6, l4 + s.outer_len_delta, inner_proto);
		break;
	case Encap::IPIP:
	case Encap::SIT:
		put_v4(b, s.outer, static_cast<uint16_t>(ihl_of(s.outer) * 4 + outer_payload), v6_inner ? 41 : 4);
		break;
	case Encap::IP4IP6:
	case Encap::IP6IP6:
		put_v6(b, s.outer6, outer_payload, v6_inner ? 41 : 4);
		break;
	}
	if (is_tunnel(s.encap))
		inner_at = v6_inner ? put_v6(b, in6, l4, l4proto)
				    : put_v4(b, in4, static_cast<uint16_t>(inner_len), l4proto);

	const size_t th = b.size();
	b.resize(th + l4, 0);
	put16(b, th, s.tcp.sport);
	put16(b, th + 2, s.tcp.dport);
	for (uint32_t i = 0; i < s.payload_len; i++)
		b[th + thlen + i] = static_cast<uint8_t>((s.tcp.seq + i) * 7 + s.payload_seed);
	// TCP/UDP checksum over the pseudo-header of the innermost IP header (RFC 9293 3.1, RFC 768, RFC 8200 8.1).
	uint32_t sum = 0;
	if (v6_inner)
		sum = sum16(&b[inner_at + 8], 32);
	else
		sum = sum16(&b[inner_at + 12], 8);
	sum += l4proto + static_cast<uint32_t>(l4);
	if (s.udp.on) {
		put16(b, th + 4, static_cast<uint16_t>(l4 + s.udp.len_delta));
		uint16_t c = static_cast<uint16_t>(~fold(sum16(&b[th], l4, sum)));
		if (s.bad_tcp_csum)
			c ^= 0x5a5a;
		put16(b, th + 6, s.udp.zero_csum ? 0 : c ? c : 0xffff); // a computed 0 is sent as 0xffff (RFC 768)
	} else {
		put_tcp(b, th, thlen, l4, sum, s);
	}
	if (is_tunnel(s.encap))
		b.resize(b.size() + s.inner_padding, 0);
	b.resize(b.size() + s.padding, 0);
	return b;
}

namespace {
// The TCP header at @th (@thlen bytes, @l4 with the payload already there), its checksum from @sum (the
// pseudo-header's).
void put_tcp(std::vector<uint8_t> &b, size_t th, size_t thlen, size_t l4, uint32_t sum, const Segment &s)
{
	put32(b, th + 4, s.tcp.seq);
	put32(b, th + 8, s.tcp.ack);
	b[th + 12] = static_cast<uint8_t>((s.tcp.doff_override ? s.tcp.doff_override : thlen / 4) << 4);
	b[th + 13] = s.tcp.flags;
	put16(b, th + 14, s.tcp.window);
	for (size_t i = 0; i < s.tcp.options.size(); i++)
		b[th + 20 + i] = s.tcp.options[i];
	uint16_t c = static_cast<uint16_t>(~fold(sum16(&b[th], l4, sum)));
	if (s.bad_tcp_csum)
		c ^= 0x5a5a;
	put16(b, th + 16, c);
}
} // namespace

std::vector<Segment> train(const Segment &first, unsigned n, int outer_id_step)
{
	std::vector<Segment> out;
	Segment s = first;
	for (unsigned i = 0; i < n; i++) {
		out.push_back(s);
		s.tcp.seq += s.payload_len;
		s.inner4.id = static_cast<uint16_t>(s.inner4.id + 1);
		if (s.encap == Encap::Plain4)
			s.outer.id = static_cast<uint16_t>(s.outer.id + 1);
		else
			s.outer.id = static_cast<uint16_t>(s.outer.id + outer_id_step);
	}
	return out;
}

} // namespace frames
