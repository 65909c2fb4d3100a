// fuzz_engine: libFuzzer harness of tungro's engine. Arbitrary bytes become a train of segments (format in fuzz_input.hpp) that
// runs through tungro's engine (tgc_engine_receive: the core's one receive loop, tgc_receive, on a flow table)
// with the harness's byte-vector buffer mechanics as the engine's ops. The table is the kernel's GRO list (one
// bucket of 8, hash 0), tungro's 8 x 8 with its own hash, or a 2 x 2 one, chosen by the input size. The harness
// keeps its own model of every held packet and checks the engine against it.
//
// Every segment, header view and completed packet is a buffer of exactly its bytes in an Arena (checks.hpp), with
// poisoned bytes around it, so ASan reports any read past them; a segment given back to the harness (appended,
// completed or delivered) and a view after its receive call are poisoned too, so a later read is reported as a
// use after free would be. No heap allocation per segment: Pkt records and their vectors are a pool reused by
// every run. Invariants (abort on violation):
// UDP GRO is allowed for every segment (TGC_IN_UDP_GRO: the glue found a UDP_GRO socket), so UDP datagrams merge
// under the same invariants (no sequence numbers; the UDP length and checksum instead of TCP's). The receive
// harness sets it per segment (its repeat byte's bit 6).
//   - the delivery oracle (oracle.hpp): every segment delivered exactly once, per-flow order, payload bytes out ==
//     in, and every GRO packet resegments (test-side segmenter) to the segments that went in;
//   - a GRO packet's segments are consecutive in sequence space, all but the last of gso_size bytes;
//   - tgc_same_flow agrees with the flow identity (addresses, protocols, flow label, ports) for every held packet,
//     and the engine finds exactly the held packet of the segment's flow (none when its flow has none);
//   - the engine's held lengths, counts, id_state and counters agree with the harness's model;
//   - tgc_flow_of locates a refused segment's flow inside the view, with tgc_parse's layout when both succeed;
//   - verdicts are well formed (one action; MERGE and flush_held only with a held packet);
//   - every completed GRO packet re-parses with tgc_parse_as (the engine's flags) to the same flow, first seq and payload length; its IPv4
//     header checksums are valid, its length is <= 65535, and finishing its CHECKSUM_PARTIAL TCP checksum as a
//     device would gives a checksum tgc_tcp_csum_ok accepts;
//   - the fast stage's equivalence (src/fastpath.hpp): every input runs twice, on the layout's engine and on the
//     same engine with TGC_ENGINE_NO_FASTPATH, and both runs must give the same trace: every segment's result
//     record, every op call with its arguments (merge records, completion records and the completed bytes,
//     deliveries) in order, and the counters after every segment but the fast-path one;
//   - the module's way in (module/tungro_engine.c passes no result record): a third run gives the same train to
//     tgc_engine_receive_burst(), one call per stretch between poll ends and age flushes, with ops that only
//     record; its op calls (the trace above without the per-segment records) and its final counters must be the
//     first run's.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "checks.hpp"
#include "fuzz_input.hpp"
#include "oracle.hpp"
#include "tungro_core.h"

namespace {

using namespace fuzzchk;

constexpr unsigned kMaxSegs = 64;     // bounds one input's work (repeat multiplies records): 64 KiB takes 47
                                      // segments of 1400 bytes

// Writes a full TCP (UDP) checksum for the segment described by pkt (used to advance repeated copies). A UDP
// datagram sent without a checksum keeps none; a computed 0 goes out as 0xffff (RFC 768).
void set_tcp_csum(uint8_t *b, const tgc_pkt &pkt)
{
	const bool udp = tgc_pkt_is_udp(&pkt);
	uint8_t *ck = b + pkt.tcp_off + (udp ? 6 : 16);
	if (udp && !ld16(ck))
		return;
	st16(ck, 0);
	const uint16_t c = static_cast<uint16_t>(~tcp_sum(b, pkt));
	st16(ck, udp && !c ? 0xffff : c);
}

// A segment the harness gave the engine (the engine's cookie), and, once held, the GRO packet it starts: the
// harness's own model of it, checked against what the engine reports. One per segment of a run, from a pool.
struct Pkt {
	uint64_t id = 0;
	uint8_t *frame = nullptr;        // the segment, exactly n bytes (Arena)
	uint32_t n = 0;
	uint8_t flags = 0;               // its record's flags (fuzz_input.hpp) as given with this copy
	bool live = false;               // given to the engine and not given back yet
	unsigned encap = 0;
	FlowKey key;                     // flow identity; empty for a segment that has no flow (refused, not located)
	// Held packets only:
	uint8_t *view = nullptr;         // first segment's headers, exactly payload_off bytes: all the core may read
	uint32_t view_len = 0;
	std::vector<uint8_t> bytes;      // first segment (no padding), then each merged payload
	tgc_pkt first{};
	uint32_t payload_len = 0;
	uint16_t count = 0, gso_size = 0;
	uint8_t id_state = 0;
	std::vector<uint64_t> ids;
	std::vector<uint32_t> seqs, lens;

