// Test-side model of the kernel's GRO list (dev_gro_receive on one bucket) driving the core exactly as the
// module's gro_receive does: parse, same_flow over held packets, decide, then merge / hold / pass; at the end of
// a "NAPI poll" every held packet is completed. Delivered packets are recorded with their segment lists and the
// completed header bytes, so tests assert outcomes ("one packet of 8") and completion fixups.
#ifndef TUNGRO_TESTS_MINI_GRO_HPP
#define TUNGRO_TESTS_MINI_GRO_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "tungro_core.h"

struct Delivered {
	unsigned segs = 0;                 // wire segments in this packet
	std::vector<uint32_t> seqs;        // TCP sequence number of each segment, in order
	std::vector<uint8_t> bytes;        // the packet as delivered: first headers + all payloads (completed if segs>1)
	tgc_completion completion{};       // valid when segs > 1
	uint8_t id_state = 0;
	unsigned gso_size = 0;
	bool parsed = false;               // false: passed up because tgc_parse refused it
	unsigned pass_reason = 0;
};

class MiniGro {
public:
	explicit MiniGro(unsigned encap, bool device_checksum_help = true, unsigned align = 0)
		: encap_(encap), csum_help_(device_checksum_help), align_(align) {}

	// One segment; frame starts at the outer network header. Returns the core's verdict (action 0 if parse failed).
	tgc_verdict receive(const std::vector<uint8_t> &frame);
	void receive_all(const std::vector<std::vector<uint8_t>> &frames);
	void flush();                      // end of the NAPI poll: complete held packets, oldest first

	const std::vector<Delivered> &delivered() const { return out_; }
	std::vector<unsigned> seg_counts() const;  // segs of each delivered packet, in delivery order
	unsigned reason_count(unsigned reason) const { return reasons_[reason]; }
	const tgc_verdict &last_verdict() const { return last_; }

private:
	struct Held {
		std::vector<uint8_t> bytes;    // first segment's bytes, payload of later segments appended
		tgc_pkt first{};
		uint32_t payload_len = 0;
		uint16_t count = 0;
		uint16_t gso_size = 0;
		uint8_t id_state = 0;
		std::vector<uint32_t> seqs;
		uint64_t age = 0;
	};
	void complete(Held &h);
	unsigned encap_;
	bool csum_help_;
	unsigned align_;
	uint64_t clock_ = 0;
	std::vector<Held> held_;           // index 0 = newest (the kernel adds at the list head)
	std::vector<Delivered> out_;
	unsigned reasons_[TGC_R_COUNT] = {};
	tgc_verdict last_{};
};

#endif
