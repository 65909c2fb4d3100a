// Cases "Engine" (E01-E04) of ../shared/cases/gro-cases.md on tungro's engine (tgc_engine_*), and issue 8's
// crafted-train scenario compared exactly; plus the receive loop's own contract (retry, foreign, located flow).
// Every case runs on the kernel's layout (one bucket of 8 fed hash 0) and on tungro's (8 x 8, its own hash)
// through GoogleTest parameters, so one body states what must hold on both.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <utility>

#include "test_util.hpp"

using namespace frames;

namespace {

constexpr uint32_t kSeqBase = 1000, kSeqStride = 10000000; // flow f's sequence space starts at base + f * stride
constexpr uint32_t kMss = 1400;

struct Layout {
	const char *name;
	Table table;
	uint32_t hash; // the caller's hash of every segment (used when table.caller_hash)
};

const Layout kLayouts[] = {
	{"KernelOneBucketHash0", kKernelList, 0},
	{"TungroTable8x8OwnHash", kTungroTable, 0},
};

std::string layout_name(const testing::TestParamInfo<Layout> &i) { return i.param.name; }
void PrintTo(const Layout &l, std::ostream *os) { *os << l.name; }

// Flow f: an IPIP flow of its own inner source port and sequence space.
Segment flow(unsigned f, uint8_t flags = 0x10)
{
	Segment s = ipip();
	s.tcp.sport = static_cast<uint16_t>(40000 + f);
	s.tcp.seq = kSeqBase + f * kSeqStride;
	s.tcp.flags = flags;
	return s;
}

// n segments of each of nflows flows: per[f][i] is segment i of flow f.
std::vector<std::vector<std::vector<uint8_t>>> flows(unsigned nflows, unsigned n, uint8_t flags = 0x10)
{
	std::vector<std::vector<std::vector<uint8_t>>> per(nflows);
	for (unsigned f = 0; f < nflows; f++)
		per[f] = build_all(train(flow(f, flags), n));
	return per;
}

unsigned flow_of_seq(uint32_t seq) { return (seq - kSeqBase) / kSeqStride; }

// Every flow's segments are delivered exactly once, in sequence order, across everything delivered; a GRO packet
// holds consecutive segments of one flow. Returns the segments delivered.
unsigned expect_flow_order(const std::vector<Delivered> &out, unsigned nflows, unsigned per_flow)
{
	std::map<unsigned, uint32_t> next;
	unsigned segs = 0;
	for (const Delivered &d : out) {
		EXPECT_TRUE(d.parsed);
		EXPECT_EQ(d.seqs.size(), d.segs);
		for (uint32_t seq : d.seqs) {
			const unsigned f = flow_of_seq(seq);
			EXPECT_LT(f, nflows);
			auto it = next.emplace(f, kSeqBase + f * kSeqStride).first;
			EXPECT_EQ(seq, it->second) << "flow " << f << " out of order or a segment lost";
			it->second = seq + kMss;
			segs++;
		}
	}
	for (unsigned f = 0; f < nflows; f++)
		EXPECT_EQ(next[f], kSeqBase + f * kSeqStride + per_flow * kMss) << "flow " << f << " incomplete";
	return segs;
}

class Engine : public testing::TestWithParam<Layout> {
protected:
	MiniGro g{TGC_ENCAP_IPIP, true, 0, GetParam().table};
	void rx(const std::vector<uint8_t> &f, uint32_t time = 0) { g.receive(f, TGC_ENCAP_IPIP, GetParam().hash, time); }
};

} // namespace

// E01: 9 flows whose hashes fall in one bucket, 2 segments each, round robin: when the 9th flow arrives, the
// oldest flow is completed and the new one held; every flow's segments still arrive in order.
class EngineOneBucket : public testing::TestWithParam<Layout> {};

