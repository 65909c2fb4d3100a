// fuzz_receive: libFuzzer harness of the core's one receive loop (tgc_receive) over a train, with the harness as
// the caller the way the module's offload path is: a GRO list of at most 8 held packets (oldest completed when
// full, as dev_gro_receive does), its own find (tgc_same_flow over the list) and append (byte vectors), and the
// caller's steps after each verdict as tungro_core.h orders them. Input: records as fuzz_input.hpp; the repeat
// byte is read here as the segment's extras: bit 1 a packet it starts is foreign (as if held before tungro), bit 2
// a TLS decrypted state differing from the held packet's, bit 3 prepare reports a bad checksum, bits 4-5 the run
// with the fast stage gives only 16, 40 or 0 bytes of headers at first and the rest through the view op, bit 6
// TGC_IN_UDP_GRO (the caller allows UDP GRO, as fuzz_parse reads that bit; the module's offload path never sets it,
// but tgc_receive() takes it, so its UDP rules are fuzzed here too).
// Invariants (abort on violation): the delivery oracle (oracle.hpp: exactly once, per-flow order, payload bytes
// out == in, every GRO packet resegments to its inputs), no read outside the bytes given (exact allocations,
// ASan), no UB, and the result is well formed (one action; MERGE only into the held packet of the flow that find
// returned; flush_held only with one). Differential: every input runs three times, without the fast stage, with it
// (the harness's expect offers the list's first held packet of the segment's encap, as the module offers the first
// same_flow candidate), and with the predicted stage too (predict offers that packet's prediction from
// tgc_pred_hold() while it is current, from its first segment on where the module waits for its second); every
// segment's result must be the same but for r.fast, and prepare runs once a segment each way.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "checks.hpp"
#include "fuzz_input.hpp"
#include "oracle.hpp"
#include "tungro_core.h"

namespace {

using namespace fuzzchk;

constexpr unsigned kListMax = 8; // MAX_GRO_SKBS
constexpr unsigned kMaxSegs = 64;

enum : uint8_t { kXForeign = 2, kXDecrypted = 4, kXCsumBad = 8, kXPartial = 0x30, kXUdpGro = 0x40 };

struct Held {
	std::vector<uint8_t> bytes; // first segment without padding, then each merged payload
	std::vector<uint64_t> ids;
	tgc_pkt first{};
	uint32_t payload_len = 0;
	uint16_t count = 0, gso_size = 0;
	uint8_t id_state = 0;
	bool foreign = false, gso = false;
	bool has_pred = false; // pred holds its prediction (tgc_pred_hold()), current while pred.count is count
	tgc_pred pred;
};

class List {
public:
	// One segment's result, as the two runs compare it (r.held as its place in the list).
	struct Rec {
		tgc_pkt pkt;
		tgc_verdict v;
		uint16_t flags_off;
		uint8_t parsed, located, foreign, retried;
		long held_at;

		bool operator==(const Rec &o) const
		{
			return std::memcmp(&pkt, &o.pkt, sizeof(pkt)) == 0 && std::memcmp(&v, &o.v, sizeof(v)) == 0 &&
			       flags_off == o.flags_off && parsed == o.parsed && located == o.located &&
			       foreign == o.foreign && retried == o.retried && held_at == o.held_at;
		}
	};

	// @mode: 0 no fast stage, 1 the fast stage, 2 the predicted stage too.
	List(unsigned align, Delivery &out, unsigned mode) : align_(align), out_(out), fast_(mode > 0), predict_(mode > 1) {}

	const std::vector<Rec> &trace() const { return trace_; }
	unsigned fast_merged() const { return fast_merged_; }

	bool full() const { return out_.count() >= kMaxSegs; }

