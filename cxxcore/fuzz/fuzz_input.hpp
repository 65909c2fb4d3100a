// Input format of the GRO fuzz harness, shared by the harness (which decodes it) and the seed generator (which
// writes it), so a seed means the same train to both.
//
// The input is a sequence of records, each:
//   [flags: 1 byte][repeat: 1 byte][len: 2 bytes, big-endian][len bytes: one segment from the outer network header]
// A record whose len runs past the input end takes the bytes that are there. Fewer than 4 bytes left: done.
// repeat: extra copies of the segment, each advanced by one segment (TCP seq + payload, IPv4 IDs + 1, checksums
// recomputed) when the segment parses; this lets a small input reach the 64 KiB aggregate limit.
#ifndef TUNGRO_FUZZ_INPUT_HPP
#define TUNGRO_FUZZ_INPUT_HPP

#include <cstdint>
#include <vector>

namespace fuzzin {

// flags bits 0-1: how the segment is dispatched to the core.
enum : uint8_t {
	kEncapIpip = 0,  // TGC_ENCAP_IPIP, or TGC_ENCAP_IP4IP6 when the outer header is IPv6 (inner IPv4)
	kEncapSit = 1,   // TGC_ENCAP_SIT, or TGC_ENCAP_IP6IP6 when the outer header is IPv6 (inner IPv6)
	kEncapPlain = 2, // TGC_ENCAP_NONE
	kEncapAuto = 3,  // by the outer protocol (tgc_encap_detect), as the kernel's offload tables do
	kEncapMask = 3,
};
constexpr uint8_t kCsumCheck = 1u << 2;   // device gave no checksum help: validate with tgc_tcp_csum_ok
constexpr uint8_t kUpperFlush = 1u << 3;  // TGC_IN_UPPER_FLUSH
constexpr uint8_t kNoMerge = 1u << 4;     // the buffer mechanics refuse a MERGE (module: tungro_append failed)
constexpr uint8_t kEndPoll = 1u << 5;     // end of the NAPI poll after this record: every held packet completes
constexpr uint8_t kShortView = 1u << 6;   // header view limited to 60 bytes (a short linear head)
constexpr uint8_t kAgeFlush = 1u << 7;   // engine: then complete what arrived kAgeFlushSegs segments ago or earlier
constexpr uint32_t kShortViewLen = 60;
constexpr uint32_t kAgeFlushSegs = 4;
constexpr unsigned kRecordHdr = 4;

// Appends one record to an input. repeat: extra advanced copies (0 = the segment once).
inline void put_record(std::vector<uint8_t> &in, uint8_t flags, uint8_t repeat, const std::vector<uint8_t> &seg)
{
	const size_t len = seg.size() > 0xffff ? 0xffff : seg.size();
	in.push_back(flags);
	in.push_back(repeat);
	in.push_back(static_cast<uint8_t>(len >> 8));
	in.push_back(static_cast<uint8_t>(len));
	in.insert(in.end(), seg.begin(), seg.begin() + static_cast<long>(len));
}

} // namespace fuzzin
#endif