TEST_P(EngineOneBucket, E01_NinthFlowCompletesTheOldestAndIsHeld)
{
	MiniGro g(TGC_ENCAP_IPIP, true, 0, GetParam().table);
	const auto per = flows(9, 2);
	for (unsigned f = 0; f < 8; f++)
		g.receive(per[f][0], TGC_ENCAP_IPIP, GetParam().hash);
	EXPECT_TRUE(g.delivered().empty());
	EXPECT_EQ(g.stats().held_now, 8u);

	g.receive(per[8][0], TGC_ENCAP_IPIP, GetParam().hash);
	ASSERT_EQ(g.delivered().size(), 1u) << "the 9th flow completes exactly one held packet";
	EXPECT_EQ(g.delivered()[0].seqs, std::vector<uint32_t>{kSeqBase}) << "the oldest: flow 0";
	EXPECT_EQ(g.delivered()[0].why, TGC_DONE_EVICT);
	EXPECT_EQ(g.last_verdict().action, TGC_HOLD) << "the new flow is held, never passed for a full bucket";
	EXPECT_EQ(g.stats().held_now, 8u);

	for (unsigned f = 0; f < 9; f++)
		g.receive(per[f][1], TGC_ENCAP_IPIP, GetParam().hash);
	g.flush();
	EXPECT_EQ(expect_flow_order(g.delivered(), 9, 2), 18u);
	const tgc_engine_stats s = g.stats();
	EXPECT_EQ(s.passed, 0u);
	EXPECT_EQ(s.evicted, 10u) << "one when the 9th flow arrives, then one per second segment (9 flows over 8)";
	EXPECT_EQ(s.held_max, 8u);
	EXPECT_EQ(s.held_now, 0u);
}

INSTANTIATE_TEST_SUITE_P(Layouts, EngineOneBucket,
			 testing::Values(Layout{"KernelOneBucketHash0", kKernelList, 0},
					 Layout{"Table8x8AllHash5", Table{8, 8, true}, 5}),
			 layout_name);

// E02: 200 concurrent flows, bursts of 4 segments per flow, polls of 64: every burst is coalesced into one packet
// of 4 (full buckets complete their oldest flow, they never make the engine pass a segment up).
TEST_P(Engine, E02_TwoHundredFlowsInBurstsOfFourKeepCoalescing)
{
	const auto per = flows(200, 8);
	unsigned in_poll = 0;
	for (unsigned burst = 0; burst < 2; burst++) {
		for (unsigned f = 0; f < 200; f++) {
			for (unsigned i = 0; i < 4; i++) {
				rx(per[f][burst * 4 + i]);
				if (++in_poll == 64) {
					g.flush();
					in_poll = 0;
				}
			}
		}
	}
	g.flush();
	EXPECT_EQ(expect_flow_order(g.delivered(), 200, 8), 1600u);
	for (unsigned c : g.seg_counts())
		ASSERT_EQ(c, 4u);
	EXPECT_EQ(g.stats().passed, 0u);
	EXPECT_EQ(g.stats().merged, 1200u);
}

// E03: non-coalescable traffic is delivered, none lost, in order: every segment PSH (one flow) ...
TEST_P(Engine, E03_EverySegmentPshIsDeliveredAloneInOrder)
{
	const auto per = flows(1, 16, 0x18);
	for (const auto &f : per[0])
		rx(f);
	g.flush();
	EXPECT_EQ(expect_flow_order(g.delivered(), 1, 16), 16u);
	EXPECT_EQ(g.seg_counts(), Counts(16, 1));
	EXPECT_EQ(g.stats().passed, 16u);
	EXPECT_EQ(g.reason_count(TGC_R_END), 16u);
}

// ... or 64 distinct flows of one segment each (held, completed by evictions and the end of the poll).
TEST_P(Engine, E03_SixtyFourFlowsOfOneSegmentAreAllDelivered)
{
	const auto per = flows(64, 1);
	for (unsigned f = 0; f < 64; f++)
		rx(per[f][0]);
	g.flush();
	EXPECT_EQ(expect_flow_order(g.delivered(), 64, 1), 64u);
	EXPECT_EQ(g.seg_counts(), Counts(64, 1));
	EXPECT_EQ(g.stats().passed, 0u);
}

// E04: the poll budget is used up mid-train (polls of 8 over two interleaved flows of 12). With HZ >= 1000 only
// what is older than the current jiffy is completed, so GRO packets span polls; with a lower HZ everything is.
// Either way nothing is reordered between what goes up in one poll and the next.
TEST_P(Engine, E04_BudgetExhaustedMidTrainKeepsOrderAcrossPolls)
{
	const auto per = flows(2, 12);
	for (bool only_old : {true, false}) {
		MiniGro e(TGC_ENCAP_IPIP, true, 0, GetParam().table);
		for (unsigned poll = 0; poll < 3; poll++) {
			for (unsigned i = poll * 4; i < poll * 4 + 4; i++)
				for (unsigned f = 0; f < 2; f++)
					e.receive(per[f][i], TGC_ENCAP_IPIP, GetParam().hash, poll);
			if (only_old)
				e.flush_before(poll); // time = poll: what was held in earlier polls
			else
				e.flush();
		}
		e.flush();
		EXPECT_EQ(expect_flow_order(e.delivered(), 2, 12), 24u);
		EXPECT_EQ(e.seg_counts(), only_old ? Counts({8, 8, 4, 4}) : Counts(6, 4)) << "only_old " << only_old;
	}
}

