// Per-segment cost of tungro's core against DPDK's librte_gro on the same packet trains (Google Benchmark).
//
// Both sides get the same TCP/IPv4 Ethernet frames (librte_gro has no IPIP/SIT, so the shared comparison is plain
// TCP/IPv4; tungro's IPIP and SIT trains are measured alongside for scale). Both merge without copying payload
// (DPDK chains mbufs, tungro's loop below keeps per-packet state as the module does with frags) and both finish
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

// ---- tungro: the module's per-segment loop over one GRO bucket list (parse, same_flow, decide, act) ----

struct Held {
	const uint8_t *hdr;
	uint32_t hdr_len, total_len, payload_len;
	uint16_t count, gso_size;
	uint8_t id_state;
	tgc_pkt first;
	uint8_t scratch[TGC_MAX_HDR_BYTES];	// completed headers land here (the module writes the skb's)
};

unsigned tungro_train(const Train &t, unsigned encap, unsigned *gro_packets)
{
	Held held[8];
	unsigned nheld = 0, delivered = 0, segs = 0;
	auto complete = [&](Held &h) {
		if (h.count > 1) {
			tgc_completion c;
			std::memcpy(h.scratch, h.hdr, h.first.payload_off);
			if (h.first.nlayers == 2)
				tgc_fix_ipv4(h.scratch, static_cast<uint16_t>(h.total_len));
			tgc_complete(h.scratch + h.first.inner_off, h.first.payload_off - h.first.inner_off,
				     h.total_len - h.first.inner_off, h.id_state, h.first.nlayers - 1, &c);
			benchmark::DoNotOptimize(c);
		}
		segs += h.count;
		delivered++;
	};
	for (const auto &f : t.frames) {
		const uint8_t *ip = f.data() + kEth;
		const uint32_t len = static_cast<uint32_t>(f.size() - kEth);
		const uint32_t hl = len < TGC_MAX_HDR_BYTES ? len : TGC_MAX_HDR_BYTES;
		tgc_pkt pkt;
		if (tgc_parse(ip, hl, len, encap, &pkt)) {
			delivered++;
			segs++;
			continue;
		}
		Held *m = nullptr;
		for (unsigned i = 0; i < nheld; i++)
			if (tgc_same_flow(&pkt, ip, held[i].hdr, held[i].hdr_len)) {
				m = &held[i];
				break;
			}
		tgc_held th{};
		if (m) {
			th.hdr = m->hdr;
			th.hdr_len = m->hdr_len;
			th.total_len = m->total_len;
			th.payload_len = m->payload_len;
			th.count = m->count;
			th.gso_size = m->gso_size;
			th.id_state = m->id_state;
		}
		tgc_verdict v;
		tgc_decide(&pkt, ip, m ? &th : nullptr, 0, &v);
		auto drop = [&](Held *h) {
			complete(*h);
			*h = held[--nheld];
		};
		if (v.action == TGC_MERGE) {
			m->count++;
			m->payload_len += pkt.payload_len;
			m->total_len += pkt.payload_len;
			m->id_state = v.id_state;
			if (v.flush_held)
				drop(m);
			continue;
		}
		if (v.flush_held)
			drop(m);
		if (v.action == TGC_PASS) {
			delivered++;
			segs++;
			continue;
		}
		if (nheld == 8)
			drop(&held[0]); // bucket full: the oldest goes (slot 0 is refilled from the end, close enough)
		held[nheld++] = Held{ip, pkt.payload_off, len, pkt.payload_len, 1, static_cast<uint16_t>(pkt.payload_len), 0,
				     pkt, {}};
	}
	while (nheld)
		complete(held[--nheld]);
	*gro_packets = delivered;
	return segs;
}

void BM_tungro(benchmark::State &state, frames::Encap encap, unsigned encap_id, unsigned flows)
{
	Train t = make_train(encap, flows);
	unsigned gro = 0, segs = 0;
	for (auto _ : state) {
		segs = tungro_train(t, encap_id, &gro);
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
BENCHMARK_CAPTURE(BM_tungro, plain4_1flow, frames::Encap::Plain4, TGC_ENCAP_NONE, 1);
BENCHMARK_CAPTURE(BM_dpdk, plain4_1flow, 1)->UseManualTime();
BENCHMARK_CAPTURE(BM_tungro, plain4_4flows, frames::Encap::Plain4, TGC_ENCAP_NONE, 4);
BENCHMARK_CAPTURE(BM_dpdk, plain4_4flows, 4)->UseManualTime();
BENCHMARK_CAPTURE(BM_tungro, plain4_64flows, frames::Encap::Plain4, TGC_ENCAP_NONE, 64);
BENCHMARK_CAPTURE(BM_dpdk, plain4_64flows, 64)->UseManualTime();
// Tunnels: tungro only (librte_gro has no IPIP/SIT).
BENCHMARK_CAPTURE(BM_tungro, ipip_1flow, frames::Encap::IPIP, TGC_ENCAP_IPIP, 1);
BENCHMARK_CAPTURE(BM_tungro, sit_1flow, frames::Encap::SIT, TGC_ENCAP_SIT, 1);

BENCHMARK_MAIN();