	// Starts the record of segment @id (the vectors keep their capacity).
	void start(uint64_t id_, uint8_t *frame_, uint32_t n_, uint8_t flags_)
	{
		id = id_;
		frame = frame_;
		n = n_;
		flags = flags_;
		live = true;
		encap = 0;
		key.clear();
		view = nullptr;
		view_len = payload_len = 0;
		count = gso_size = 0;
		id_state = 0;
		bytes.clear();
		ids.clear();
		seqs.clear();
		lens.clear();
	}
};

// What one input's runs share, made once per process: buffers, the Pkt pool, the copies of repeated records.
struct Store {
	Arena arena{32u << 20}; // a run takes at most kMaxSegs segments of 64 KiB, their views and GRO packets
	Pkt pool[kMaxSegs];
	std::vector<uint8_t> copy;
	std::vector<uint64_t> engine; // the engine's memory, as the last run left it (tgc_engine_init needs no zeroes)
};

// What check_verdict needs of the matched held packet as it was before the segment (appends change it).
struct HeldBefore {
	uint32_t first_seq, payload_len, gso_size;
	size_t bytes;
};

// Table layouts the fuzzer drives, picked by the input size: the kernel's GRO list (one bucket of 8, every hash
// 0), tungro's table (8 x 8, its own hash), and a tiny table where evictions are the rule; the first two also with
// IPv4 options merged (TGC_ENGINE_IPV4_OPTIONS, the module's default on attached devices).
struct Layout {
	uint32_t buckets, flows, flags;
};
constexpr Layout kLayouts[] = {{1, 8, TGC_ENGINE_CALLER_HASH}, {8, 8, 0}, {2, 2, 0},
			       {1, 8, TGC_ENGINE_CALLER_HASH | TGC_ENGINE_IPV4_OPTIONS}, {8, 8, TGC_ENGINE_IPV4_OPTIONS}};

// One run's trace for the fast stage's differential check: records appended as bytes, packets named by their id.
class Trace {
public:
	template <class T> void put(char tag, const T &v)
	{
		starts_.push_back(bytes_.size());
		bytes_.push_back(static_cast<uint8_t>(tag));
		const auto *p = reinterpret_cast<const uint8_t *>(&v);
		bytes_.insert(bytes_.end(), p, p + sizeof(v));
		events_++;
	}
	void put_bytes(const uint8_t *b, uint32_t n)
	{
		put('b', n);
		bytes_.insert(bytes_.end(), b, b + n);
	}
	void clear()
	{
		bytes_.clear();
		starts_.clear();
		events_ = 0;
	}
	// The event the byte at @at belongs to: its index and offset.
	std::pair<size_t, size_t> event_at(size_t at) const
	{
		size_t i = 0;
		while (i + 1 < starts_.size() && starts_[i + 1] <= at)
			i++;
		return {i, starts_.empty() ? 0 : starts_[i]};
	}
	// The op calls' records, written alike by every run: a refused append ('n'), an append ('a' the merge record,
	// 'p' the segment's, 'i' the packets), a completion ('c', 'i'; then put_bytes() of the finished packet) and a
	// delivery ('d', 'i'). Packets are named by their ids; a delivery's held is the caller's handle, named by the
	// harness's 'r' record.
	void nomerge(uint64_t held, uint64_t seg) { put('n', std::make_pair(held, seg)); }
	void append(const tgc_merge *m, uint64_t held, uint64_t seg)
	{
		// Field by field: the record's tail after pad[] is the struct's own padding, written by no one.
		const uint32_t rec[] = {m->held_len, static_cast<uint32_t>(m->flags_off | m->held_flags << 16 | m->id_state << 24),
					static_cast<uint32_t>(m->fixedid | m->pad[0] << 8 | m->pad[1] << 16 | m->pad[2] << 24)};
		put('a', rec);
		put('p', *m->pkt);
		put('i', std::make_pair(held, seg));
	}
	void complete(const tgc_done *d, uint64_t held)
	{
		put('c', *d);
		put('i', held);
	}
	void deliver(const tgc_rx_result *r, uint64_t seg)
	{
		tgc_rx_result rec = *r;
		rec.held = nullptr;
		put('d', rec);
		put('i', seg);
	}
	// Into @out: this trace without the per-segment records ('r', 's'): the op calls only.
	void ops_only(Trace &out) const
	{
		out.clear();
		for (size_t i = 0; i < starts_.size(); i++) {
			const size_t from = starts_[i], to = i + 1 < starts_.size() ? starts_[i + 1] : bytes_.size();
			if (bytes_[from] == 'r' || bytes_[from] == 's')
				continue;
			out.starts_.push_back(out.bytes_.size());
			out.bytes_.insert(out.bytes_.end(), bytes_.begin() + static_cast<long>(from),
					  bytes_.begin() + static_cast<long>(to));
			out.events_++;
		}
	}
	const std::vector<uint8_t> &bytes() const { return bytes_; }
	size_t events() const { return events_; }

private:
	std::vector<uint8_t> bytes_;
	std::vector<size_t> starts_;
	size_t events_ = 0;
};

// Segment @cookie, which the engine gives back to a run whose segments are @pool: one of them, live until now, and
// no longer.
Pkt &give_back(Pkt *pool, void *cookie)
{
	Pkt *p = static_cast<Pkt *>(cookie);
	FUZZ_CHECK(p >= pool && p < pool + kMaxSegs && p->live, "the engine gave back a packet it does not have");
	p->live = false;
	return *p;
}

// An engine of @l's table with @flags in @store's memory, calling @ops with @ctx.
tgc_engine *make_engine(Store &store, const Layout &l, uint32_t flags, const tgc_engine_ops *ops, void *ctx)
{
	const uint32_t size = tgc_engine_size(l.buckets, l.flows);
	if (store.engine.size() < (size + 7) / 8)
		store.engine.resize((size + 7) / 8);
	tgc_engine *e = tgc_engine_init(store.engine.data(), size, l.buckets, l.flows, flags, ops, ctx);
	FUZZ_CHECK(e != nullptr, "engine %ux%u refused", l.buckets, l.flows);
	return e;
}

class Harness {
public:
	Harness(unsigned align, const Layout &l, uint32_t extra_flags, Store &store, Delivery &out, Trace &trace)
		: align_(align), mode_(l.flags), arena_(store.arena), pool_(store.pool), out_(out), trace_(trace)
	{
		static const tgc_engine_ops ops = {op_append, op_complete, op_deliver};
		engine_ = make_engine(store, l, l.flags | extra_flags, &ops, this);
	}