INSTANTIATE_TEST_SUITE_P(Layouts, Engine, testing::ValuesIn(kLayouts), layout_name);

// Issue 8's crafted trains: 16 IPIP flows interleaved segment by segment, 16 segments per flow, polls of 64 (each
// holds 4 segments of every flow). tungro's table holds all 16 flows: 4.0 segments per GRO packet; the kernel's
// one bucket of 8 fed hash 0 completes a flow on every segment: 1.0.
struct TrainCase {
	Layout layout;
	double segs_per_gro;
};
void PrintTo(const TrainCase &c, std::ostream *os) { *os << c.layout.name << " -> " << c.segs_per_gro; }

class EngineCraftedTrain : public testing::TestWithParam<TrainCase> {};

TEST_P(EngineCraftedTrain, Issue8_SixteenInterleavedIpipFlowsInPollsOf64)
{
	const Layout &l = GetParam().layout;
	MiniGro g(TGC_ENCAP_IPIP, true, 0, l.table);
	const auto per = flows(16, 16);
	unsigned in_poll = 0, poll = 0;
	for (unsigned i = 0; i < 16; i++) {
		for (unsigned f = 0; f < 16; f++) {
			g.receive(per[f][i], TGC_ENCAP_IPIP, l.hash, poll);
			if (++in_poll == 64) {
				g.flush();
				in_poll = 0;
				poll++;
			}
		}
	}
	g.flush();
	EXPECT_EQ(expect_flow_order(g.delivered(), 16, 16), 256u);
	EXPECT_DOUBLE_EQ(256.0 / g.delivered().size(), GetParam().segs_per_gro);
}

INSTANTIATE_TEST_SUITE_P(Layouts, EngineCraftedTrain,
			 testing::Values(TrainCase{kLayouts[1], 4.0}, TrainCase{kLayouts[0], 1.0}),
			 [](const testing::TestParamInfo<TrainCase> &i) { return std::string(i.param.layout.name); });

// The receive loop itself: an append the caller cannot do is decided again as TGC_R_NOMERGE (held packet first,
// the segment held as a new packet); a foreign held packet is completed, never merged into; a segment refused
// for its outer header completes its flow's held packet first.
namespace {
struct FakeHeld {
	std::vector<uint8_t> hdr;
	tgc_pkt first{};
	uint8_t flags = 0;
	int append_rc = 0;
	int appends = 0;
};
void *fake_find(void *ctx, const tgc_pkt *pkt, const uint8_t *hdr, tgc_held *held)
{
	FakeHeld *h = static_cast<FakeHeld *>(ctx);
	if (!tgc_same_flow(pkt, hdr, h->hdr.data(), h->first.payload_off))
		return nullptr;
	held->hdr = h->hdr.data();
	held->hdr_len = h->first.payload_off;
	held->total_len = static_cast<uint32_t>(h->hdr.size());
	held->payload_len = h->first.payload_len;
	held->count = 1;
	held->gso_size = static_cast<uint16_t>(h->first.payload_len);
	held->flags = h->flags;
	return h;
}
int fake_append(void *ctx, void *held, const tgc_rx_result *)
{
	EXPECT_EQ(ctx, held);
	static_cast<FakeHeld *>(ctx)->appends++;
	return static_cast<FakeHeld *>(ctx)->append_rc;
}
const tgc_rx_ops kFakeOps = {nullptr, fake_find, fake_append, nullptr, nullptr, nullptr};

tgc_seg seg_of(const std::vector<uint8_t> &f, uint32_t in = 0)
{
	tgc_seg s{};
	s.hdr = f.data();
	s.data = f.data();
	s.hdr_len = std::min<uint32_t>(f.size(), TGC_MAX_HDR_BYTES);
	s.pkt_len = static_cast<uint32_t>(f.size());
	s.in = in;
	s.encap = TGC_ENCAP_IPIP;
	return s;
}
} // namespace

TEST(Receive, AppendFailureIsDecidedAgainAsNoMerge)
{
	const auto t = build_all(train(ipip(), 2));
	FakeHeld h;
	h.hdr = t[0];
	ASSERT_EQ(tgc_parse(t[0].data(), 120, t[0].size(), TGC_ENCAP_IPIP, &h.first), TGC_R_NONE);
	tgc_rx_result r{};
	const tgc_seg s = seg_of(t[1]);
	tgc_receive(&s, &kFakeOps, &h, &r);
	EXPECT_EQ(r.v.action, TGC_MERGE);
	EXPECT_EQ(r.flags_off, 40u + TGC_TCP_FLAGS_OFF);
	EXPECT_EQ(r.held, &h);
	h.append_rc = -1;
	tgc_receive(&s, &kFakeOps, &h, &r);
	EXPECT_EQ(h.appends, 2);
	EXPECT_EQ(r.retried, 1);
	EXPECT_EQ(r.v.action, TGC_HOLD);
	EXPECT_EQ(r.v.flush_held, 1);
	EXPECT_EQ(r.v.reason, TGC_R_NOMERGE);
}

