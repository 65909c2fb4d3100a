// Per-segment cost of tungro's core (its engine: the receive loop and flow table the module runs) against DPDK's
// librte_gro on the same TCP/IPv4 trains, with the outputs compared packet by packet.
//
// DPDK runs in both of its modes: lightweight (rte_gro_reassemble_burst: a table on the stack, everything flushed
// before it returns; at most RTE_GRO_MAX_BURST_ITEM_NUM held packets per call) and heavyweight (a context from
// rte_gro_ctx_create, rte_gro_reassemble, then rte_gro_timeout_flush with timeout 0). librte_gro is given
// packet_type and l2/l3/l4 lengths, as a NIC or the application would; tungro parses and validates every header
// itself (IPv4 header checksum included), so its figure includes that work. Both merge without copying payload
// (DPDK chains mbufs; tungro's append op here links segment descriptors, as the module moves page frags) and both
// finish what they return (DPDK writes the IPv4 length; tungro's complete op runs tgc_finish on a copy of the
// headers: IP lengths and checksums, TCP pseudo-header).
//
// Only the GRO calls are timed (manual timing, the same clock for both): building mbufs, resetting descriptors and
// checking outputs are outside. Every benchmark first checks its outputs against the train's expected GRO packets
// (which segments, in which packet): a difference fails it. Modes (before Google Benchmark's own flags):
//   --check               run every scenario twice per engine, compare outputs, print one line each; no timing
//   --callgrind=REPS      for valgrind --tool=callgrind --collect-atstart=no: each scenario and engine REPS times,
//                         instructions collected around the GRO calls only, one dump per scenario and engine
#include <benchmark/benchmark.h>
#include <valgrind/callgrind.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <rte_eal.h>
#include <rte_gro.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "../tests/frames.hpp"
#include "tungro_core.h"