	void stats(tgc_engine_stats *st) const
	{
		std::memset(st, 0, sizeof(*st));
		tgc_engine_get_stats(engine_, st);
	}

	// One segment of n bytes from the outer network header.
	void receive(const uint8_t *src, uint32_t n, uint8_t flags)
	{
		const uint64_t id = out_.add(src, n);
		FUZZ_CHECK(id < kMaxSegs, "segment %llu of a run", (unsigned long long)id);
		Pkt *seg = &pool_[id];
		seg->start(id, arena_.copy(src, n, align_), n, flags);
		live_++;
		const uint32_t hl = std::min(n, (flags & fuzzin::kShortView) ? fuzzin::kShortViewLen : kHdrView);
		uint8_t *view = arena_.copy(seg->frame, hl, align_);
		const unsigned encap = pick_encap(flags, seg->frame, n);
		seg->encap = encap;

		// Oracles on the building blocks, computed here on their own.
		tgc_pkt pkt;
		std::memset(&pkt, 0xa5, sizeof(pkt));
		const unsigned r = tgc_parse_as(view, hl, n, encap, mode_, TGC_IN_UDP_GRO, &pkt);
		FUZZ_CHECK(r < TGC_R_COUNT, "parse reason %u", r);
		tgc_pkt where;
		std::memset(&where, 0xa5, sizeof(where));
		const int located = tgc_flow_of(view, hl, encap, &where);
		if (located)
			check_located(where, encap, hl, r ? nullptr : &pkt);
		// The flow's held packet is looked up for a parsed segment, and for a refused one whose outer header the
		// caller refused too (upper flush, or the outer IP length the engine checks as inet_gro_receive and
		// ipv6_gro_receive do, for tunnels and plain TCP alike).
		const bool outer_flush = (flags & fuzzin::kUpperFlush) || outer_len_differs(view, hl, n);
		const tgc_pkt *flow = !r ? &pkt : (outer_flush && located) ? &where : nullptr;
		if (!r)
			check_parsed(pkt, encap, hl, n);
		if (flow) {
			seg->key = flow_key(*flow, view);
			out_.set_flow(id, seg->key);
		}
		Pkt *expect = flow ? match_of(*flow, view, seg->key) : nullptr;
		HeldBefore before{};
		const uint64_t expect_id = expect ? expect->id + 1 : 0; // it may be completed by the time we trace
		if (expect)
			before = {expect->seqs[0], expect->payload_len, expect->gso_size, expect->bytes.size()};

		const tgc_seg s = make_seg(seg, view, hl);
		nomerge_ = flags & fuzzin::kNoMerge;

		tgc_rx_result res;
		std::memset(&res, 0xa5, sizeof(res));
		tgc_engine_receive(engine_, &s, seg, &res);

		FUZZ_CHECK(res.parsed == !r && (r == 0 || res.v.reason == r), "parsed %u reason %u, tgc_parse said %u",
			   res.parsed, res.v.reason, r);
		FUZZ_CHECK(res.located == (r && flow), "located %u, expected %d", res.located, r && flow);
		FUZZ_CHECK(res.held == expect, "the engine found another held packet than the flow's");
		check_verdict(res, expect ? &before : nullptr);
		if (res.v.action == TGC_HOLD)
			hold(seg, res.pkt, view);
		Arena::release(view, hl); // the engine keeps no pointer into a segment's view

		tgc_engine_stats st;
		stats(&st);
		FUZZ_CHECK(st.segs == out_.count() && st.merged + st.held + st.passed == st.segs, "stats %u: %u+%u+%u", st.segs,
			   st.merged, st.held, st.passed);
		FUZZ_CHECK(st.held_now == held_.size(), "engine holds %u, harness %zu", st.held_now, held_.size());
		FUZZ_CHECK(st.fastpath <= st.merged, "fast path %u of %u merged", st.fastpath, st.merged);
		tgc_rx_result traced = res;
		traced.held = reinterpret_cast<void *>(static_cast<uintptr_t>(res.held ? expect_id : 0)); // res.held == expect
		trace_.put('r', traced);
		st.fastpath = 0;
		trace_.put('s', st);
		if (flags & fuzzin::kEndPoll)
			tgc_engine_flush(engine_);
		else if (flags & fuzzin::kAgeFlush)
			tgc_engine_flush_before(engine_, static_cast<uint32_t>(id - fuzzin::kAgeFlushSegs));
	}