TEST(Receive, ForeignHeldPacketIsCompletedNeverMergedInto)
{
	const auto t = build_all(train(ipip(), 2));
	FakeHeld h;
	h.hdr = t[0];
	h.flags = TGC_HELD_FOREIGN;
	ASSERT_EQ(tgc_parse(t[0].data(), 120, t[0].size(), TGC_ENCAP_IPIP, &h.first), TGC_R_NONE);
	tgc_rx_result r{};
	const tgc_seg s = seg_of(t[1]);
	tgc_receive(&s, &kFakeOps, &h, &r);
	EXPECT_EQ(h.appends, 0);
	EXPECT_EQ(r.foreign, 1);
	EXPECT_EQ(r.v.action, TGC_HOLD);
	EXPECT_EQ(r.v.flush_held, 1);
}

TEST(Receive, OuterFlushLocatesTheFlowOfARefusedSegment)
{
	auto t = train(ipip(), 2);
	t[1].outer_len_delta = +100;
	const auto f = build_all(t);
	FakeHeld h;
	h.hdr = f[0];
	ASSERT_EQ(tgc_parse(f[0].data(), 120, f[0].size(), TGC_ENCAP_IPIP, &h.first), TGC_R_NONE);
	tgc_rx_result r{};
	tgc_seg s = seg_of(f[1]);
	tgc_receive(&s, &kFakeOps, &h, &r);
	EXPECT_EQ(r.parsed, 0);
	EXPECT_EQ(r.v.reason, TGC_R_MALFORMED);
	EXPECT_EQ(r.v.flush_held, 0) << "without the caller's outer flush the held packet stays";
	s.in = TGC_IN_OUTER_FLUSH;
	tgc_receive(&s, &kFakeOps, &h, &r);
	EXPECT_EQ(r.located, 1);
	EXPECT_EQ(r.held, &h);
	EXPECT_EQ(r.v.action, TGC_PASS);
	EXPECT_EQ(r.v.flush_held, 1);
}

// A plain IPv4 segment whose total length is past the bytes present (hostile frame p4_totlen_long): 6.12's
// inet_gro_receive sets the flush bit, TCP GRO finds the flow and completes its held packet first. The engine
// stands in for inet_gro_receive for plain TCP too.
TEST_P(Engine, PlainIpv4LongerThanItsBytesCompletesTheHeldPacketFirst)
{
	auto t = train(plain4(), 4);
	t[2].outer_len_delta = +10;
	for (const auto &f : build_all(t))
		g.receive(f, TGC_ENCAP_NONE, GetParam().hash, 0);
	g.flush();
	EXPECT_EQ(g.seg_counts(), (Counts{2, 1, 1}));
	ASSERT_EQ(g.delivered().size(), 3u);
	EXPECT_TRUE(g.delivered()[0].parsed) << "the held packet of the flow goes up before the refused segment";
	EXPECT_FALSE(g.delivered()[1].parsed);
}

TEST(EngineSetup, SizesOutOfRangeAndMisalignedMemoryAreRefused)
{
	static const tgc_engine_ops ops = {[](void *, void *, void *, const tgc_merge *) { return 0; },
					   [](void *, void *, const tgc_done *) {},
					   [](void *, void *, const tgc_rx_result *) {}};
	EXPECT_EQ(tgc_engine_size(0, 8), 0u);
	EXPECT_EQ(tgc_engine_size(8, 0), 0u);
	EXPECT_EQ(tgc_engine_size(257, 8), 0u);
	EXPECT_EQ(tgc_engine_size(6, 8), 0u) << "buckets must be a power of two: the hash's low bits pick one";
	const uint32_t n = tgc_engine_size(8, 8);
	ASSERT_GT(n, 0u);
	std::vector<uint64_t> mem(n / 8 + 2);
	EXPECT_EQ(tgc_engine_init(mem.data(), n - 1, 8, 8, 0, &ops, nullptr), nullptr);
	EXPECT_EQ(tgc_engine_init(reinterpret_cast<uint8_t *>(mem.data()) + 4, n, 8, 8, 0, &ops, nullptr), nullptr);
	EXPECT_NE(tgc_engine_init(mem.data(), n, 8, 8, 0, &ops, nullptr), nullptr);
}