	void receive(const uint8_t *src, uint32_t n, uint8_t flags, uint8_t extras)
	{
		const uint64_t id = out_.add(src, n);
		const Buf frame(src, n, align_);
		const uint32_t hl = std::min(n, (flags & fuzzin::kShortView) ? fuzzin::kShortViewLen : kHdrView);
		const Buf view(src, hl, align_);
		static const uint32_t kPartial[4] = {~0u, 16, 40, 0};
		const uint32_t part = fast_ ? std::min(hl, kPartial[(extras & kXPartial) >> 4]) : hl;
		const Buf partial(src, part, align_);
		tgc_seg s{};
		s.hdr = part ? partial.p : nullptr;
		s.data = frame.p;
		s.hdr_len = part;
		s.pkt_len = n;
		s.encap = static_cast<uint8_t>(pick_encap(flags, src, n));
		s.in = (flags & fuzzin::kUpperFlush ? TGC_IN_UPPER_FLUSH : 0) |
		       (flags & fuzzin::kCsumCheck ? TGC_IN_CSUM_CHECK : 0) |
		       (s.encap && outer_len_differs(view.p, hl, n) ? TGC_IN_OUTER_FLUSH : 0) |
		       (extras & kXUdpGro ? TGC_IN_UDP_GRO : 0);
		extras_ = extras;
		nomerge_ = flags & fuzzin::kNoMerge;
		cur_ = id;
		cur_frame_ = &frame;
		found_ = expected_ = nullptr;
		appended_ = false;
		prepares_ = views_ = 0;
		whole_ = &view;
		static const tgc_rx_ops plain = {prepare, find, append, nullptr, nullptr, nullptr},
					fast = {prepare, find, append, expect, whole, nullptr},
					pred = {prepare, find, append, expect, whole, predict};
		tgc_rx_result r;
		std::memset(&r, 0xa5, sizeof(r));
		tgc_receive(&s, predict_ ? &pred : fast_ ? &fast : &plain, this, &r);
		FUZZ_CHECK(prepares_ <= 1 && views_ <= 1 && r.fast <= (predict_ ? 2 : fast_ ? 1 : 0),
			   "prepare ran %u times, view %u, fast %u", prepares_, views_, r.fast);
		fast_merged_ += r.fast != 0;
		if (r.fast)
			found_ = expected_; // what find would have returned (the proof: fastpath.hpp)
		trace_.push_back(Rec{r.pkt, r.v, r.flags_off, r.parsed, r.located, r.foreign, r.retried, held_at(r.held)});

		FUZZ_CHECK(r.v.action >= TGC_MERGE && r.v.action <= TGC_PASS && r.v.reason < TGC_R_COUNT,
			   "action %u reason %u", r.v.action, r.v.reason);
		FUZZ_CHECK(r.held == found_ && (r.held || !r.v.flush_held), "held %p, found %p, flush %u", r.held,
			   static_cast<void *>(found_), r.v.flush_held);
		if (r.parsed || r.located)
			out_.set_flow(id, flow_key(r.pkt, view.p));
		if (r.parsed)
			check_parsed(r.pkt, s.encap, hl, n);
		Held *h = static_cast<Held *>(r.held);
		FUZZ_CHECK(r.retried == (nomerge_ && h && !r.foreign && r.v.reason == TGC_R_NOMERGE),
			   "retried %u reason %s", r.retried, tgc_reason_name(r.v.reason));
		switch (r.v.action) {
		case TGC_MERGE:
			FUZZ_CHECK(h && appended_ && !r.foreign && !h->foreign && !(extras & (kXDecrypted | kXCsumBad)),
				   "MERGE (append %d, foreign %u, extras %#x) not into a held packet of tungro's",
				   appended_, r.foreign, extras);
			h->id_state = r.v.id_state;
			// A datagram has no flags byte to carry over: flags_off 0 and no held flags.
			FUZZ_CHECK(tgc_pkt_is_udp(&r.pkt) ? r.flags_off == 0 && !r.v.held_flags
							  : r.flags_off == r.pkt.tcp_off + TGC_TCP_FLAGS_OFF &&
								    r.flags_off < h->first.payload_off,
				   "flags_off %u held_flags %#x", r.flags_off, r.v.held_flags);
			h->bytes[r.flags_off] |= r.v.held_flags;
			if (r.v.flush_held)
				complete(h);
			break;
		case TGC_HOLD:
			if (r.v.flush_held)
				complete(h);
			hold(id, frame, r.pkt, extras);
			if (predict_) {
				list_.front()->has_pred = true;
				tgc_pred_hold(&list_.front()->pred);
			}
			break;
		default:
			if (r.v.flush_held)
				complete(h);
			out_.single(id);
		}
		if (flags & fuzzin::kEndPoll)
			flush();
	}