	void finish()
	{
		tgc_engine_flush(engine_);
		FUZZ_CHECK(held_.empty() && live_ == 0, "%zu held, %u segments never given back", held_.size(), live_);
		out_.finish();
	}

	// The engine's segment record for @seg, its header view @view of @hl bytes: as the module builds it, with the
	// caller's bits the record's flags ask for. The burst run's too.
	static tgc_seg make_seg(const Pkt *seg, const uint8_t *view, uint32_t hl)
	{
		tgc_seg s{};
		s.in = TGC_IN_UDP_GRO;
		s.hdr = view;
		s.data = seg->frame;
		s.hdr_len = hl;
		s.pkt_len = seg->n;
		s.encap = static_cast<uint8_t>(seg->encap);
		s.time = static_cast<uint32_t>(seg->id);
		if (seg->flags & fuzzin::kUpperFlush)
			s.in |= TGC_IN_UPPER_FLUSH;
		if (seg->flags & fuzzin::kCsumCheck)
			s.in |= TGC_IN_CSUM_CHECK;
		return s;
	}

private:
	// The held packet of the flow by the harness's model; on the way, tgc_same_flow must agree with the flow
	// identity for every held packet, and a flow has at most one.
	Pkt *match_of(const tgc_pkt &flow, const uint8_t *view, const FlowKey &key)
	{
		Pkt *m = nullptr;
		for (Pkt *h : held_) {
			const int same = tgc_same_flow(&flow, view, h->view, h->view_len);
			FUZZ_CHECK(same == (h->key == key), "same_flow %d against a held packet disagrees with flow identity",
				   same);
			if (same) {
				FUZZ_CHECK(!m, "two held packets of one flow");
				m = h;
			}
		}
		return m;
	}

	void check_verdict(const tgc_rx_result &r, const HeldBefore *match)
	{
		const tgc_verdict &v = r.v;
		FUZZ_CHECK(v.action >= TGC_MERGE && v.action <= TGC_PASS, "action %u", v.action);
		FUZZ_CHECK(v.reason < TGC_R_COUNT, "reason %u", v.reason);
		FUZZ_CHECK(match || (v.action != TGC_MERGE && !v.flush_held), "action %u flush %u without a held packet",
			   v.action, v.flush_held);
		FUZZ_CHECK(!match || v.action == TGC_MERGE || v.flush_held, "held packet of the flow left behind");
		FUZZ_CHECK(!r.retried || (nomerge_ && v.reason == TGC_R_NOMERGE && v.flush_held), "retry %u reason %s",
			   r.retried, tgc_reason_name(v.reason));
		if (v.action != TGC_MERGE)
			return;
		const tgc_pkt &pkt = r.pkt;
		FUZZ_CHECK(!nomerge_, "merged although the append failed");
		const bool udp = tgc_pkt_is_udp(&pkt);
		// UDP: the 64th datagram merges and ends the packet (UDP_GRO_CNT_MAX), counted as SIZE.
		FUZZ_CHECK(v.reason == TGC_R_NONE || v.reason == TGC_R_END || v.reason == TGC_R_SHORT ||
				   (udp && v.reason == TGC_R_SIZE && v.flush_held),
			   "merge with reason %s", tgc_reason_name(v.reason));
		FUZZ_CHECK(!pkt.padded && pkt.payload_len > 0 && pkt.payload_len <= match->gso_size,
			   "merged %u bytes (padded %u) into gso_size %u", pkt.payload_len, pkt.padded, match->gso_size);
		FUZZ_CHECK(udp || match->first_seq + match->payload_len == pkt.seq, "merged seq %u is not next", pkt.seq);
		FUZZ_CHECK(match->bytes + pkt.payload_len < TGC_MAX_GRO_BYTES, "aggregate %zu+%u", match->bytes,
			   pkt.payload_len);
		FUZZ_CHECK((v.held_flags & ~0x09u) == 0, "held_flags %#x", v.held_flags);
		FUZZ_CHECK(r.flags_off == (udp ? 0u : pkt.tcp_off + TGC_TCP_FLAGS_OFF) && (!udp || !v.held_flags),
			   "flags_off %u", r.flags_off);
	}