namespace {

constexpr unsigned kEth = 14;
constexpr uint8_t kPSH = 0x08;

// One train: flows x per_flow segments, flows interleaved round robin (segment i of every flow, then i + 1).
struct Scenario {
	const char *name;
	frames::Encap encap;
	unsigned flows, per_flow;
	bool psh;	// PSH on every segment: nothing coalesces
	bool dpdk;	// TCP/IPv4: compared with librte_gro
	bool burst;	// within the lightweight mode's 128 held packets per call
};

const Scenario kScenarios[] = {
	{"tcp4_1flow", frames::Encap::Plain4, 1, 64, false, true, true},
	{"tcp4_8flows", frames::Encap::Plain4, 8, 8, false, true, true},
	{"tcp4_64flows", frames::Encap::Plain4, 64, 4, false, true, true},
	{"tcp4_200flows", frames::Encap::Plain4, 200, 4, false, true, false},
	{"tcp4_psh_8flows", frames::Encap::Plain4, 8, 8, true, true, true},
	{"tcp4_64flows_1seg", frames::Encap::Plain4, 64, 1, false, true, true},
	{"ipip_8flows", frames::Encap::IPIP, 8, 8, false, false, false},
	{"sit_8flows", frames::Encap::SIT, 8, 8, false, false, false},
	{"tcp6_8flows", frames::Encap::Plain6, 8, 8, false, false, false},
	{"ip6ip6_8flows", frames::Encap::IP6IP6, 8, 8, false, false, false}, // with the encap-limit option
};

struct Train {
	const Scenario *sc;
	std::vector<std::vector<uint8_t>> frames;	// Ethernet + IP..., as received
	std::vector<std::vector<unsigned>> expected;	// GRO packets: segment indices, sorted by first index
	unsigned l3_len = 20, l4_len = 20;
};

unsigned encap_id(frames::Encap e)
{
	switch (e) {
	case frames::Encap::IPIP: return TGC_ENCAP_IPIP;
	case frames::Encap::SIT: return TGC_ENCAP_SIT;
	case frames::Encap::IP4IP6: return TGC_ENCAP_IP4IP6;
	case frames::Encap::IP6IP6: return TGC_ENCAP_IP6IP6;
	default: return TGC_ENCAP_NONE;
	}
}

Train make_train(const Scenario &sc)
{
	Train t;
	t.sc = &sc;
	frames::Segment tmpl = sc.encap == frames::Encap::Plain4 ? frames::plain4() : frames::ipip_as(sc.encap);
	// An outer IPv6 header as Linux ip6 tunnels send it: with the 8-byte encapsulation-limit option.
	if (sc.encap == frames::Encap::IP4IP6 || sc.encap == frames::Encap::IP6IP6)
		tmpl.outer6.ext.push_back(frames::encap_limit());
	if (sc.psh)
		tmpl.tcp.flags |= kPSH;
	std::vector<std::vector<frames::Segment>> per(sc.flows);
	for (unsigned f = 0; f < sc.flows; f++) {
		frames::Segment s = tmpl;
		s.tcp.sport = static_cast<uint16_t>(40000 + f);
		s.tcp.seq = 1000 + f * 10000000u;
		per[f] = frames::train(s, sc.per_flow);
	}
	// Expected: each flow's segments in order, cut where the next payload would take the packet to 64 KiB (both
	// engines: tungro's TGC_MAX_GRO_BYTES, DPDK's 65535-byte IPv4 limit), every PSH segment alone.
	std::vector<std::vector<unsigned>> open(sc.flows);
	std::vector<unsigned> open_len(sc.flows, 0);
	for (unsigned i = 0; i < sc.per_flow; i++) {
		for (unsigned f = 0; f < sc.flows; f++) {
			auto ip = frames::build(per[f][i]);
			const unsigned payload = per[f][i].payload_len;
			const unsigned idx = static_cast<unsigned>(t.frames.size());
			if (!open[f].empty() && (sc.psh || open_len[f] + payload >= TGC_MAX_GRO_BYTES)) {
				t.expected.push_back(open[f]);
				open[f].clear();
			}
			if (open[f].empty())
				open_len[f] = static_cast<unsigned>(ip.size());
			else
				open_len[f] += payload;
			open[f].push_back(idx);
			std::vector<uint8_t> eth(kEth, 0);
			eth[12] = ip[0] >> 4 == 6 ? 0x86 : 0x08;
			eth[13] = ip[0] >> 4 == 6 ? 0xdd : 0x00;
			eth.insert(eth.end(), ip.begin(), ip.end());
			t.frames.push_back(std::move(eth));
		}
	}
	for (auto &o : open)
		if (!o.empty())
			t.expected.push_back(o);
	std::sort(t.expected.begin(), t.expected.end());
	return t;
}

// What an engine returned, as segment indices per GRO packet, in the train's terms.
using Groups = std::vector<std::vector<unsigned>>;

bool same_groups(Groups got, const Groups &want, std::string *why)
{
	std::sort(got.begin(), got.end());
	if (got == want)
		return true;
	char b[160];
	std::snprintf(b, sizeof(b), "%zu GRO packets, expected %zu", got.size(), want.size());
	*why = b;
	for (size_t i = 0; i < got.size() && i < want.size(); i++) {
		if (got[i] != want[i]) {
			std::snprintf(b, sizeof(b), "; first difference: packet of segment %u holds %zu segments, expected %zu",
				      got[i].empty() ? 0u : got[i][0], got[i].size(), want[i].size());
			*why += b;
			break;
		}
	}
	return false;
}

// ---- tungro: the core's engine (tgc_engine_*) with the bench's ops ----

// A segment as the bench's "buffers" hold it: append links it behind its held packet (as the module moves frags).
struct Desc {
	const uint8_t *ip;
	uint32_t len;
	unsigned idx;
	Desc *next, *tail;
};

struct Sink {
	std::vector<Desc *> out;	// completed or delivered packets, in delivery order
	uint8_t scratch[TGC_MAX_HDR_BYTES];
	unsigned finish_failed = 0;
};

int bench_append(void *, void *held, void *seg, const tgc_merge *)
{
	Desc *h = static_cast<Desc *>(held), *s = static_cast<Desc *>(seg);
	h->tail->next = s;
	h->tail = s;
	return 0;
}

void bench_complete(void *ctx, void *held, const tgc_done *d)
{
	Sink *s = static_cast<Sink *>(ctx);
	Desc *h = static_cast<Desc *>(held);
	if (d->count > 1) {
		std::memcpy(s->scratch, h->ip, d->first.payload_off);
		tgc_completion c;
		if (tgc_finish(s->scratch, d->total_len, d, &c) != 0)
			s->finish_failed++;
	}
	s->out.push_back(h);
}

void bench_deliver(void *ctx, void *seg, const tgc_rx_result *)
{
	static_cast<Sink *>(ctx)->out.push_back(static_cast<Desc *>(seg));
}

constexpr tgc_engine_ops kBenchOps = {bench_append, bench_complete, bench_deliver};

struct Tungro {
	const Train &t;
	std::vector<uint64_t> mem;
	tgc_engine *e = nullptr;
	std::vector<Desc> desc;
	std::vector<tgc_seg> segs;
	std::vector<void *> cookies; // &desc[i]: the burst's handles
	Sink sink;
	unsigned encap;

