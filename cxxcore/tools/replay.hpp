// Replay engine of tungro-replay: reads a pcap/pcapng capture of Ethernet frames with libpcap, takes the IP packet
// of each frame, optionally wraps plain TCP in an outer IPv4 header (IPIP or SIT), and runs the packets through the
// core as NAPI polls of N frames on tungro's engine (tests/mini_gro.hpp): by default the kernel's GRO list (one
// bucket of 8, hash 0, a fresh one per dispatch path and poll); with engine, one table of buckets x flows with
// tungro's own hash for the whole capture, every held packet completed at the end of each poll.
// Counts per flow and in total. Used by the CLI (tungro_replay.cpp) and the capture tests (test_replay.cpp).
#ifndef TUNGRO_TOOLS_REPLAY_HPP
#define TUNGRO_TOOLS_REPLAY_HPP

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tungro_core.h"

namespace replay {

// How IP packets are dispatched to the core: auto = by the outer protocol (tgc_encap_detect: IPv4 4/41, IPv6 4/41
// after its extension headers, else plain), as the kernel's offload tables do; the others force one tgc_encap for
// every IP packet.
enum class Encap { Auto, Ipip, Sit, Plain, Ip4ip6, Ip6ip6 };
// --wrap: ipip wraps plain TCP/IPv4 packets in outer IPv4 protocol 4; sit wraps plain TCP/IPv6 in protocol 41.
enum class Wrap { None, Ipip, Sit };
// Their names on tungro-replay's command line and in its JSON, in enum order (index by static_cast<int>).
inline constexpr const char *kEncapNames[] = {"auto", "ipip", "sit", "plain", "ip4ip6", "ip6ip6"};
inline constexpr const char *kWrapNames[] = {"none", "ipip", "sit"};

struct Options {
	Encap encap = Encap::Auto;
	Wrap wrap = Wrap::None;
	unsigned poll = 64;         // frames per NAPI poll; held packets all complete at the end of each poll
	// Recompute wrong IPv4 header checksums (IHL 5) of the captured packets before anything else: a capture
	// taken on the sending host with checksum offload holds headers the NIC had not filled in yet.
	bool fix_ipv4_csum = false;
	bool engine = false;        // tungro's engine table instead of the kernel's list model
	unsigned buckets = TGC_ENGINE_BUCKETS, flows = TGC_ENGINE_FLOWS; // its layout
};

struct Stats {
	uint64_t frames = 0;        // IP packets given to the core
	uint64_t tcp_segments = 0;  // of those, accepted by tgc_parse
	uint64_t gro_packets = 0;   // delivered packets made of accepted segments (1 or more segments each)
	uint64_t gro_segments = 0;  // segments inside those packets
	uint64_t segments_out = 0;  // every segment delivered, accepted or not (must equal frames)
	uint64_t reasons[TGC_R_COUNT] = {}; // per frame: tgc_parse's refusal, else the verdict's reason
	double mean_segs() const { return gro_packets ? double(gro_segments) / double(gro_packets) : 0.0; }
};

struct Result {
	uint64_t records = 0;         // capture records read
	uint64_t not_ip = 0;          // Ethernet frames that carry neither IPv4 nor IPv6 (ARP, ...): not given to the core
	uint64_t wrapped = 0;         // packets given an outer IPv4 header by --wrap
	uint64_t csum_fixed = 0;      // IPv4 header checksums recomputed by fix_ipv4_csum
	uint64_t complete_errors = 0; // GRO packets tgc_complete refused (must stay 0)
	uint64_t evicted = 0;         // engine: held packets completed because their bucket was full
	Stats total;
	std::map<std::string, Stats> flows; // by flow name (direction, layers, addresses, protocol, ports)
};

// Replays one capture. Returns true, or false with a message in *error (unreadable file, unsupported link type).
// Malformed packets never fail the run: they are counted under their tgc_reason.
bool run(const std::string &path, const Options &opt, Result *out, std::string *error);

// The IP packets of a capture (bytes from the IP header; an empty vector for a record that carries no IP packet),
// and its record count. Returns true, or false with a message in *error.
bool read_ip_packets(const std::string &path, std::vector<std::vector<uint8_t>> *pkts, uint64_t *records,
		     std::string *error);

// Human-readable name of the flow of an IP packet (bytes from the outer network header): e.g.
// "ipip 10.1.0.1>10.1.0.2 | 10.1.0.3:80>10.1.0.4:80 tcp". Never reads past n.
std::string flow_name(const uint8_t *p, size_t n);

} // namespace replay
#endif