	void hold(Pkt *h, const tgc_pkt &pkt, const uint8_t *view)
	{
		FUZZ_CHECK(!h->key.empty(), "held a segment without a flow");
		h->view_len = pkt.payload_off;
		h->view = arena_.copy(view, h->view_len, 0);
		h->bytes.assign(h->frame, h->frame + pkt.payload_off + pkt.payload_len); // never the padding
		h->first = pkt;
		h->payload_len = pkt.payload_len;
		h->count = 1;
		h->gso_size = static_cast<uint16_t>(pkt.payload_len);
		h->ids.push_back(h->id);
		h->seqs.push_back(pkt.seq);
		h->lens.push_back(pkt.payload_len);
		held_.push_back(h);
	}

	// The segment @cookie the engine gives back: live until now, and no longer.
	Pkt &take(void *cookie)
	{
		live_--;
		return give_back(pool_, cookie);
	}

	static int op_append(void *ctx, void *held, void *segp, const tgc_merge *m)
	{
		Harness *hs = static_cast<Harness *>(ctx);
		if (hs->nomerge_) {
			hs->trace_.nomerge(static_cast<Pkt *>(held)->id, static_cast<Pkt *>(segp)->id);
			return -1; // the module's tungro_append failing
		}
		Pkt *h = static_cast<Pkt *>(held);
		Pkt *seg = &hs->take(segp);
		const tgc_pkt &pkt = *m->pkt;
		hs->trace_.append(m, h->id, seg->id);
		FUZZ_CHECK(m->held_len == h->bytes.size(), "engine's held length %u, harness's %zu", m->held_len,
			   h->bytes.size());
		FUZZ_CHECK(m->flags_off == (tgc_pkt_is_udp(&pkt) ? 0u : h->first.tcp_off + TGC_TCP_FLAGS_OFF),
			   "flags_off %u", m->flags_off);
		h->bytes.insert(h->bytes.end(), seg->frame + pkt.payload_off, seg->frame + pkt.payload_off + pkt.payload_len);
		Arena::release(seg->frame, seg->n);
		h->payload_len += pkt.payload_len;
		h->count++;
		h->id_state = m->id_state;
		h->ids.push_back(seg->id);
		h->seqs.push_back(pkt.seq);
		h->lens.push_back(pkt.payload_len);
		// The core reads the held flags on the next segment, so both copies get the FIN/PSH bits.
		h->view[m->flags_off] |= m->held_flags;
		h->bytes[m->flags_off] |= m->held_flags;
		return 0;
	}

