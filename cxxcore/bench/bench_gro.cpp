// Per-segment cost of tungro's core against DPDK's librte_gro on the same packet trains (Google Benchmark).
//
// Both sides get the same TCP/IPv4 Ethernet frames (librte_gro has no IPIP/SIT, so the shared comparison is plain
// TCP/IPv4; tungro's IPIP and SIT trains are measured alongside for scale). Both merge without copying payload
// (DPDK chains mbufs, tungro's engine keeps per-flow state and its ops copy nothing) and both finish
// the train (DPDK returns merged packets; tungro completes its held packets, writing lengths and checksums).
// Only the GRO work is timed (manual timing): building mbufs and freeing them is outside the measured span.
// librte_gro is given packet_type and l2/l3/l4 lengths, as a NIC or the application would; tungro parses and
// validates every header itself, so its figure includes that work.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstring>
#include <vector>

#include <rte_eal.h>
#include <rte_gro.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "../tests/frames.hpp"
#include "tungro_core.h"

namespace {

constexpr unsigned kTrain = 64;	// one NAPI poll's budget, and RTE_GRO_MAX_BURST_ITEM_NUM's order of magnitude
constexpr unsigned kEth = 14;

struct Train {
	std::vector<std::vector<uint8_t>> frames;	// Ethernet + IP..., as received
	unsigned l4_len = 20;
};

// n flows, segments interleaved round robin, kTrain segments in all.
Train make_train(frames::Encap encap, unsigned flows)
{
	Train t;
	std::vector<std::vector<frames::Segment>> per(flows);
	for (unsigned f = 0; f < flows; f++) {
		frames::Segment s = encap == frames::Encap::IPIP ? frames::ipip()
				    : encap == frames::Encap::SIT ? frames::sit() : frames::plain4();
		s.tcp.sport = static_cast<uint16_t>(40000 + f);
		s.tcp.seq = 1000 + f * 10000000u;
		per[f] = frames::train(s, kTrain / flows);
	}
	for (unsigned i = 0; i < kTrain / flows; i++) {
		for (unsigned f = 0; f < flows; f++) {
			auto ip = frames::build(per[f][i]);
			std::vector<uint8_t> eth(kEth, 0);
			eth[12] = 0x08; // ETH_P_IP
			eth.insert(eth.end(), ip.begin(), ip.end());
			t.frames.push_back(std::move(eth));
		}
	}
	return t;
}

// ---- tungro: its engine (tgc_engine_*: the core's receive loop on a flow table) with counting ops ----
//
// The ops keep no payload (as the module moves page frags, nothing is copied); completing a GRO packet writes its
// lengths and checksums with tgc_finish into a scratch copy of its headers (the module writes the skb's).

struct Sink {
	const Train *t;
	unsigned delivered = 0, segs = 0;
	uint8_t scratch[TGC_MAX_HDR_BYTES];
};

int bench_append(void *, void *, void *, const tgc_merge *) { return 0; }

void bench_complete(void *ctx, void *held, const tgc_done *d)
{
	Sink *s = static_cast<Sink *>(ctx);
	if (d->count > 1) {
		const auto *f = static_cast<const std::vector<uint8_t> *>(held);
		std::memcpy(s->scratch, f->data() + kEth, d->first.payload_off);
		tgc_completion c;
		tgc_finish(s->scratch, d->total_len, d, &c); // reads and writes headers only
		benchmark::DoNotOptimize(c);
	}
	s->segs += d->count;
	s->delivered++;
}

void bench_deliver(void *ctx, void *, const tgc_rx_result *)
{
	Sink *s = static_cast<Sink *>(ctx);
	s->segs++;
	s->delivered++;
}

constexpr tgc_engine_ops kBenchOps = {bench_append, bench_complete, bench_deliver};

struct Engine {
	std::vector<uint64_t> mem;
	tgc_engine *e = nullptr;
	Engine(Sink *sink, unsigned buckets, unsigned flows, uint32_t flags)
	{
		const uint32_t n = tgc_engine_size(buckets, flows);
		mem.resize((n + 7) / 8);
		e = tgc_engine_init(mem.data(), n, buckets, flows, flags, &kBenchOps, sink);
	}
};

// One NAPI poll of the train through the engine, then the end-of-poll flush.
unsigned tungro_train(Engine &eng, Sink &sink, unsigned encap, unsigned *gro_packets)
{
	sink.delivered = sink.segs = 0;
	for (const auto &f : sink.t->frames) {
		const uint32_t len = static_cast<uint32_t>(f.size() - kEth);
		tgc_seg seg{};
		seg.hdr = f.data() + kEth;
		seg.data = seg.hdr;
		seg.hdr_len = len < TGC_MAX_HDR_BYTES ? len : TGC_MAX_HDR_BYTES;
		seg.pkt_len = len;
		seg.encap = static_cast<uint8_t>(encap);
		tgc_engine_receive(eng.e, &seg, const_cast<std::vector<uint8_t> *>(&f), nullptr);
	}
	tgc_engine_flush(eng.e);
	*gro_packets = sink.delivered;
	return sink.segs;
}

// buckets x flows: 8 x 8 with tungro's hash (the engine's default), or 1 x 8 fed hash 0 (the kernel's list).
void BM_tungro(benchmark::State &state, frames::Encap encap, unsigned encap_id, unsigned flows, unsigned buckets)
{
	Train t = make_train(encap, flows);
	Sink sink;
	sink.t = &t;
	Engine eng(&sink, buckets, 8, buckets == 1 ? TGC_ENGINE_CALLER_HASH : 0);
	if (!eng.e) {
		state.SkipWithError("tgc_engine_init failed");
		return;
	}
	unsigned gro = 0, segs = 0;
	for (auto _ : state) {
		segs = tungro_train(eng, sink, encap_id, &gro);
		benchmark::DoNotOptimize(segs);
	}
	if (segs != kTrain)
		state.SkipWithError("segments lost or duplicated");
	state.SetItemsProcessed(state.iterations() * kTrain);
	state.counters["ns_per_seg"] = benchmark::Counter(kTrain, benchmark::Counter::kIsIterationInvariantRate |
								   benchmark::Counter::kInvert);
	state.counters["segs_per_gro"] = double(kTrain) / gro;
}

// ---- DPDK librte_gro on the same frames ----

rte_mempool *g_pool;

bool eal_up()
{
	static int rc = [] {
		const char *argv[] = {"tungro-bench", "--no-huge", "--no-pci", "-m", "256", "--no-shconf", "-l", "0",
				      "--log-level", "lib.eal:error", "--no-telemetry"};
		int r = rte_eal_init(sizeof(argv) / sizeof(argv[0]), const_cast<char **>(argv));
		if (r >= 0)
			g_pool = rte_pktmbuf_pool_create("tgbench", 4096, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
		return r < 0 || !g_pool ? -1 : 0;
	}();
	return rc == 0;
}

void BM_dpdk(benchmark::State &state, unsigned flows)
{
	if (!eal_up()) {
		state.SkipWithError("DPDK EAL init failed");
		return;
	}
	Train t = make_train(frames::Encap::Plain4, flows);
	rte_gro_param param{};
	param.gro_types = RTE_GRO_TCP_IPV4;
	param.max_flow_num = 64;
	param.max_item_per_flow = kTrain;
	rte_mbuf *pkts[kTrain];
	uint16_t out = 0;
	for (auto _ : state) {
		for (unsigned i = 0; i < kTrain; i++) {
			rte_mbuf *m = rte_pktmbuf_alloc(g_pool);
			const auto &f = t.frames[i];
			std::memcpy(rte_pktmbuf_append(m, static_cast<uint16_t>(f.size())), f.data(), f.size());
			m->packet_type = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_L4_TCP;
			m->l2_len = kEth;
			m->l3_len = 20;
			m->l4_len = t.l4_len;
			pkts[i] = m;
		}
		auto t0 = std::chrono::steady_clock::now();
		out = rte_gro_reassemble_burst(pkts, kTrain, &param);
		auto t1 = std::chrono::steady_clock::now();
		state.SetIterationTime(std::chrono::duration<double>(t1 - t0).count());
		unsigned segs = 0;
		for (uint16_t i = 0; i < out; i++) {
			segs += pkts[i]->nb_segs;
			rte_pktmbuf_free(pkts[i]);
		}
		if (segs != kTrain) {
			state.SkipWithError("DPDK lost or duplicated segments");
			break;
		}
	}
	state.SetItemsProcessed(state.iterations() * kTrain);
	state.counters["ns_per_seg"] = benchmark::Counter(kTrain, benchmark::Counter::kIsIterationInvariantRate |
								   benchmark::Counter::kInvert);
	state.counters["segs_per_gro"] = out ? double(kTrain) / out : 0;
}

} // namespace

// Same trains for both: 1 flow (all coalesce), 4 interleaved flows, 64 flows of one segment (nothing coalesces).
// tungro runs its engine's default table (8 x 8, own hash) and the kernel's list (1 x 8, hash 0: _list).
BENCHMARK_CAPTURE(BM_tungro, plain4_1flow, frames::Encap::Plain4, TGC_ENCAP_NONE, 1, 8);
BENCHMARK_CAPTURE(BM_tungro, plain4_1flow_list, frames::Encap::Plain4, TGC_ENCAP_NONE, 1, 1);
BENCHMARK_CAPTURE(BM_dpdk, plain4_1flow, 1)->UseManualTime();
BENCHMARK_CAPTURE(BM_tungro, plain4_4flows, frames::Encap::Plain4, TGC_ENCAP_NONE, 4, 8);
BENCHMARK_CAPTURE(BM_tungro, plain4_4flows_list, frames::Encap::Plain4, TGC_ENCAP_NONE, 4, 1);
BENCHMARK_CAPTURE(BM_dpdk, plain4_4flows, 4)->UseManualTime();
BENCHMARK_CAPTURE(BM_tungro, plain4_64flows, frames::Encap::Plain4, TGC_ENCAP_NONE, 64, 8);
BENCHMARK_CAPTURE(BM_tungro, plain4_64flows_list, frames::Encap::Plain4, TGC_ENCAP_NONE, 64, 1);
BENCHMARK_CAPTURE(BM_dpdk, plain4_64flows, 64)->UseManualTime();
// Tunnels: tungro only (librte_gro has no IPIP/SIT).
BENCHMARK_CAPTURE(BM_tungro, ipip_1flow, frames::Encap::IPIP, TGC_ENCAP_IPIP, 1, 8);
BENCHMARK_CAPTURE(BM_tungro, sit_1flow, frames::Encap::SIT, TGC_ENCAP_SIT, 1, 8);

BENCHMARK_MAIN();
