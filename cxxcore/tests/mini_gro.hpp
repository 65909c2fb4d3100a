// Test-side GRO on tungro's engine (tgc_engine_*): segments are byte vectors, the engine's ops append payloads,
// complete with tgc_finish() and record what is delivered, in order. By default it models the kernel's GRO list
// on one NAPI: one bucket of 8 held packets fed hash 0 (MAX_GRO_SKBS; virtio-net without hash reporting); a
// Table selects the engine's own layout (8 x 8, tungro's hash). At the end of a "NAPI poll" (flush) every held
// packet is completed. Tests assert outcomes ("one packet of 8") and completion fixups on the recorded packets.
#ifndef TUNGRO_TESTS_MINI_GRO_HPP
#define TUNGRO_TESTS_MINI_GRO_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
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
	uint8_t why = TGC_DONE_FLOW;       // completed held packets: enum tgc_done_why
	uint64_t tag = 0;                  // the caller's tag of the first segment (receive's tag)
};

// Engine layout: buckets x flows per bucket, and whose hash picks the bucket.
struct Table {
	unsigned buckets = 1, flows = 8;
	bool caller_hash = true;           // bucket from the segment's hash (the kernel's way), else tungro's own hash
	bool ipv4_options = false;         // TGC_ENGINE_IPV4_OPTIONS: merge through safe, identical IPv4 options
	bool no_fastpath = false;          // TGC_ENGINE_NO_FASTPATH: every segment through the full parse and decide
	// A second engine of the same layout with TGC_ENGINE_NO_FASTPATH runs every segment, flush and poll in
	// lockstep: its results, deliveries and counters (but the fast-path one) must be this engine's, or the
	// process aborts naming the segment (the fast stage's differential proof, in every test that uses MiniGro).
	bool differential = true;
};
constexpr Table kKernelList{1, 8, true};   // the kernel's one bucket of 8, every skb hash 0
constexpr Table kTungroTable{TGC_ENGINE_BUCKETS, TGC_ENGINE_FLOWS, false};
constexpr Table kOptionsList{1, 8, true, true};  // the kernel's list, IPv4 options merged (the module's default)

class MiniGro {
public:
	explicit MiniGro(unsigned encap, bool device_checksum_help = true, unsigned align = 0, Table t = kKernelList);
	~MiniGro();
	MiniGro(const MiniGro &) = delete;
	MiniGro &operator=(const MiniGro &) = delete;

	// One segment; frame starts at the outer network header. Returns the core's verdict (action 0 if parse failed).
	// hash: the caller's flow hash (used with Table::caller_hash); time: arrival time (the engine's flow age);
	// tag: recorded with what is delivered of it.
	tgc_verdict receive(const std::vector<uint8_t> &frame);
	tgc_verdict receive(const std::vector<uint8_t> &frame, unsigned encap, uint32_t hash = 0, uint32_t time = 0,
			    uint64_t tag = 0);
	void receive_all(const std::vector<std::vector<uint8_t>> &frames);
	void set_input(uint32_t in) // TGC_IN_* bits for every later segment (TGC_IN_UDP_GRO)
	{
		in_ = in;
		if (shadow_)
			shadow_->set_input(in);
	}
	void flush();                      // end of the NAPI poll: complete held packets, bucket by bucket, oldest first
	void flush_before(uint32_t time);  // budget used up: only what arrived before time

	const std::vector<Delivered> &delivered() const { return out_; }
	std::vector<Delivered> take_delivered()
	{
		if (shadow_)
			shadow_->out_.clear();
		return std::exchange(out_, {});
	}
	std::vector<unsigned> seg_counts() const;  // segs of each delivered packet, in delivery order
	unsigned reason_count(unsigned reason) const { return reasons_[reason]; }
	const tgc_verdict &last_verdict() const { return last_; }
	const tgc_rx_result &last_result() const { return last_rx_; }
	tgc_engine_stats stats() const;

private:
	void check_shadow(const char *what) const;
	struct Buf;
	static int op_append(void *ctx, void *held, void *seg, const tgc_merge *m);
	static void op_complete(void *ctx, void *held, const tgc_done *d);
	static void op_deliver(void *ctx, void *seg, const tgc_rx_result *r);
	unsigned encap_;
	bool csum_help_;
	unsigned align_;
	uint32_t in_ = 0;
	std::unique_ptr<uint64_t[]> mem_;  // the engine's memory (8-aligned)
	tgc_engine *engine_ = nullptr;
	std::vector<Delivered> out_;
	unsigned reasons_[TGC_R_COUNT] = {};
	tgc_verdict last_{};
	tgc_rx_result last_rx_{};
	uint64_t segs_ = 0;                // segments received (the shadow's messages)
	std::unique_ptr<MiniGro> shadow_;  // Table::differential: the same engine without the fast stage
};

// Whether two deliveries are the same packet, byte for byte, with the same record.
bool same_delivered(const Delivered &a, const Delivered &b);
// Whether two results of tgc_engine_receive() are the same record (held compared as NULL or not: the handles are
// each engine's own).
bool same_result(const tgc_rx_result &a, const tgc_rx_result &b);

#endif