	// gro_complete (tgc_finish: the outer header as inet_gro_complete, then the core), then checks on the result.
	static void op_complete(void *ctx, void *held, const tgc_done *d)
	{
		Harness *hs = static_cast<Harness *>(ctx);
		Pkt &h = hs->take(held);
		Arena::release(h.frame, h.n); // h.bytes holds what the packet is now
		hs->trace_.complete(d, h.id);
		auto it = std::find(hs->held_.begin(), hs->held_.end(), &h);
		FUZZ_CHECK(it != hs->held_.end(), "completed a packet that was not held");
		hs->held_.erase(it);
		const tgc_pkt &f = h.first;
		const uint32_t n = static_cast<uint32_t>(h.bytes.size());
		FUZZ_CHECK(d->count == h.count && d->total_len == n && d->payload_len == h.payload_len &&
				   d->gso_size == h.gso_size && d->id_state == h.id_state,
			   "engine's packet %u segs %u bytes, harness's %u segs %u bytes", d->count, d->total_len, h.count, n);
		const bool udp = tgc_pkt_is_udp(&f);
		for (size_t i = 0; i + 1 < h.lens.size(); i++) {
			FUZZ_CHECK(udp || h.seqs[i] + h.lens[i] == h.seqs[i + 1], "segment %zu of %u not consecutive", i,
				   h.count);
			FUZZ_CHECK(h.lens[i] == h.gso_size, "segment %zu of %u: %u bytes, gso_size %u", i, h.count, h.lens[i],
				   h.gso_size);
		}
		// The GRO packet as the caller finishes it, in its own exact buffer: then it must parse again as the same
		// flow and train.
		uint8_t *b = hs->arena_.copy(h.bytes.data(), n, hs->align_);
		if (h.count > 1) {
			FUZZ_CHECK(n <= 0xffff || (f.nlayers == 1 && f.inner_version == 6 && n - 40 <= 0xffff),
				   "GRO packet of %u bytes", n);
			tgc_completion c;
			const int rc = tgc_finish(b, n, d, &c);
			FUZZ_CHECK(rc == 0, "tgc_finish failed on a held packet of %u segments", h.count);
			FUZZ_CHECK(c.tcp_off == f.tcp_off - f.inner_off && c.csum_offset == (udp ? 6 : 16) && c.udp == udp &&
					   c.tcpv6 == (f.inner_version == 6),
				   "completion tcp_off %u csum_offset %u tcpv6 %u", c.tcp_off, c.csum_offset, c.tcpv6);
			// The tunnel row the module takes the GSO type from (tungro_gro.c): the packet's own IP versions.
			const tgc_tunnel *t = tgc_tunnel_of(f.encap);
			FUZZ_CHECK(f.nlayers == 1 ? !t
						  : t && t->outer_version == b[0] >> 4 && t->inner_version == f.inner_version &&
							    t->gso == (t->outer_version == 4 ? TGC_GSO_IPXIP4 : TGC_GSO_IPXIP6),
				   "tunnel row of encap %u for outer IPv%u, inner IPv%u", f.encap, b[0] >> 4, f.inner_version);
		}

		hs->trace_.put_bytes(b, n); // finished: what goes up
		tgc_pkt r;
		const unsigned rc = tgc_parse_as(b, std::min(n, kHdrView), n, h.encap, hs->mode_, TGC_IN_UDP_GRO, &r);
		FUZZ_CHECK(rc == TGC_R_NONE, "completed packet of %u segments, %u bytes does not re-parse: %s", h.count, n,
			   tgc_reason_name(rc));
		FUZZ_CHECK(r.seq == h.seqs[0] && r.payload_len == h.payload_len && !r.padded && r.tcp_off == f.tcp_off,
			   "re-parsed seq %u len %u, held seq %u len %u", r.seq, r.payload_len, h.seqs[0], h.payload_len);
		FUZZ_CHECK(flow_key(r, b) == h.key, "completed packet changed flow");
		FUZZ_CHECK(outer_len_ok(b, n), "outer IP header checksum/length");
		if (r.nlayers == 2 && r.inner_version == 4)
			FUZZ_CHECK(ipv4_hdr_ok(b + r.inner_off) && ld16(b + r.inner_off + 2) == n - r.inner_off,
				   "inner IPv4 header checksum/length");
		if (udp)
			FUZZ_CHECK(ld16(b + r.tcp_off + 4) == n - r.tcp_off && ld16(b + r.tcp_off + 6) != 0,
				   "UDP length %u of a %u-byte datagram, or no checksum", ld16(b + r.tcp_off + 4),
				   n - r.tcp_off);
		if (h.count > 1) {
			// CHECKSUM_PARTIAL: the device sums from the TCP (UDP) header to the end over the pseudo-header sum
			// tgc_complete left in the field, and writes the complement. The result must verify.
			uint8_t *ck = b + r.tcp_off + (udp ? 6 : 16);
			st16(ck, static_cast<uint16_t>(~fold(sum16(b + r.tcp_off, n - r.tcp_off))));
			FUZZ_CHECK(tgc_tcp_csum_ok(&r, b, n), "finished TCP checksum of the GRO packet is wrong");
		}
		hs->out_.gro(h.ids, b, n, f, h.gso_size, h.id_state);
	}

	static void op_deliver(void *ctx, void *segp, const tgc_rx_result *r)
	{
		Harness *hs = static_cast<Harness *>(ctx);
		Pkt *seg = &hs->take(segp);
		Arena::release(seg->frame, seg->n);
		FUZZ_CHECK(r->v.action == TGC_PASS, "delivered with action %u", r->v.action);
		hs->trace_.deliver(r, seg->id);
		// Segments that never parsed and whose flow was not located have no flow to keep order with.
		hs->out_.single(seg->id);
	}

