// Test-side frame builder: IPIP, SIT and plain TCP segments as the wire carries them (from the outer network
// header on; the core never sees Ethernet), with correct lengths and checksums unless a test breaks them.
#ifndef TUNGRO_TESTS_FRAMES_HPP
#define TUNGRO_TESTS_FRAMES_HPP

#include <cstddef>
#include <cstdint>
#include <vector>

namespace frames {

enum class Encap { Plain4, Plain6, IPIP, SIT };

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
};

struct V6 {
	uint8_t hop_limit = 64, traffic_class = 0;
	uint32_t flow_label = 0;
	uint8_t saddr_last = 2, daddr_last = 1; // 2001:db8:41::2 -> ::1
	uint8_t next_header = 0; // 0: natural (6)
};

struct Tcp {
	uint16_t sport = 40000, dport = 5001;
	uint32_t seq = 1000, ack = 77;
	uint8_t flags = 0x10; // ACK
	uint16_t window = 512;
	std::vector<uint8_t> options; // multiple of 4
	uint8_t doff_override = 0;    // 0: natural
};

struct Segment {
	Encap encap = Encap::IPIP;
	V4 outer;      // the outer IPv4 header (or the only one for Plain4)
	V4 inner4;     // inner IPv4 (IPIP)
	V6 inner6;     // inner IPv6 (SIT) or the only header (Plain6)
	Tcp tcp;
	uint32_t payload_len = 1400;
	uint8_t payload_seed = 0;
	int32_t outer_len_delta = 0; // added to the outer length field only (M02/M03)
	uint32_t padding = 0;        // trailing bytes not covered by any length (M03)
	uint32_t inner_padding = 0;  // tunnels: bytes the outer length covers after the inner packet (K03)
	bool bad_tcp_csum = false;
	uint8_t inner_proto_override = 0; // e.g. 1 (ICMP), 4 (nested IPIP)
};

// Outer defaults of the case file: outer DF 1, fixed ID 0; inner IPv4 DF 1, ID incrementing from 1.
Segment ipip();
Segment sit();
Segment plain4();

std::vector<uint8_t> build(const Segment &s);

// A train of n consecutive segments from a template: sequence numbers follow the payload, inner IPv4 IDs
// increment by one (outer IDs stay as in the template unless outer_id_step != 0).
std::vector<Segment> train(const Segment &first, unsigned n, int outer_id_step = 0);

} // namespace frames
#endif