	// 8 x 8 (the engine's default) up to 8 flows; more flows get buckets enough that none is evicted (the table
	// a caller expecting that many flows sets up), 8 per bucket.
	explicit Tungro(const Train &train) : t(train), encap(encap_id(train.sc->encap))
	{
		unsigned buckets = TGC_ENGINE_BUCKETS;
		while (buckets < t.sc->flows)
			buckets *= 2;
		const uint32_t n = tgc_engine_size(buckets, TGC_ENGINE_FLOWS);
		mem.resize((n + 7) / 8);
		e = tgc_engine_init(mem.data(), n, buckets, TGC_ENGINE_FLOWS, 0, &kBenchOps, &sink);
		desc.resize(t.frames.size());
		segs.resize(t.frames.size());
		cookies.resize(t.frames.size());
		for (size_t i = 0; i < t.frames.size(); i++) {
			const auto &f = t.frames[i];
			const uint32_t len = static_cast<uint32_t>(f.size() - kEth);
			desc[i] = Desc{f.data() + kEth, len, static_cast<unsigned>(i), nullptr, nullptr};
			cookies[i] = &desc[i];
			tgc_seg &s = segs[i];
			s = tgc_seg{};
			s.hdr = f.data() + kEth;
			s.data = s.hdr;
			s.hdr_len = len < TGC_MAX_HDR_BYTES ? len : TGC_MAX_HDR_BYTES;
			s.pkt_len = len;
			s.encap = static_cast<uint8_t>(encap);
		}
		sink.out.reserve(t.frames.size());
	}

	void reset()
	{
		for (auto &d : desc) {
			d.next = nullptr;
			d.tail = &d;
		}
		sink.out.clear();
	}