	unsigned align_;
	uint32_t mode_; // the engine's flags: tgc_parse_as() sees segments as the engine does
	Arena &arena_;
	Pkt *pool_;     // segment i of the run is pool_[i]
	Delivery &out_;
	Trace &trace_;
	bool nomerge_ = false;
	tgc_engine *engine_ = nullptr;
	unsigned live_ = 0;       // segments the engine has not given back yet
	std::vector<Pkt *> held_; // the held packets, by the harness's model
};

// Copy i of a repeated record @seg, into @c: seq advanced by i segments, IPv4 IDs (plain, or IPIP inner) by i,
// checksums redone.
void advance(std::vector<uint8_t> &c, const uint8_t *seg, uint32_t n, const tgc_pkt &pkt, unsigned i, bool tcp_csum_ok)
{
	c.assign(seg, seg + n);
	if (!tgc_pkt_is_udp(&pkt)) // a datagram has no sequence number
		st32(c.data() + pkt.tcp_off + 4, pkt.seq + i * pkt.payload_len);
	uint8_t *id_hdr = pkt.inner_version == 4 ? c.data() + pkt.inner_off : nullptr;
	if (id_hdr) {
		st16(id_hdr + 4, static_cast<uint16_t>(ld16(id_hdr + 4) + i));
		tgc_fix_ipv4(id_hdr, ld16(id_hdr + 2));
	}
	if (tcp_csum_ok)
		set_tcp_csum(c.data(), pkt);
}

// The input's segments in the order the engine receives them: each record, then its repeat copies (advance()), at
// most kMaxSegs in all. fn(bytes, n, flags): the record's flags, kEndPoll and kAgeFlush only with its last copy.
// @mode: the engine's flags, as a copy's parse must see it.
template <class Fn> void for_each_segment(const uint8_t *data, size_t size, uint32_t mode, Store &store, Fn fn)
{
	unsigned segs = 0;
	for_each_record(data, size, [&](uint8_t flags, uint8_t repeat, const uint8_t *p, uint32_t n) {
		const uint8_t per_copy = flags & static_cast<uint8_t>(~(fuzzin::kEndPoll | fuzzin::kAgeFlush));
		fn(p, n, repeat ? per_copy : flags);
		segs++;
		if (repeat && segs < kMaxSegs) {
			// The record in its own exact buffer, as every byte the core reads.
			const uint8_t *seg = store.arena.copy(p, n, 0);
			const unsigned encap = pick_encap(flags, seg, n);
			tgc_pkt pkt;
			const bool parses = tgc_parse_as(seg, std::min(n, kHdrView), n, encap, mode, TGC_IN_UDP_GRO, &pkt) ==
						    TGC_R_NONE && !pkt.padded;
			const bool csum_ok = parses && tgc_tcp_csum_ok(&pkt, seg, n);
			for (unsigned i = 1; i <= repeat && segs < kMaxSegs; i++, segs++) {
				if (parses)
					advance(store.copy, seg, n, pkt, i, csum_ok);
				fn(parses ? store.copy.data() : seg, n, i == repeat ? flags : per_copy);
			}
		}
		return segs < kMaxSegs;
	});
}

// One run of the input's train on @layout's engine with @extra_flags, into @trace; its final counters into @st.
void run(const uint8_t *data, size_t size, const Layout &layout, uint32_t extra_flags, Store &store, Delivery &out,
	 Trace &trace, tgc_engine_stats *st)
{
	out.reset();
	trace.clear();
	store.arena.reset();
	Harness h(size & 1 ? 2 : 0, layout, extra_flags, store, out, trace);
	for_each_segment(data, size, layout.flags, store,
			 [&h](const uint8_t *p, uint32_t n, uint8_t flags) { h.receive(p, n, flags); });
	h.finish();
	h.stats(st);
}

// The module's way in: no result record, a poll's segments in one tgc_engine_receive_burst() call. The ops only
// record (the Harness's op records, byte for byte) and rebuild each GRO packet to finish it and record its bytes.
class Burst {
public:
	Burst(unsigned align, const Layout &l, Store &store, Trace &trace)
		: align_(align), arena_(store.arena), pool_(store.pool), trace_(trace)
	{
		static const tgc_engine_ops ops = {op_append, op_complete, op_deliver};
		engine_ = make_engine(store, l, l.flags, &ops, this);
	}

	// Segment @id of the train; the stretch goes to the engine when the record ends a poll or ages the table.
	void add(uint64_t id, const uint8_t *src, uint32_t n, uint8_t flags)
	{
		FUZZ_CHECK(id < kMaxSegs, "segment %llu of a run", (unsigned long long)id);
		Pkt *seg = &pool_[id];
		seg->start(id, arena_.copy(src, n, align_), n, flags);
		seg->encap = pick_encap(flags, seg->frame, n);
		const uint32_t hl = std::min(n, (flags & fuzzin::kShortView) ? fuzzin::kShortViewLen : kHdrView);
		segs_.push_back(Harness::make_seg(seg, arena_.copy(seg->frame, hl, align_), hl));
		cookies_.push_back(seg);
		if (flags & (fuzzin::kEndPoll | fuzzin::kAgeFlush)) {
			drain();
			if (flags & fuzzin::kEndPoll)
				tgc_engine_flush(engine_);
			else
				tgc_engine_flush_before(engine_, static_cast<uint32_t>(id - fuzzin::kAgeFlushSegs));
		}
	}

	void finish(tgc_engine_stats *st)
	{
		drain();
		tgc_engine_flush(engine_);
		std::memset(st, 0, sizeof(*st));
		tgc_engine_get_stats(engine_, st);
	}

private:
	void drain()
	{
		tgc_engine_receive_burst(engine_, segs_.data(), cookies_.data(), static_cast<uint32_t>(segs_.size()));
		for (const tgc_seg &s : segs_)
			Arena::release(s.hdr, s.hdr_len);
		segs_.clear();
		cookies_.clear();
	}

	static int op_append(void *ctx, void *held, void *segp, const tgc_merge *m)
	{
		Burst *b = static_cast<Burst *>(ctx);
		Pkt &h = *static_cast<Pkt *>(held), *seg = static_cast<Pkt *>(segp);
		if (seg->flags & fuzzin::kNoMerge) {
			b->trace_.nomerge(h.id, seg->id);
			return -1;
		}
		give_back(b->pool_, segp);
		const tgc_pkt &pkt = *m->pkt;
		b->trace_.append(m, h.id, seg->id);
		if (h.bytes.empty()) // the held packet's first merge: its first segment, as the engine holds it
			h.bytes.assign(h.frame, h.frame + std::min(m->held_len, h.n));
		FUZZ_CHECK(m->held_len == h.bytes.size(), "held length %u, %zu bytes held", m->held_len, h.bytes.size());
		h.bytes.insert(h.bytes.end(), seg->frame + pkt.payload_off, seg->frame + pkt.payload_off + pkt.payload_len);
		h.bytes[m->flags_off] |= m->held_flags;
		Arena::release(seg->frame, seg->n);
		return 0;
	}