	void flush()
	{
		while (!list_.empty())
			complete(list_.back().get()); // oldest first, as napi_gro_flush
	}

	void finish()
	{
		flush();
		out_.finish();
	}

private:
	static tgc_u32 prepare(void *ctx, const tgc_pkt *)
	{
		List *l = static_cast<List *>(ctx);
		l->prepares_++;
		return l->extras_ & kXCsumBad ? TGC_IN_CSUM_BAD : 0;
	}

	static void held_view(const Held *h, tgc_held *held)
	{
		held->hdr = h->bytes.data();
		held->hdr_len = h->first.payload_off;
		held->total_len = static_cast<uint32_t>(h->bytes.size());
		held->payload_len = h->payload_len;
		held->count = h->count;
		held->gso_size = h->gso_size;
		held->id_state = h->id_state;
	}

	// The fast stage's candidate: the first held packet of the segment's encap, none when it is one find would
	// flag (foreign, another TLS state), as the module does.
	static void *expect(void *ctx, const tgc_seg *seg, tgc_held *held, tgc_layout *layout)
	{
		List *l = static_cast<List *>(ctx);
		for (auto &hp : l->list_) {
			Held *h = hp.get();
			if (h->first.encap != seg->encap)
				continue;
			if (h->foreign || (l->extras_ & kXDecrypted))
				return nullptr;
			held_view(h, held);
			*layout = tgc_layout{h->first.inner_off, h->first.tcp_off, h->first.payload_off, h->first.encap, 0};
			l->expected_ = h;
			return h;
		}
		return nullptr;
	}

	// The predicted stage's packet: expect's candidate, when its prediction is current.
	static void *predict(void *ctx, const tgc_seg *seg, tgc_pred **pred)
	{
		tgc_held held;
		tgc_layout layout;
		Held *h = static_cast<Held *>(expect(ctx, seg, &held, &layout));
		if (!h || !h->has_pred || !tgc_pred_current(&h->pred, h->count))
			return nullptr;
		*pred = &h->pred;
		return h;
	}

	// The view op: the segment's whole header view.
	static int whole(void *ctx, const tgc_u8 **hdr, tgc_u32 *hdr_len)
	{
		List *l = static_cast<List *>(ctx);
		l->views_++;
		*hdr = l->whole_->p;
		*hdr_len = l->whole_->n;
		return 0;
	}

	long held_at(const void *p) const
	{
		for (size_t i = 0; i < list_.size(); i++)
			if (list_[i].get() == p)
				return static_cast<long>(i);
		return -1;
	}

	static void *find(void *ctx, const tgc_pkt *pkt, const tgc_u8 *hdr, tgc_held *held)
	{
		List *l = static_cast<List *>(ctx);
		for (auto &hp : l->list_) {
			Held *h = hp.get();
			if (h->first.encap != pkt->encap || !tgc_same_flow(pkt, hdr, h->bytes.data(), h->first.payload_off))
				continue;
			held_view(h, held);
			held->flags = static_cast<uint8_t>((h->foreign ? TGC_HELD_FOREIGN : 0) |
							   (l->extras_ & kXDecrypted ? TGC_HELD_DECRYPTED : 0));
			l->found_ = h;
			return h;
		}
		return nullptr;
	}