	Groups groups() const
	{
		Groups g;
		for (const Desc *p : sink.out) {
			g.emplace_back();
			for (const Desc *d = p; d; d = d->next)
				g.back().push_back(d->idx);
		}
		return g;
	}
};

// One NAPI poll of the train through the engine, in one burst as DPDK is handed it, then the end-of-poll flush: the
// timed span.
__attribute__((noinline)) void tungro_run(Tungro &tg)
{
	tgc_engine_receive_burst(tg.e, tg.segs.data(), tg.cookies.data(), static_cast<uint32_t>(tg.segs.size()));
	tgc_engine_flush(tg.e);
}

// ---- DPDK librte_gro on the same frames ----

rte_mempool *g_pool;

bool eal_up()
{
	static const int rc = [] {
		const char *argv[] = {"tungro-bench", "--no-huge", "--no-pci", "-m", "256", "--no-shconf", "-l", "0",
				      "--log-level", "lib.eal:error", "--no-telemetry"};
		const int r = rte_eal_init(sizeof(argv) / sizeof(argv[0]), const_cast<char **>(argv));
		if (r >= 0)
			g_pool = rte_pktmbuf_pool_create("tgbench", 4095, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
		return r < 0 || !g_pool ? -1 : 0;
	}();
	return rc == 0;
}

struct Dpdk {
	const Train &t;
	bool heavy;
	void *ctx = nullptr;
	rte_gro_param param{};
	std::vector<rte_mbuf *> pkts, in;
	uint16_t out = 0;

	Dpdk(const Train &train, bool heavyweight) : t(train), heavy(heavyweight)
	{
		param.gro_types = RTE_GRO_TCP_IPV4;
		param.max_flow_num = static_cast<uint16_t>(t.sc->flows);
		param.max_item_per_flow = static_cast<uint16_t>(t.sc->per_flow);
		param.socket_id = SOCKET_ID_ANY;
		if (heavy)
			ctx = rte_gro_ctx_create(&param);
		pkts.resize(t.frames.size());
		in.resize(t.frames.size());
	}
	~Dpdk()
	{
		if (ctx)
			rte_gro_ctx_destroy(ctx);
	}
	Dpdk(const Dpdk &) = delete;
	Dpdk &operator=(const Dpdk &) = delete;

	bool ok() const { return !heavy || ctx; }

	// Fresh mbufs of the train (GRO rewrites and chains them), outside the timed span.
	bool prepare()
	{
		for (size_t i = 0; i < t.frames.size(); i++) {
			rte_mbuf *m = rte_pktmbuf_alloc(g_pool);
			if (!m)
				return false;
			const auto &f = t.frames[i];
			std::memcpy(rte_pktmbuf_append(m, static_cast<uint16_t>(f.size())), f.data(), f.size());
			m->packet_type = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_L4_TCP;
			m->l2_len = kEth;
			m->l3_len = t.l3_len;
			m->l4_len = t.l4_len;
			pkts[i] = in[i] = m;
		}
		return true;
	}

	Groups groups_and_free()
	{
		std::unordered_map<const rte_mbuf *, unsigned> idx;
		for (size_t i = 0; i < in.size(); i++)
			idx[in[i]] = static_cast<unsigned>(i);
		Groups g;
		for (uint16_t i = 0; i < out; i++) {
			g.emplace_back();
			for (const rte_mbuf *m = pkts[i]; m; m = m->next)
				g.back().push_back(idx.at(m));
			rte_pktmbuf_free(pkts[i]);
		}
		return g;
	}
};

// The timed span: the lightweight call, or the heavyweight reassemble and its flush of everything.
__attribute__((noinline)) void dpdk_run(Dpdk &d)
{
	const uint16_t n = static_cast<uint16_t>(d.t.frames.size());
	if (!d.heavy) {
		d.out = rte_gro_reassemble_burst(d.pkts.data(), n, &d.param);
		return;
	}
	const uint16_t unprocessed = rte_gro_reassemble(d.pkts.data(), n, d.ctx);
	d.out = static_cast<uint16_t>(unprocessed + rte_gro_timeout_flush(d.ctx, 0, RTE_GRO_TCP_IPV4,
									  d.pkts.data() + unprocessed,
									  static_cast<uint16_t>(n - unprocessed)));
}

enum class Eng { Tungro, DpdkBurst, DpdkHeavy };
const char *eng_name(Eng e) { return e == Eng::Tungro ? "tungro" : e == Eng::DpdkBurst ? "dpdk_burst" : "dpdk_heavy"; }

bool applies(const Scenario &sc, Eng e)
{
	return e == Eng::Tungro || (sc.dpdk && (e == Eng::DpdkHeavy || sc.burst));
}

// One engine set up for one train (table or context made once), run as often as asked.
struct Runner {
	const Train &t;
	Eng e;
	std::unique_ptr<Tungro> tg;
	std::unique_ptr<Dpdk> dp;
	std::string why;	// set up or outputs: empty while all is well
	Groups last;

	Runner(const Train &train, Eng eng) : t(train), e(eng)
	{
		if (e == Eng::Tungro) {
			tg = std::make_unique<Tungro>(t);
			if (!tg->e)
				why = "tgc_engine_init failed";
		} else if (!eal_up()) {
			why = "DPDK EAL init failed";
		} else {
			dp = std::make_unique<Dpdk>(t, e == Eng::DpdkHeavy);
			if (!dp->ok())
				why = "rte_gro_ctx_create failed";
		}
	}

	// One train: the seconds spent in the GRO calls; with @callgrind, instructions are collected there only.
	double once(bool callgrind)
	{
		if (!why.empty())
			return 0;
		if (tg) {
			tg->reset();
		} else if (!dp->prepare()) {
			why = "mbuf pool exhausted";
			return 0;
		}
		const auto t0 = std::chrono::steady_clock::now();
		if (callgrind)
			CALLGRIND_TOGGLE_COLLECT;
		if (tg)
			tungro_run(*tg);
		else
			dpdk_run(*dp);
		if (callgrind)
			CALLGRIND_TOGGLE_COLLECT;
		const auto t1 = std::chrono::steady_clock::now();
		if (tg) {
			if (tg->sink.finish_failed)
				why = "tgc_finish failed";
		} else {
			last = dp->groups_and_free();
		}
		return std::chrono::duration<double>(t1 - t0).count();
	}

	// Whether the last train's GRO packets are the expected ones (why says how not).
	bool check()
	{
		if (!why.empty())
			return false;
		return same_groups(tg ? tg->groups() : last, t.expected, &why);
	}
};

void BM_gro(benchmark::State &state, const Scenario *sc, Eng e)
{
	const Train t = make_train(*sc);
	Runner run(t, e);
	run.once(false);
	if (!run.check()) {
		state.SkipWithError(("not the expected GRO packets: " + run.why).c_str());
		return;
	}
	for (auto _ : state)
		state.SetIterationTime(run.once(false));
	if (!run.check())
		state.SkipWithError(("not the expected GRO packets: " + run.why).c_str());
	const double segs = static_cast<double>(t.frames.size());
	state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * t.frames.size()));
	state.counters["segs"] = segs;
	state.counters["segs_per_gro"] = segs / static_cast<double>(t.expected.size());
}

