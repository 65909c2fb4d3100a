// Delivery oracle of the fuzz harnesses on the receive loop and the engine: every segment given to the core is
// recorded with its bytes; what comes out is checked against them:
//   - every segment comes out exactly once (count in == count out);
//   - per-flow order: a flow's segments come out in arrival order;
//   - payload bytes out == in, and every GRO packet resegments to its inputs: a test-side segmenter cuts it at
//     gso_size and rebuilds each segment's headers as GSO does (lengths, sequence numbers, IPv4 IDs by the held
//     packet's id_state, FIN/PSH on the last segment only, CWR on the first only; a UDP datagram's length field)
//     each rebuilt segment must equal
//     the input segment byte for byte, checksum fields aside (GSO recomputes those), and the urgent pointer of a
//     segment without URG (meaningless; the kernel's GRO ignores it too).
#ifndef TUNGRO_FUZZ_ORACLE_HPP
#define TUNGRO_FUZZ_ORACLE_HPP

#include <cstdint>
#include <utility>
#include <vector>

#include "checks.hpp"
#include "tungro_core.h"

namespace fuzzchk {

// One per process, reset for each input: its buffers keep their capacity, so a run does not map fresh memory for
// every input (ASan serves allocations above 128 KiB with mmap: a page fault per page, every execution).
class Delivery {
public:
	void reset();
	// A segment given to the core, its n bytes as given. Returns its id (0, 1, ... in arrival order).
	uint64_t add(const uint8_t *p, uint32_t n);
	// Its flow identity (flow_key), when it has one: order is checked per flow.
	void set_flow(uint64_t id, const FlowKey &key) { segs_[id].key = key; }
	// Delivered unmerged, as it is.
	void single(uint64_t id);
	// Delivered as one GRO packet of segments ids (in the order they were merged): b, n its bytes from the outer
	// network header after completion; first the first segment as tgc_parse saw it; gso_size, id_state the held
	// packet's.
	void gro(const std::vector<uint64_t> &ids, const uint8_t *b, uint32_t n, const tgc_pkt &first, uint32_t gso_size,
		 uint8_t id_state);
	// At the end of the input: every segment came out.
	void finish() const;
	uint64_t count() const { return segs_.size(); }

private:
	struct Seg {
		size_t off;   // its bytes: arena_[off, off + n)
		uint32_t n;
		bool out = false;
		FlowKey key;
	};
	void mark(uint64_t id);
	std::vector<Seg> segs_;
	std::vector<uint8_t> arena_;
	std::vector<std::pair<FlowKey, uint64_t>> last_; // each flow's last segment out (a train has few flows)
	std::vector<uint8_t> seg_;                       // gro()'s resegmented segment
};

} // namespace fuzzchk
#endif
