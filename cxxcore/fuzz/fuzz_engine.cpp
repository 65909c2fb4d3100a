// fuzz_engine: libFuzzer harness of tungro's engine. Arbitrary bytes become a train of segments (format in fuzz_input.hpp) that
// runs through tungro's engine (tgc_engine_receive: the core's one receive loop, tgc_receive, on a flow table)
// with the harness's byte-vector buffer mechanics as the engine's ops. The table is the kernel's GRO list (one
// bucket of 8, hash 0), tungro's 8 x 8 with its own hash, or a 2 x 2 one, chosen by the input size. The harness
// keeps its own model of every held packet and checks the engine against it.
//
// Every segment and every header view lives in its own heap allocation of exactly the bytes present, so ASan
// reports any read past them. Invariants (abort on violation):
// UDP GRO is allowed for every segment (TGC_IN_UDP_GRO: the glue found a UDP_GRO socket), so UDP datagrams merge
// under the same invariants (no sequence numbers; the UDP length and checksum instead of TCP's). The receive
// harness (the offload path's model) never sets it.
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
//     deliveries) in order, and the counters after every segment but the fast-path one.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
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
// harness's own model of it, checked against what the engine reports.
struct Pkt {
	uint64_t id = 0;
	Buf frame;
	unsigned encap = 0;
	std::string key;                 // flow identity; empty for a segment that has no flow (refused, not located)
	// Held packets only:
	std::unique_ptr<uint8_t[]> view; // first segment's headers, exactly payload_off bytes: all the core may read
	uint32_t view_len = 0;
	std::vector<uint8_t> bytes;      // first segment (no padding), then each merged payload
	tgc_pkt first{};
	uint32_t payload_len = 0;
	uint16_t count = 0, gso_size = 0;
	uint8_t id_state = 0;
	std::vector<uint64_t> ids;
	std::vector<uint32_t> seqs, lens;
	Pkt(const uint8_t *src, uint32_t n, unsigned align) : frame(src, n, align) {}
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
	void put_bytes(const std::vector<uint8_t> &b)
	{
		put('b', b.size());
		bytes_.insert(bytes_.end(), b.begin(), b.end());
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
	const std::vector<uint8_t> &bytes() const { return bytes_; }
	size_t events() const { return events_; }

private:
	std::vector<uint8_t> bytes_;
	std::vector<size_t> starts_;
	size_t events_ = 0;
};

class Harness {
public:
	Harness(unsigned align, const Layout &l, uint32_t extra_flags, Delivery &out, Trace &trace)
		: align_(align), mode_(l.flags), out_(out), trace_(trace)
	{
		static const tgc_engine_ops ops = {op_append, op_complete, op_deliver};
		const uint32_t size = tgc_engine_size(l.buckets, l.flows);
		mem_.reset(new uint64_t[(size + 7) / 8]);
		engine_ = tgc_engine_init(mem_.get(), size, l.buckets, l.flows, l.flags | extra_flags, &ops, this);
		FUZZ_CHECK(engine_ != nullptr, "engine %ux%u refused", l.buckets, l.flows);
	}

	uint32_t fastpath() const
	{
		tgc_engine_stats st;
		tgc_engine_get_stats(engine_, &st);
		return st.fastpath;
	}

	bool full() const { return out_.count() >= kMaxSegs; }