	static void op_complete(void *ctx, void *held, const tgc_done *d)
	{
		Burst *b = static_cast<Burst *>(ctx);
		Pkt &h = give_back(b->pool_, held);
		b->trace_.complete(d, h.id);
		if (h.bytes.empty()) // never merged: the segment as held, without its padding
			h.bytes.assign(h.frame, h.frame + std::min(d->total_len, h.n));
		Arena::release(h.frame, h.n);
		const uint32_t n = static_cast<uint32_t>(h.bytes.size());
		FUZZ_CHECK(n == d->total_len, "GRO packet of %u bytes, the engine says %u", n, d->total_len);
		uint8_t *pkt = b->arena_.copy(h.bytes.data(), n, b->align_);
		tgc_completion c;
		FUZZ_CHECK(d->count < 2 || tgc_finish(pkt, n, d, &c) == 0, "tgc_finish failed on %u segments", d->count);
		b->trace_.put_bytes(pkt, n);
	}

	static void op_deliver(void *ctx, void *segp, const tgc_rx_result *r)
	{
		Burst *b = static_cast<Burst *>(ctx);
		Pkt &seg = give_back(b->pool_, segp);
		Arena::release(seg.frame, seg.n);
		b->trace_.deliver(r, seg.id);
	}

	unsigned align_;
	Arena &arena_;
	Pkt *pool_;
	Trace &trace_;
	tgc_engine *engine_ = nullptr;
	std::vector<tgc_seg> segs_;
	std::vector<void *> cookies_;
};

// The burst run of the input (Burst) into @trace, its final counters into @st.
void run_burst(const uint8_t *data, size_t size, const Layout &layout, Store &store, Trace &trace,
	       tgc_engine_stats *st)
{
	trace.clear();
	store.arena.reset();
	Burst b(size & 1 ? 2 : 0, layout, store, trace);
	uint64_t id = 0;
	for_each_segment(data, size, layout.flags, store,
			 [&b, &id](const uint8_t *p, uint32_t n, uint8_t flags) { b.add(id++, p, n, flags); });
	b.finish(st);
}

// Where two traces first differ, for the failure message.
void report_diff(const char *what, const Trace &x, const Trace &y)
{
	const auto &a = x.bytes(), &b = y.bytes();
	size_t at = 0;
	while (at < a.size() && at < b.size() && a[at] == b[at])
		at++;
	const auto [ev, start] = x.event_at(at);
	FUZZ_CHECK(false, "%s: traces of %zu and %zu events, first difference at event %zu (record '%c', byte %zu of it: "
			  "%#x against %#x)",
		   what, x.events(), y.events(), ev, start < a.size() ? a[start] : '?', at - start, at < a.size() ? a[at] : 0,
		   at < b.size() ? b[at] : 0);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	// Alignment from the input size's parity, the table layout from the next bits: every placement and layout
	// gets exercised without a format byte. Each input three times: with the fast stage, without it
	// (TGC_ENGINE_NO_FASTPATH), and in bursts without result records; the traces must be the same.
	static Store store;
	static Delivery out;
	static Trace fast, slow, burst, fast_ops;
	const Layout &layout = kLayouts[(size >> 1) % (sizeof(kLayouts) / sizeof(kLayouts[0]))];
	tgc_engine_stats fast_st, slow_st, burst_st;
	run(data, size, layout, 0, store, out, fast, &fast_st);
	run(data, size, layout, TGC_ENGINE_NO_FASTPATH, store, out, slow, &slow_st);
	FUZZ_CHECK(slow_st.fastpath == 0, "%u fast-path merges with TGC_ENGINE_NO_FASTPATH", slow_st.fastpath);
	if (fast.bytes() != slow.bytes())
		report_diff("fast stage and full parse differ", fast, slow);
	run_burst(data, size, layout, store, burst, &burst_st);
	fast.ops_only(fast_ops);
	if (fast_ops.bytes() != burst.bytes())
		report_diff("tgc_engine_receive_burst's op calls differ from tgc_engine_receive's", fast_ops, burst);
	FUZZ_CHECK(std::memcmp(&fast_st, &burst_st, sizeof(fast_st)) == 0,
		   "tgc_engine_receive_burst: counters differ (segs %u/%u merged %u/%u completed %u/%u fast %u/%u)",
		   fast_st.segs, burst_st.segs, fast_st.merged, burst_st.merged, fast_st.completed, burst_st.completed,
		   fast_st.fastpath, burst_st.fastpath);
	return 0;
}