	static int append(void *ctx, void *held, const tgc_rx_result *r)
	{
		List *l = static_cast<List *>(ctx);
		Held *h = static_cast<Held *>(held);
		FUZZ_CHECK((h == l->found_ || h == l->expected_) && r->v.action == TGC_MERGE,
			   "append into another packet than found or expected");
		if (l->nomerge_)
			return -1;
		const tgc_pkt &p = r->pkt;
		FUZZ_CHECK(!p.padded && p.payload_len > 0 && p.payload_len <= h->gso_size &&
				   (tgc_pkt_is_udp(&p) || p.seq == h->first.seq + h->payload_len) &&
				   h->bytes.size() + p.payload_len < TGC_MAX_GRO_BYTES,
			   "merge of seq %u len %u into seq %u+%u gso_size %u", p.seq, p.payload_len, h->first.seq,
			   h->payload_len, h->gso_size);
		const uint8_t *pl = l->cur_frame_->p + p.payload_off;
		h->bytes.insert(h->bytes.end(), pl, pl + p.payload_len);
		h->payload_len += p.payload_len;
		h->count = static_cast<uint16_t>(h->count + (p.gso_size ? p.gso_segs : 1));
		h->ids.push_back(l->cur_);
		l->appended_ = true;
		return 0;
	}

	void hold(uint64_t id, const Buf &frame, const tgc_pkt &pkt, uint8_t extras)
	{
		if (list_.size() == kListMax)
			complete(list_.back().get());
		auto h = std::make_unique<Held>();
		h->bytes.assign(frame.p, frame.p + pkt.payload_off + pkt.payload_len);
		h->first = pkt;
		h->payload_len = pkt.payload_len;
		h->count = pkt.gso_size ? pkt.gso_segs : 1;
		h->gso_size = static_cast<uint16_t>(pkt.gso_size ? pkt.gso_size : pkt.payload_len);
		h->foreign = extras & kXForeign;
		h->ids.push_back(id);
		list_.insert(list_.begin(), std::move(h));
	}

	// gro_complete through tgc_finish, then the oracle on what goes up.
	void complete(Held *h)
	{
		auto it = std::find_if(list_.begin(), list_.end(), [h](const std::unique_ptr<Held> &p) { return p.get() == h; });
		FUZZ_CHECK(it != list_.end(), "completed a packet that is not held");
		std::unique_ptr<Held> own = std::move(*it);
		list_.erase(it);
		const uint32_t n = static_cast<uint32_t>(h->bytes.size());
		tgc_done d{};
		d.first = h->first;
		d.total_len = n;
		d.payload_len = h->payload_len;
		d.count = h->count;
		d.gso_size = h->gso_size;
		d.id_state = h->id_state;
		tgc_completion c;
		if (h->ids.size() > 1)
			FUZZ_CHECK(tgc_finish(h->bytes.data(), n, &d, &c) == 0, "tgc_finish failed on %zu segments",
				   h->ids.size());
		out_.gro(h->ids, h->bytes.data(), n, h->first, h->gso_size, h->id_state);
	}

	unsigned align_;
	Delivery &out_;
	uint8_t extras_ = 0;
	bool nomerge_ = false, appended_ = false;
	uint64_t cur_ = 0;
	const Buf *cur_frame_ = nullptr;
	Held *found_ = nullptr, *expected_ = nullptr;
	bool fast_, predict_;
	unsigned prepares_ = 0, views_ = 0, fast_merged_ = 0;
	const Buf *whole_ = nullptr;
	std::vector<Rec> trace_;
	std::vector<std::unique_ptr<Held>> list_; // newest first, as the kernel's GRO list
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static Delivery out;
	std::vector<List::Rec> traces[3];
	for (const unsigned mode : {0u, 1u, 2u}) {
		out.reset();
		List l(size & 1 ? 2 : 0, out, mode);
		for_each_record(data, size, [&l](uint8_t flags, uint8_t repeat, const uint8_t *p, uint32_t n) {
			l.receive(p, n, flags, repeat);
			return !l.full();
		});
		l.finish();
		traces[mode] = l.trace();
	}
	for (const unsigned mode : {1u, 2u}) {
		FUZZ_CHECK(traces[0].size() == traces[mode].size(), "%zu segments against %zu (mode %u)", traces[0].size(),
			   traces[mode].size(), mode);
		for (size_t i = 0; i < traces[0].size(); i++)
			FUZZ_CHECK(traces[0][i] == traces[mode][i],
				   "segment %zu: the %s stage's result differs (%s against %s)", i,
				   mode == 1 ? "fast" : "predicted", tgc_reason_name(traces[0][i].v.reason),
				   tgc_reason_name(traces[mode][i].v.reason));
	}
	return 0;
}
