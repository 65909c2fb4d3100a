// Test-side frame builder: IPIP, SIT, ip4ip6, ip6ip6 and plain TCP segments as the wire carries them (from the
// outer network header on; the core never sees Ethernet), IPv6 extension headers included, with correct lengths and
// checksums unless a test breaks them.
#ifndef TUNGRO_TESTS_FRAMES_HPP
#define TUNGRO_TESTS_FRAMES_HPP

#include <cstddef>
#include <cstdint>
#include <vector>

namespace frames {

enum class Encap { Plain4, Plain6, IPIP, SIT, IP4IP6, IP6IP6 };

// One IPv6 extension header: its type (0 hop-by-hop, 43 routing, 44 fragment, 60 destination options, ...) and
// its bytes from the third on (options, routing data); the builder writes next header and length and pads the
// header to a multiple of 8 with zeros (Pad1/PadN-free: zero bytes are Pad1 options, RFC 8200 4.2).
struct ExtHdr {
	uint8_t type = 60;
	std::vector<uint8_t> data;
	int hdrlen_override = -1; // >= 0: this length byte instead of the natural one (malformed variants)
};

// The 8-byte destination options header Linux ip6 tunnels put in the outer header by default: a Tunnel
// Encapsulation Limit option (type 4, length 1, limit 4; RFC 2473 5.1), then a PadN option of one byte.
ExtHdr encap_limit(uint8_t limit = 4);

struct V4 {
	uint8_t ttl = 64, tos = 0;
	bool df = true;
	uint16_t id = 0;
	uint32_t saddr = 0xc6120002, daddr = 0xc6120001; // 198.18.0.2 -> 198.18.0.1
	bool mf = false;
	bool reserved = false; // the reserved flag bit (K04)
	uint16_t frag_offset = 0;
	uint8_t ihl = 5;
	uint8_t proto = 0; // 0: natural (4/41 outer, 6 inner)
	// Option bytes after the 20-byte header (RFC 791 3.1), zero-padded to IHL; with ihl 5 and options set, the
	// IHL is the options' (rounded up to 4 bytes). Bytes past IHL are dropped (malformed variants).
	std::vector<uint8_t> options;
};

// The 8-byte option of the case file's O cases: an unassigned experimental type with the copied flag (0x9e:
// copy 1, class 0, number 30, RFC 4727), length 8, six value bytes (a DSR load balancer's service address and
// port), of which the last is @v.
std::vector<uint8_t> dsr_option(uint8_t v = 0x51);

struct V6 {
	uint8_t hop_limit = 64, traffic_class = 0;
	uint32_t flow_label = 0;
	uint8_t saddr_last = 2, daddr_last = 1; // 2001:db8:41::2 -> ::1
	uint8_t next_header = 0; // 0: natural (6 TCP; outer: 4 or 41), after the extension headers
	std::vector<ExtHdr> ext;   // extension headers, in order, between the IPv6 header and what it carries
};

// An outer IPv6 header's defaults: other addresses than the inner header's, 2001:db8:41::12 -> ::11.
inline V6 outer_v6()
{
	V6 h;
	h.saddr_last = 0x12;
	h.daddr_last = 0x11;
	return h;
}

struct Tcp {
	uint16_t sport = 40000, dport = 5001;
	uint32_t seq = 1000, ack = 77;
	uint8_t flags = 0x10; // ACK
	uint16_t window = 512;
	std::vector<uint8_t> options; // multiple of 4
	uint8_t doff_override = 0;    // 0: natural
};

// A UDP datagram instead of a TCP segment: ports from Tcp (sport/dport), payload bytes from Tcp::seq as for TCP
// (train() still advances it, so datagrams differ), correct length and checksum unless a test breaks them.
struct Udp {
	bool on = false;
	int32_t len_delta = 0;  // added to the UDP length field only (U length rules, malformed variants)
	bool zero_csum = false; // no checksum sent (0, RFC 768): U05
};

struct Segment {
	Encap encap = Encap::IPIP;
	V4 outer;      // the outer IPv4 header (or the only one for Plain4)
	V6 outer6 = outer_v6(); // the outer IPv6 header (ip4ip6, ip6ip6)
	V4 inner4;     // inner IPv4 (IPIP)
	V6 inner6;     // inner IPv6 (SIT) or the only header (Plain6)
	Tcp tcp;
	Udp udp;
	uint32_t payload_len = 1400;
	uint8_t payload_seed = 0;
	int32_t outer_len_delta = 0; // added to the outer length field only (M02/M03)
	uint32_t padding = 0;        // trailing bytes not covered by any length (M03)
	uint32_t inner_padding = 0;  // tunnels: bytes the outer length covers after the inner packet (K03)
	bool bad_tcp_csum = false; // the TCP (or UDP) checksum
	uint8_t inner_proto_override = 0; // e.g. 1 (ICMP), 4 (nested IPIP)
};

// Outer defaults of the case file: outer DF 1, fixed ID 0; inner IPv4 DF 1, ID incrementing from 1.
Segment ipip();
Segment ipip_as(Encap e); // ipip()'s addresses and IDs, dispatched as @e
Segment sit();
Segment plain4();
// Outer IPv6 as Segment::outer6 says: hop limit 64, no extension headers (the case file's X conventions).
Segment ip4ip6();
Segment ip6ip6();
bool is_tunnel(Encap e);
// @s as a UDP datagram of @payload bytes (the case file's U cases: 1200), the ports of Tcp.
Segment as_udp(Segment s, uint32_t payload = 1200);

// @inner (from its outer network header) in one more IPv4 header of protocol @proto (nesting, X08/M06).
std::vector<uint8_t> wrap_ipv4(const std::vector<uint8_t> &inner, uint8_t proto);

std::vector<uint8_t> build(const Segment &s);

// A train of n consecutive segments from a template: sequence numbers follow the payload, inner IPv4 IDs
// increment by one (outer IDs stay as in the template unless outer_id_step != 0).
std::vector<Segment> train(const Segment &first, unsigned n, int outer_id_step = 0);

} // namespace frames
#endif