// tgc_engine_receive_burst(): the caller's ops called with the same arguments in the same order, and the same
// counters, as tgc_engine_receive() segment by segment (interleaved IPIP flows, predicted merges, PSH segments
// passed, a failed append; on one bucket of 4, five flows evicting each other).
namespace {
struct OpLog {
	std::vector<std::string> calls;
	unsigned appends = 0;
	unsigned fail_at = 0; // the append that fails (1-based; 0: none)
};
std::string handle(const void *p) { return std::to_string(reinterpret_cast<uintptr_t>(p)); }
int log_append(void *ctx, void *held, void *seg, const tgc_merge *m)
{
	OpLog *l = static_cast<OpLog *>(ctx);
	const bool fail = ++l->appends == l->fail_at;
	l->calls.push_back("append " + handle(held) + " " + handle(seg) + " " + std::to_string(m->held_len) + " " +
			   std::to_string(m->flags_off) + " " + std::to_string(m->held_flags) + " " +
			   std::to_string(m->id_state) + " " + std::to_string(m->fixedid) + " " +
			   std::to_string(m->pkt->seq) + " " + std::to_string(m->pkt->payload_len) + (fail ? " fails" : ""));
	return fail ? -1 : 0;
}
void log_complete(void *ctx, void *held, const tgc_done *d)
{
	static_cast<OpLog *>(ctx)->calls.push_back("complete " + handle(held) + " " + std::to_string(d->total_len) + " " +
						   std::to_string(d->count) + " " + std::to_string(d->id_state) +
						   " " + std::to_string(d->why));
}
void log_deliver(void *ctx, void *seg, const tgc_rx_result *r)
{
	static_cast<OpLog *>(ctx)->calls.push_back("deliver " + handle(seg) + " " + std::to_string(r->v.reason));
}
const tgc_engine_ops kLogOps = {log_append, log_complete, log_deliver};

// The engine's calls and counters for @frames, one call per segment or one burst.
std::pair<std::vector<std::string>, tgc_engine_stats> run_engine(const std::vector<std::vector<uint8_t>> &frames,
								 bool burst, unsigned fail_at, uint32_t buckets, uint32_t flows)
{
	OpLog log;
	log.fail_at = fail_at;
	const uint32_t n = tgc_engine_size(buckets, flows);
	std::vector<uint64_t> mem((n + 7) / 8);
	tgc_engine *e = tgc_engine_init(mem.data(), n, buckets, flows, 0, &kLogOps, &log);
	EXPECT_NE(e, nullptr);
	std::vector<tgc_seg> segs;
	std::vector<void *> cookies;
	for (size_t i = 0; i < frames.size(); i++) {
		segs.push_back(seg_of(frames[i]));
		cookies.push_back(reinterpret_cast<void *>(i + 1));
	}
	if (burst) {
		tgc_engine_receive_burst(e, segs.data(), cookies.data(), static_cast<uint32_t>(segs.size()));
	} else {
		for (size_t i = 0; i < segs.size(); i++)
			tgc_engine_receive(e, &segs[i], cookies[i], nullptr);
	}
	tgc_engine_flush(e);
	tgc_engine_stats st;
	tgc_engine_get_stats(e, &st);
	return {log.calls, st};
}
} // namespace

TEST(EngineBurst, SameOpsAndCountersAsOneCallPerSegment)
{
	auto per = flows(5, 8);
	auto psh = flows(1, 4, 0x18);
	std::vector<std::vector<uint8_t>> frames;
	for (unsigned i = 0; i < 8; i++) {
		for (unsigned f = 0; f < 5; f++)
			frames.push_back(per[f][i]);
		if (i < 4)
			frames.push_back(psh[0][i]);
	}
	for (uint32_t buckets : {8u, 1u})
		for (unsigned fail_at : {0u, 3u, 17u}) {
			const uint32_t flows = buckets == 8 ? 8 : 4;
			const auto one = run_engine(frames, false, fail_at, buckets, flows);
			const auto burst = run_engine(frames, true, fail_at, buckets, flows);
			EXPECT_EQ(one.first, burst.first) << buckets << " buckets, append " << fail_at << " failing";
			EXPECT_EQ(std::memcmp(&one.second, &burst.second, sizeof(one.second)), 0)
				<< buckets << " buckets, append " << fail_at << " failing";
			EXPECT_EQ(one.second.retried, fail_at && buckets == 8 ? 1u : one.second.retried);
			if (buckets == 8)
				EXPECT_GT(one.second.fastpath, 20u) << "the predicted and fast stages merge most";
			else
				EXPECT_GT(one.second.evicted, 0u);
		}
}