	// One segment of n bytes from the outer network header.
	void receive(const uint8_t *src, uint32_t n, uint8_t flags)
	{
		const uint64_t id = out_.add(src, n);
		auto owned = std::make_unique<Pkt>(src, n, align_);
		Pkt *seg = owned.get();
		seg->id = id;
		const uint32_t hl = std::min(n, (flags & fuzzin::kShortView) ? fuzzin::kShortViewLen : kHdrView);
		Buf view(seg->frame.p, hl, align_);
		const unsigned encap = pick_encap(flags, seg->frame.p, n);
		seg->encap = encap;

		// Oracles on the building blocks, computed here on their own.
		tgc_pkt pkt;
		std::memset(&pkt, 0xa5, sizeof(pkt));
		const unsigned r = tgc_parse_as(view.p, hl, n, encap, mode_, TGC_IN_UDP_GRO, &pkt);
		FUZZ_CHECK(r < TGC_R_COUNT, "parse reason %u", r);
		tgc_pkt where;
		std::memset(&where, 0xa5, sizeof(where));
		const int located = tgc_flow_of(view.p, hl, encap, &where);
		if (located)
			check_located(where, encap, hl, r ? nullptr : &pkt);
		// The flow's held packet is looked up for a parsed segment, and for a refused one whose outer header the
		// caller refused too (upper flush, or the outer IP length the engine checks as inet_gro_receive and
		// ipv6_gro_receive do, for tunnels and plain TCP alike).
		const bool outer_flush = (flags & fuzzin::kUpperFlush) || outer_len_differs(view.p, hl, n);
		const tgc_pkt *flow = !r ? &pkt : (outer_flush && located) ? &where : nullptr;
		if (!r)
			check_parsed(pkt, encap, hl, n);
		if (flow) {
			seg->key = flow_key(*flow, view.p);
			out_.set_flow(id, seg->key);
		}
		Pkt *expect = flow ? match_of(*flow, view, seg->key) : nullptr;
		HeldBefore before{};
		const uint64_t expect_id = expect ? expect->id + 1 : 0; // it may be freed (completed) by the time we trace
		if (expect)
			before = {expect->seqs[0], expect->payload_len, expect->gso_size, expect->bytes.size()};

		tgc_seg s{};
		s.in = TGC_IN_UDP_GRO;
		s.hdr = view.p;
		s.data = seg->frame.p;
		s.hdr_len = hl;
		s.pkt_len = n;
		s.encap = static_cast<uint8_t>(encap);
		s.time = static_cast<uint32_t>(id);
		if (flags & fuzzin::kUpperFlush)
			s.in |= TGC_IN_UPPER_FLUSH;
		if (flags & fuzzin::kCsumCheck)
			s.in |= TGC_IN_CSUM_CHECK;
		nomerge_ = flags & fuzzin::kNoMerge;
		live_.emplace(seg, std::move(owned));

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

		tgc_engine_stats st;
		tgc_engine_get_stats(engine_, &st);
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
		FUZZ_CHECK(held_.empty() && live_.empty(), "%zu held, %zu segments never given back", held_.size(),
			   live_.size());
		out_.finish();
	}

private:
	// The held packet of the flow by the harness's model; on the way, tgc_same_flow must agree with the flow
	// identity for every held packet, and a flow has at most one.
	Pkt *match_of(const tgc_pkt &flow, const Buf &view, const std::string &key)
	{
		Pkt *m = nullptr;
		for (Pkt *h : held_) {
			const int same = tgc_same_flow(&flow, view.p, h->view.get(), h->view_len);
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

	void hold(Pkt *h, const tgc_pkt &pkt, const Buf &view)
	{
		FUZZ_CHECK(!h->key.empty(), "held a segment without a flow");
		h->view_len = pkt.payload_off;
		h->view.reset(new uint8_t[h->view_len]);
		std::memcpy(h->view.get(), view.p, h->view_len);
		h->bytes.assign(h->frame.p, h->frame.p + pkt.payload_off + pkt.payload_len); // never the padding
		h->first = pkt;
		h->payload_len = pkt.payload_len;
		h->count = 1;
		h->gso_size = static_cast<uint16_t>(pkt.payload_len);
		h->ids.push_back(h->id);
		h->seqs.push_back(pkt.seq);
		h->lens.push_back(pkt.payload_len);
		held_.push_back(h);
	}

	std::unique_ptr<Pkt> take(void *cookie)
	{
		auto it = live_.find(static_cast<Pkt *>(cookie));
		FUZZ_CHECK(it != live_.end(), "the engine gave back a packet it does not have");
		std::unique_ptr<Pkt> p = std::move(it->second);
		live_.erase(it);
		return p;
	}

	static int op_append(void *ctx, void *held, void *segp, const tgc_merge *m)
	{
		Harness *hs = static_cast<Harness *>(ctx);
		if (hs->nomerge_) {
			hs->trace_.put('n', std::make_pair(static_cast<Pkt *>(held)->id, static_cast<Pkt *>(segp)->id));
			return -1; // the module's tungro_append failing
		}
		Pkt *h = static_cast<Pkt *>(held);
		std::unique_ptr<Pkt> seg = hs->take(segp);
		const tgc_pkt &pkt = *m->pkt;
		// Field by field: the record's tail after pad[] is the struct's own padding, written by no one.
		const uint32_t traced[] = {m->held_len, static_cast<uint32_t>(m->flags_off | m->held_flags << 16 | m->id_state << 24),
					   static_cast<uint32_t>(m->fixedid | m->pad[0] << 8 | m->pad[1] << 16 | m->pad[2] << 24)};
		hs->trace_.put('a', traced);
		hs->trace_.put('p', pkt);
		hs->trace_.put('i', std::make_pair(h->id, seg->id));
		FUZZ_CHECK(m->held_len == h->bytes.size(), "engine's held length %u, harness's %zu", m->held_len,
			   h->bytes.size());
		FUZZ_CHECK(m->flags_off == (tgc_pkt_is_udp(&pkt) ? 0u : h->first.tcp_off + TGC_TCP_FLAGS_OFF),
			   "flags_off %u", m->flags_off);
		h->bytes.insert(h->bytes.end(), seg->frame.p + pkt.payload_off, seg->frame.p + pkt.payload_off + pkt.payload_len);
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
		std::unique_ptr<Pkt> hp = hs->take(held);
		Pkt &h = *hp;
		hs->trace_.put('c', *d);
		hs->trace_.put('i', h.id);
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
		if (h.count > 1) {
			FUZZ_CHECK(n <= 0xffff || (f.nlayers == 1 && f.inner_version == 6 && n - 40 <= 0xffff),
				   "GRO packet of %u bytes", n);
			tgc_completion c;
			const int rc = tgc_finish(h.bytes.data(), n, d, &c);
			FUZZ_CHECK(rc == 0, "tgc_finish failed on a held packet of %u segments", h.count);
			FUZZ_CHECK(c.tcp_off == f.tcp_off - f.inner_off && c.csum_offset == (udp ? 6 : 16) && c.udp == udp &&
					   c.tcpv6 == (f.inner_version == 6),
				   "completion tcp_off %u csum_offset %u tcpv6 %u", c.tcp_off, c.csum_offset, c.tcpv6);
		}

		hs->trace_.put_bytes(h.bytes); // finished: what goes up
		// The delivered packet, in its own exact allocation, must parse again as the same flow and train.
		Buf b(h.bytes.data(), n, hs->align_);
		tgc_pkt r;
		const unsigned rc = tgc_parse_as(b.p, std::min(n, kHdrView), n, h.encap, hs->mode_, TGC_IN_UDP_GRO, &r);
		FUZZ_CHECK(rc == TGC_R_NONE, "completed packet of %u segments, %u bytes does not re-parse: %s", h.count, n,
			   tgc_reason_name(rc));
		FUZZ_CHECK(r.seq == h.seqs[0] && r.payload_len == h.payload_len && !r.padded && r.tcp_off == f.tcp_off,
			   "re-parsed seq %u len %u, held seq %u len %u", r.seq, r.payload_len, h.seqs[0], h.payload_len);
		FUZZ_CHECK(flow_key(r, b.p) == h.key, "completed packet changed flow");
		FUZZ_CHECK(outer_len_ok(b.p, n), "outer IP header checksum/length");
		if (r.nlayers == 2 && r.inner_version == 4)
			FUZZ_CHECK(ipv4_hdr_ok(b.p + r.inner_off) && ld16(b.p + r.inner_off + 2) == n - r.inner_off,
				   "inner IPv4 header checksum/length");
		if (udp)
			FUZZ_CHECK(ld16(b.p + r.tcp_off + 4) == n - r.tcp_off && ld16(b.p + r.tcp_off + 6) != 0,
				   "UDP length %u of a %u-byte datagram, or no checksum", ld16(b.p + r.tcp_off + 4),
				   n - r.tcp_off);
		if (h.count > 1) {
			// CHECKSUM_PARTIAL: the device sums from the TCP (UDP) header to the end over the pseudo-header sum
			// tgc_complete left in the field, and writes the complement. The result must verify.
			uint8_t *ck = b.p + r.tcp_off + (udp ? 6 : 16);
			st16(ck, static_cast<uint16_t>(~fold(sum16(b.p + r.tcp_off, n - r.tcp_off))));
			FUZZ_CHECK(tgc_tcp_csum_ok(&r, b.p, n), "finished TCP checksum of the GRO packet is wrong");
		}
		hs->out_.gro(h.ids, b.p, n, f, h.gso_size, h.id_state);
	}

	static void op_deliver(void *ctx, void *segp, const tgc_rx_result *r)
	{
		Harness *hs = static_cast<Harness *>(ctx);
		std::unique_ptr<Pkt> seg = hs->take(segp);
		FUZZ_CHECK(r->v.action == TGC_PASS, "delivered with action %u", r->v.action);
		tgc_rx_result traced = *r;
		traced.held = nullptr; // the caller's handle (the engine translated it): the 'r' record names it
		hs->trace_.put('d', traced);
		hs->trace_.put('i', seg->id);
		// Segments that never parsed and whose flow was not located have no flow to keep order with.
		hs->out_.single(seg->id);
	}

	unsigned align_;
	uint32_t mode_; // the engine's flags: tgc_parse_as() sees segments as the engine does
	Delivery &out_;
	Trace &trace_;
	bool nomerge_ = false;
	std::unique_ptr<uint64_t[]> mem_;
	tgc_engine *engine_ = nullptr;
	std::map<Pkt *, std::unique_ptr<Pkt>> live_; // every segment the engine has not given back yet
	std::vector<Pkt *> held_;                    // the held packets, by the harness's model
};

// Copy i of a repeated record: seq advanced by i segments, IPv4 IDs (plain, or IPIP inner) by i, checksums redone.
std::vector<uint8_t> advance(const std::vector<uint8_t> &seg, const tgc_pkt &pkt, unsigned i, bool tcp_csum_ok)
{
	std::vector<uint8_t> c(seg);
	if (!tgc_pkt_is_udp(&pkt)) // a datagram has no sequence number
		st32(c.data() + pkt.tcp_off + 4, pkt.seq + i * pkt.payload_len);
	uint8_t *id_hdr = pkt.inner_version == 4 ? c.data() + pkt.inner_off : nullptr;
	if (id_hdr) {
		st16(id_hdr + 4, static_cast<uint16_t>(ld16(id_hdr + 4) + i));
		tgc_fix_ipv4(id_hdr, ld16(id_hdr + 2));
	}
	if (tcp_csum_ok)
		set_tcp_csum(c.data(), pkt);
	return c;
}


// One run of the input's train on @layout's engine with @extra_flags, into @trace.
void run(const uint8_t *data, size_t size, const Layout &layout, uint32_t extra_flags, Delivery &out, Trace &trace,
	 uint32_t *fastpath)
{
	out.reset();
	trace.clear();
	Harness h(size & 1 ? 2 : 0, layout, extra_flags, out, trace);
	for_each_record(data, size, [&h, &layout](uint8_t flags, uint8_t repeat, const uint8_t *p, uint32_t n) {
		const uint8_t per_copy = flags & static_cast<uint8_t>(~(fuzzin::kEndPoll | fuzzin::kAgeFlush));
		h.receive(p, n, repeat ? per_copy : flags);
		if (repeat) {
			const std::vector<uint8_t> seg(p, p + n);
			const unsigned encap = pick_encap(flags, p, n);
			tgc_pkt pkt;
			const bool parses = tgc_parse_as(p, std::min(n, kHdrView), n, encap, layout.flags, TGC_IN_UDP_GRO,
							 &pkt) == TGC_R_NONE && !pkt.padded;
			const bool csum_ok = parses && tgc_tcp_csum_ok(&pkt, p, n);
			for (unsigned i = 1; i <= repeat && !h.full(); i++) {
				const std::vector<uint8_t> c = parses ? advance(seg, pkt, i, csum_ok) : seg;
				h.receive(c.data(), n, i == repeat ? flags : per_copy);
			}
		}
		return !h.full();
	});
	*fastpath = h.fastpath();
	h.finish();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	// Alignment from the input size's parity, the table layout from the next bits: every placement and layout
	// gets exercised without a format byte. Each input twice: with the fast stage and without it
	// (TGC_ENGINE_NO_FASTPATH); the traces must be the same.
	static Delivery out;
	static Trace fast, slow;
	const Layout &layout = kLayouts[(size >> 1) % (sizeof(kLayouts) / sizeof(kLayouts[0]))];
	uint32_t fast_merges = 0, slow_merges = 0;
	run(data, size, layout, 0, out, fast, &fast_merges);
	run(data, size, layout, TGC_ENGINE_NO_FASTPATH, out, slow, &slow_merges);
	FUZZ_CHECK(slow_merges == 0, "%u fast-path merges with TGC_ENGINE_NO_FASTPATH", slow_merges);
	if (fast.bytes() != slow.bytes()) {
		const auto &a = fast.bytes(), &b = slow.bytes();
		size_t at = 0;
		while (at < a.size() && at < b.size() && a[at] == b[at])
			at++;
		const auto [ev, start] = fast.event_at(at);
		FUZZ_CHECK(false, "fast stage and full parse differ: traces of %zu and %zu events, first at event %zu "
				  "(record '%c', byte %zu of it: %#x against %#x); %u fast merges",
			   fast.events(), slow.events(), ev, start < a.size() ? a[start] : '?', at - start,
			   at < a.size() ? a[at] : 0, at < b.size() ? b[at] : 0, fast_merges);
	}
	return 0;
}