const Eng kEngines[] = {Eng::Tungro, Eng::DpdkBurst, Eng::DpdkHeavy};

// Every scenario with every engine that applies; @one(train, engine) says whether its outputs were right.
// Returns the exit status: 1 when any was not.
template <class F> int for_each_run(F one)
{
	int bad = 0;
	for (const Scenario &sc : kScenarios) {
		const Train t = make_train(sc);
		for (Eng e : kEngines)
			if (applies(sc, e))
				bad += !one(t, e);
	}
	return bad ? 1 : 0;
}

int check_all()
{
	return for_each_run([](const Train &t, Eng e) {
		Runner run(t, e);
		run.once(false);
		run.once(false); // a table that was used once and flushed must give the same packets
		const bool ok = run.check();
		std::printf("[bench-check] %-18s %-10s %4zu segments -> %3zu GRO packets: %s\n", t.sc->name, eng_name(e),
			    t.frames.size(), t.expected.size(), ok ? "identical" : run.why.c_str());
		return ok;
	});
}

// One callgrind dump per scenario and engine, named "<scenario>/<engine>/<segments x reps>".
int callgrind_all(unsigned reps)
{
	return for_each_run([reps](const Train &t, Eng e) {
		Runner run(t, e);
		run.once(false); // warm: first-use costs (lazy binding, first touch) stay out of the counts
		CALLGRIND_ZERO_STATS;
		for (unsigned r = 0; r < reps; r++)
			run.once(true);
		char name[96];
		std::snprintf(name, sizeof(name), "%s/%s/%zu", t.sc->name, eng_name(e), t.frames.size() * reps);
		CALLGRIND_DUMP_STATS_AT(name);
		const bool ok = run.check();
		if (!ok)
			std::fprintf(stderr, "%s: %s\n", name, run.why.c_str());
		return ok;
	});
}

} // namespace

int main(int argc, char **argv)
{
	if (argc > 1 && !std::strcmp(argv[1], "--check"))
		return check_all();
	if (argc > 1 && !std::strncmp(argv[1], "--callgrind=", 12))
		return callgrind_all(static_cast<unsigned>(std::strtoul(argv[1] + 12, nullptr, 10)));
	for (const Scenario &sc : kScenarios)
		for (Eng e : kEngines)
			if (applies(sc, e))
				benchmark::RegisterBenchmark((std::string(sc.name) + "/" + eng_name(e)).c_str(), BM_gro, &sc, e)
					->UseManualTime();
	benchmark::Initialize(&argc, argv);
	if (benchmark::ReportUnrecognizedArguments(argc, argv))
		return 1;
	benchmark::RunSpecifiedBenchmarks();
	benchmark::Shutdown();
	return 0;
}
