// The engine's fast stage (src/fastpath.hpp): a segment that matches the header template of its flow's held packet
// merges without the full parse and decide, with the very result they would give. Every MiniGro runs a second
// engine without the fast stage (TGC_ENGINE_NO_FASTPATH) in lockstep and aborts on any difference (mini_gro.cpp),
// so every test of the engine is a differential test of it; here: that the fast stage does the merging of clean
// trains in every encapsulation and layout, and random trains aimed at its edges (IDs and sequence numbers that
// wrap, each layer's length, checksums off by one, flags, every header byte, interleaved flows, checksum
// validation, failed appends are fuzz_engine's), run both ways.
#include <gtest/gtest.h>

#include <array>
#include <random>

#include "test_util.hpp"

using namespace frames;

namespace {

struct Kind {
	const char *name;
	Segment (*make)();
};

Segment make_ip6ip6_limit()
{
	Segment s = ip6ip6();
	s.outer6.ext.push_back(encap_limit());
	return s;
}
Segment make_plain6() { return ipip_as(Encap::Plain6); }
Segment make_plain4_ts()
{
	Segment s = plain4();
	s.tcp.options = {1, 1, 8, 10, 0, 0, 0x12, 0x34, 0, 0, 0x56, 0x78}; // NOP NOP timestamps
	return s;
}
Segment make_ipip_opts()
{
	Segment s = ipip();
	s.outer.options = dsr_option();
	s.inner4.options = dsr_option(0x52);
	return s;
}

const Kind kKinds[] = {
	{"plain4", plain4},   {"plain4_ts", make_plain4_ts}, {"plain6", make_plain6}, {"ipip", ipip},
	{"sit", sit},         {"ip4ip6", ip4ip6},            {"ip6ip6", ip6ip6},      {"ip6ip6_limit", make_ip6ip6_limit},
	{"ipip_opts", make_ipip_opts},
};

const Table kTables[] = {kKernelList, kTungroTable, {2, 2, false}, kOptionsList,
			 {TGC_ENGINE_BUCKETS, TGC_ENGINE_FLOWS, false, true}};

// A clean train of each kind merges by the fast stage, all but the first segment of each GRO packet, on every
// table (IPv4 options only where the table merges them), and gives what the full parse gives (the shadow).
TEST(FastStage, CleanTrainsMergeByTheFastStage)
{
	for (const Kind &k : kKinds) {
		for (const Table &t : kTables) {
			const Segment s = k.make();
			const bool opts = !s.outer.options.empty();
			MiniGro g(encap_of(s), true, 0, t);
			g.receive_all(build_all(train(s, 40)));
			g.flush();
			const tgc_engine_stats st = g.stats();
			SCOPED_TRACE(k.name);
			if (opts && !t.ipv4_options) {
				EXPECT_EQ(st.merged, 0u);
				EXPECT_EQ(st.fastpath, 0u);
				continue;
			}
			// 40 segments of 1400 bytes: 64 KiB ends the first GRO packet after 46 or so: one packet
			EXPECT_EQ(g.seg_counts(), Counts{40});
			EXPECT_EQ(st.fastpath, 39u);
		}
	}
}

// A clean train past 64 KiB: the predicted segment that would take a packet there is decided on
// its flow's prediction (SIZE: the packet completed, the segment held), as the full stage decides
// it (the shadow), in every kind and table.
TEST(FastStage, PredictedSegmentAt64KiBDecidedAsTheFullStage)
{
	for (const Kind &k : kKinds) {
		for (const Table &t : kTables) {
			const Segment s = k.make();
			if (!s.outer.options.empty() && !t.ipv4_options)
				continue;
			MiniGro g(encap_of(s), true, 0, t);
			g.receive_all(build_all(train(s, 100)));
			g.flush();
			SCOPED_TRACE(k.name);
			const Counts c = g.seg_counts();
			const tgc_engine_stats st = g.stats();
			ASSERT_GE(c.size(), 3u); // 100 segments of 1400 bytes: three packets
			EXPECT_EQ(st.reasons[TGC_R_SIZE], c.size() - 1);
			EXPECT_EQ(st.fastpath, 100u - c.size());
		}
	}
}

// The fast stage is off with TGC_ENGINE_NO_FASTPATH, and then gives the same packets (no shadow needed).
TEST(FastStage, NoFastPathFlagTurnsItOff)
{
	Table t = kTungroTable;
	t.no_fastpath = true;
	MiniGro g(TGC_ENCAP_IPIP, true, 0, t);
	g.receive_all(build_all(train(ipip(), 8)));
	g.flush();
	EXPECT_EQ(g.seg_counts(), Counts{8});
	EXPECT_EQ(g.stats().fastpath, 0u);
	EXPECT_EQ(g.stats().merged, 7u);
}

// Interleaved flows of one layout find their held packet through the engine's recent-flow index.
TEST(FastStage, InterleavedFlowsMergeByTheFastStage)
{
	std::vector<std::vector<Segment>> per(8);
	for (unsigned f = 0; f < 8; f++) {
		Segment s = plain4();
		s.tcp.sport = static_cast<uint16_t>(40000 + f);
		s.tcp.seq = 1000 + f * 10000000u;
		per[f] = train(s, 8);
	}
	std::vector<std::vector<uint8_t>> frames;
	for (unsigned i = 0; i < 8; i++)
		for (unsigned f = 0; f < 8; f++)
			frames.push_back(build(per[f][i]));
	MiniGro g(TGC_ENCAP_NONE, true, 0, kTungroTable);
	g.receive_all(frames);
	g.flush();
	EXPECT_EQ(g.seg_counts(), Counts(8, 8));
	EXPECT_EQ(g.stats().fastpath, 56u);
}

// The IPv4 header checksum the fast stage checks incrementally: off by one either way in either layer, the full
// parse refuses it (TGC_R_CSUM), and so must the fast stage (the shadow compares).
TEST(FastStage, Ipv4ChecksumOffByOneIsRefusedBothWays)
{
	for (const unsigned layer_off : {0u, 20u}) {
		for (const int delta : {-1, 1}) {
			auto frames = build_all(train(ipip(), 6));
			std::vector<uint8_t> &b = frames[3];
			const uint16_t ck = static_cast<uint16_t>((b[layer_off + 10] << 8 | b[layer_off + 11]) + delta);
			b[layer_off + 10] = static_cast<uint8_t>(ck >> 8);
			b[layer_off + 11] = static_cast<uint8_t>(ck);
			MiniGro g(TGC_ENCAP_IPIP, true, 0, kTungroTable);
			g.receive_all(frames);
			g.flush();
			EXPECT_EQ(g.reason_count(TGC_R_CSUM), 1u);
		}
	}
}

// IPv4 IDs and sequence numbers that wrap inside a GRO packet still merge by the fast stage.
TEST(FastStage, IdAndSequenceWrapMerge)
{
	Segment s = ipip();
	s.inner4.id = 0xfffd;
	s.outer.id = 0xfffe;
	s.tcp.seq = 0xffffffffu - 3000;
	MiniGro g(TGC_ENCAP_IPIP, true, 0, kTungroTable);
	g.receive_all(build_all(train(s, 8, 1)));
	g.flush();
	EXPECT_EQ(g.seg_counts(), Counts{8});
	EXPECT_EQ(g.stats().fastpath, 7u);
}

// Random trains aimed at the fast stage's edges, run both ways by MiniGro's shadow: one to four interleaved flows
// of a kind, each segment changed with some probability in one of the ways below, on every table, with and
// without checksum validation (TGC_IN_CSUM_CHECK) and UDP GRO allowed.
void mutate(Segment &s, std::mt19937 &rng)
{
	switch (rng() % 24) {
	case 0: s.outer.ttl--; break;
	case 1: s.inner4.tos ^= 1; s.inner6.traffic_class ^= 1; break;
	case 2: s.outer.df = !s.outer.df; break;
	case 3: s.inner4.df = !s.inner4.df; break;
	case 4: s.inner4.id = static_cast<uint16_t>(s.inner4.id + 1 + rng() % 2); break;
	case 5: s.outer.id = static_cast<uint16_t>(s.outer.id + 1); break;
	case 6: s.tcp.seq += 1 + rng() % 2000; break;
	case 7: s.tcp.seq -= 1400; break;
	case 8: s.payload_len = 1 + rng() % 1400; break;
	case 9: s.payload_len = 1401 + rng() % 100; break;
	case 10: s.tcp.flags |= std::array<uint8_t, 6>{0x01, 0x02, 0x04, 0x08, 0x20, 0x80}[rng() % 6]; break;
	case 11: s.tcp.flags |= 0x40; break; // ECE: the template compares the flags byte
	case 12: s.tcp.window++; break;
	case 13: s.tcp.ack++; break;
	case 14: s.tcp.options = {1, 1, 1, 1}; break;
	case 15: s.outer_len_delta = static_cast<int32_t>(rng() % 3) - 1; break;
	case 16: s.inner_padding = 1 + rng() % 3; break;
	case 17: s.padding = 1 + rng() % 4; break;
	case 18: s.bad_tcp_csum = true; break;
	case 19: s.inner4.reserved = true; break;
	case 20: s.payload_len = 0; break;
	case 21: s.outer6.hop_limit--; s.inner6.hop_limit--; break;
	case 22: s.outer6.flow_label ^= 1; s.inner6.flow_label ^= 1; break;
	default: s.tcp.dport++; break;
	}
}

// @nflows trains of @n segments of kind @k, each its own ports, sequence and IPv4 IDs, half of them with the IDs
// fixed: the flows of the random trains below.
std::vector<std::vector<Segment>> edge_flows(std::mt19937 &rng, const Kind &k, unsigned nflows, unsigned n)
{
	std::vector<std::vector<Segment>> per(nflows);
	for (unsigned f = 0; f < nflows; f++) {
		Segment s = k.make();
		s.tcp.sport = static_cast<uint16_t>(40000 + f);
		s.tcp.seq = rng();
		s.inner4.id = static_cast<uint16_t>(rng());
		s.outer.id = static_cast<uint16_t>(rng());
		per[f] = train(s, n, static_cast<int>(rng() % 2));
	}
	return per;
}

// Segment @s as a frame at the edges: one in five mutated (mutate()), one in sixteen with a header bit flipped.
std::vector<uint8_t> edge_frame(std::mt19937 &rng, Segment s)
{
	if (rng() % 5 == 0)
		mutate(s, rng);
	std::vector<uint8_t> b = build(s);
	if (rng() % 16 == 0 && b.size() > 60)
		b[rng() % 60] ^= static_cast<uint8_t>(1u << (rng() % 8)); // any header byte
	return b;
}

TEST(FastStage, RandomTrainsAtTheEdgesGiveWhatTheFullParseGives)
{
	std::mt19937 rng(12);
	uint64_t fast = 0, segs = 0;
	for (unsigned round = 0; round < 600; round++) {
		const Kind &k = kKinds[rng() % (sizeof(kKinds) / sizeof(kKinds[0]))];
		const Table &t = kTables[rng() % (sizeof(kTables) / sizeof(kTables[0]))];
		const unsigned nflows = 1 + rng() % 4, n = 4 + rng() % 20;
		const std::vector<std::vector<Segment>> per = edge_flows(rng, k, nflows, n);
		std::vector<std::vector<uint8_t>> frames;
		for (unsigned i = 0; i < n; i++)
			for (unsigned f = 0; f < nflows; f++)
				frames.push_back(edge_frame(rng, per[f][i]));
		MiniGro g(encap_of(per[0][0]), rng() % 4 != 0, rng() % 2 ? 2 : 0, t);
		if (rng() % 3 == 0)
			g.set_input(TGC_IN_UDP_GRO);
		for (size_t i = 0; i < frames.size(); i++) {
			g.receive(frames[i], encap_of(per[0][0]), static_cast<uint32_t>(rng() % 3), static_cast<uint32_t>(i));
			if (rng() % 32 == 0)
				g.flush_before(static_cast<uint32_t>(i / 2));
		}
		g.flush();
		fast += g.stats().fastpath;
		segs += g.stats().segs;
	}
	// The fast stage took a good share (and the shadow agreed with every one).
	EXPECT_GT(fast * 4, segs);
}

// The offload path's fast stage (tgc_receive() on the caller's expect): a clean train of each kind merges by it,
// all but the first segment (those the model gives a short view first too: the fast stage asks for the whole
// one), and by the predicted stage where the model keeps predictions; rx_counts() runs the model without either
// in lockstep (test_util.hpp). IPv4 options are never merged there (tgc_receive parses without them), so not by
// the fast stage either.
TEST(FastStage, OffloadCleanTrainsMergeByTheFastStage)
{
	for (const Kind &k : kKinds) {
		const Segment s = k.make();
		unsigned fast = 0, predicted = 0;
		SCOPED_TRACE(k.name);
		const Counts got = rx_counts(build_all(train(s, 40)), encap_of(s), nullptr, &fast, &predicted);
		if (!s.outer.options.empty()) {
			EXPECT_EQ(got, Counts(40, 1));
			EXPECT_EQ(fast, 0u);
			continue;
		}
		EXPECT_EQ(got, Counts{40});
		EXPECT_EQ(fast, 39u);
		// With predictions: all but the first two merges (the fast stage's; the second makes the prediction);
		// the 10 segments the model gives a short view first are grown by the view op, as the fast stage
		// grows them.
		EXPECT_EQ(predicted, 37u);
	}
}

// expect's layout is checked against the held bytes (expected_of()): one that does not describe them, or headers
// past the held view, never reaches the fast stage, and the full stage merges the segment as it would without
// expect. The true layout, as a control, is taken by the fast stage.
TEST(FastStage, OffloadWrongLayoutIsRefused)
{
	struct Ctx {
		tgc_held held;
		tgc_layout layout;
		tgc_pkt first;
	};
	const tgc_rx_ops ops = {
		nullptr,
		[](void *c, const tgc_pkt *pkt, const uint8_t *hdr, tgc_held *h) -> void * {
			Ctx *x = static_cast<Ctx *>(c);
			if (!tgc_same_flow(pkt, hdr, x->held.hdr, x->first.payload_off))
				return nullptr;
			*h = x->held;
			h->hdr_len = x->first.payload_off;
			return x;
		},
		[](void *, void *, const tgc_rx_result *) { return 0; },
		[](void *c, const tgc_seg *, tgc_held *h, tgc_layout *l) -> void * {
			Ctx *x = static_cast<Ctx *>(c);
			*h = x->held;
			*l = x->layout;
			return x;
		},
		nullptr, nullptr};
	for (const Kind &k : kKinds) {
		const Segment s0 = k.make();
		if (!s0.outer.options.empty())
			continue; // never held by tgc_receive()
		SCOPED_TRACE(k.name);
		const std::vector<Segment> t = train(s0, 2);
		const std::vector<uint8_t> f0 = build(t[0]), f1 = build(t[1]);
		const unsigned encap = encap_of(s0);
		tgc_seg seg{};
		seg.hdr = f0.data();
		seg.hdr_len = std::min<uint32_t>(static_cast<uint32_t>(f0.size()), TGC_MAX_HDR_BYTES);
		seg.pkt_len = static_cast<uint32_t>(f0.size());
		seg.encap = static_cast<uint8_t>(encap);
		tgc_rx_result r;
		tgc_receive(&seg, nullptr, nullptr, &r);
		ASSERT_EQ(r.v.action, TGC_HOLD);
		const tgc_pkt p = r.pkt;
		const uint16_t io = p.inner_off, to = p.tcp_off, po = p.payload_off;
		const uint8_t e = p.encap, other = encap ? TGC_ENCAP_NONE : TGC_ENCAP_IPIP;
		struct Variant {
			tgc_layout layout;
			uint32_t hdr_len;
			bool fast;
		};
		const Variant variants[] = {
			{{io, to, po, e, 0}, po, true}, // the control
			{{io, static_cast<uint16_t>(to - 4), po, e, 0}, po, false},
			{{io, static_cast<uint16_t>(to + 4), po, e, 0}, po, false},
			{{io, static_cast<uint16_t>(to + 8), po, e, 0}, po, false},
			{{static_cast<uint16_t>(io + 8), to, po, e, 0}, po, false},
			{{static_cast<uint16_t>(encap ? 0 : 20), to, po, e, 0}, po, false},
			{{io, to, static_cast<uint16_t>(po + 4), e, 0}, static_cast<uint32_t>(po + 4), false},
			{{io, to, static_cast<uint16_t>(po - 4), e, 0}, po, false},
			{{io, to, po, other, 0}, po, false},
			{{io, to, po, e, 0}, static_cast<uint32_t>(po - 1), false},
		};
		for (const Variant &v : variants) {
			Ctx ctx{{f0.data(), v.hdr_len, static_cast<uint32_t>(f0.size()), p.payload_len, 1,
				 static_cast<uint16_t>(p.payload_len), 0, 0, {0, 0}},
				v.layout, p};
			seg.hdr = f1.data();
			seg.hdr_len = std::min<uint32_t>(static_cast<uint32_t>(f1.size()), TGC_MAX_HDR_BYTES);
			seg.pkt_len = static_cast<uint32_t>(f1.size());
			tgc_receive(&seg, &ops, &ctx, &r);
			SCOPED_TRACE(testing::Message() << "layout " << v.layout.inner_off << "/" << v.layout.tcp_off << "/"
							<< v.layout.payload_off << " encap " << unsigned(v.layout.encap)
							<< " held view " << v.hdr_len);
			EXPECT_EQ(r.fast, v.fast ? 1 : 0);
			EXPECT_EQ(r.v.action, TGC_MERGE);
			EXPECT_EQ(r.held, &ctx);
		}
	}
}

// The view op cannot give the whole headers (the kernel: the pull fails): the segment is passed as MALFORMED with no
// held packet, and nothing is looked up. With the view op giving them, the same segment is held.
TEST(FastStage, OffloadViewOpFailurePassesTheSegment)
{
	static unsigned finds;
	const std::vector<uint8_t> f = build(ipip());
	for (const int rc : {-1, 0}) {
		struct Ctx {
			const std::vector<uint8_t> *f;
			int rc;
		} ctx{&f, rc};
		finds = 0;
		const tgc_rx_ops ops = {
			nullptr,
			[](void *, const tgc_pkt *, const uint8_t *, tgc_held *) -> void * {
				finds++;
				return nullptr;
			},
			nullptr, nullptr,
			[](void *c, const uint8_t **hdr, uint32_t *len) {
				const Ctx *x = static_cast<const Ctx *>(c);
				*hdr = x->f->data();
				*len = static_cast<uint32_t>(x->f->size());
				return x->rc;
			},
			nullptr};
		tgc_seg seg{};
		seg.hdr = f.data();
		seg.hdr_len = 10; // the outer header's first bytes only
		seg.pkt_len = static_cast<uint32_t>(f.size());
		seg.encap = TGC_ENCAP_IPIP;
		tgc_rx_result r;
		tgc_receive(&seg, &ops, &ctx, &r);
		SCOPED_TRACE(rc);
		EXPECT_EQ(r.v.action, rc ? TGC_PASS : TGC_HOLD);
		EXPECT_EQ(r.v.reason, rc ? TGC_R_MALFORMED : TGC_R_NONE);
		EXPECT_EQ(r.parsed, rc ? 0 : 1);
		EXPECT_EQ(r.held, nullptr);
		EXPECT_EQ(finds, rc ? 0u : 1u);
	}
}

// The view op runs only where the parse finds the view too short (MALFORMED), or where a refused segment's flow is
// located (an outer flush: tgc_flow_of() reads up to the ports): a segment with its headers in view is held, and one
// of another protocol or with inner IPv4 options passed, without a call, so a view op that would fail changes
// nothing for them. The located case came from fuzz_receive (a refusal on a 40-byte view left its flow unlocated).
TEST(FastStage, OffloadViewOpOnlyForAShortView)
{
	struct Ctx {
		const std::vector<uint8_t> *f;
		int rc;
		unsigned views;
	};
	Segment opts = ipip();
	opts.inner4.options = {1, 1, 1, 1}; // NOPs: tgc_receive() never merges IPv4 options
	struct Case {
		const char *name;
		std::vector<uint8_t> f;
		uint32_t hdr_len; // 0: what tgc_parse() says the headers are
		uint32_t in;
		int rc;
		uint8_t action, reason, located;
		unsigned views;
	};
	const Case cases[] = {
		{"TCP, the first page frag's bytes", build(ipip()), TGC_MAX_HDR_BYTES, 0, -1, TGC_HOLD, TGC_R_NONE, 0, 0},
		{"TCP, the headers exactly", build(ipip()), 0, 0, -1, TGC_HOLD, TGC_R_NONE, 0, 0},
		{"UDP, its headers", build(as_udp(ipip())), 48, 0, -1, TGC_PASS, TGC_R_NOT_TCP, 0, 0},
		{"inner options, 40 bytes", build(opts), 40, 0, -1, TGC_PASS, TGC_R_IP_OPTIONS, 0, 0},
		{"inner options, 40 bytes, outer flush", build(opts), 40, TGC_IN_OUTER_FLUSH, 0, TGC_PASS,
		 TGC_R_IP_OPTIONS, 1, 1},
		{"TCP, 30 bytes, the view op fails", build(ipip()), 30, 0, -1, TGC_PASS, TGC_R_MALFORMED, 0, 1},
		{"TCP, 30 bytes", build(ipip()), 30, 0, 0, TGC_HOLD, TGC_R_NONE, 0, 1},
	};
	const tgc_rx_ops ops = {nullptr, nullptr, nullptr, nullptr, [](void *c, const uint8_t **hdr, uint32_t *len) {
					Ctx *x = static_cast<Ctx *>(c);
					x->views++;
					*hdr = x->f->data();
					*len = std::min<uint32_t>(static_cast<uint32_t>(x->f->size()), TGC_MAX_HDR_BYTES);
					return x->rc;
				},
				nullptr};
	for (const Case &c : cases) {
		SCOPED_TRACE(c.name);
		tgc_seg seg{};
		seg.hdr = c.f.data();
		seg.pkt_len = static_cast<uint32_t>(c.f.size());
		seg.encap = TGC_ENCAP_IPIP;
		seg.in = c.in;
		tgc_pkt p;
		seg.hdr_len = c.hdr_len ? std::min(c.hdr_len, seg.pkt_len)
					: (tgc_parse(seg.hdr, seg.pkt_len, seg.pkt_len, seg.encap, &p), p.payload_off);
		Ctx ctx{&c.f, c.rc, 0};
		tgc_rx_result r;
		tgc_receive(&seg, &ops, &ctx, &r);
		EXPECT_EQ(r.v.action, c.action);
		EXPECT_EQ(r.v.reason, c.reason);
		EXPECT_EQ(r.located, c.located);
		EXPECT_EQ(ctx.views, c.views);
	}
}

// The same random trains at the edges as the engine's test above, through the offload model all three ways: every
// result equal (rx_counts), and the fast and predicted stages took a good share. Interleaved flows: the model offers
// the first held packet, as the kernel offers the first same_flow candidate, so a segment of another flow goes to
// the full stage.
TEST(FastStage, OffloadRandomTrainsGiveWhatTheFullParseGives)
{
	std::mt19937 rng(21);
	uint64_t fast = 0, predicted = 0, segs = 0;
	for (unsigned round = 0; round < 600; round++) {
		const Kind &k = kKinds[rng() % (sizeof(kKinds) / sizeof(kKinds[0]))];
		const unsigned nflows = 1 + rng() % 3, n = 4 + rng() % 20;
		const std::vector<std::vector<Segment>> per = edge_flows(rng, k, nflows, n);
		std::vector<std::vector<uint8_t>> frames;
		for (unsigned i = 0; i < n; i++) {
			// runs of one flow, as a NAPI poll mostly has them, and now and then another flow's segment
			const unsigned f = rng() % 4 == 0 ? rng() % nflows : 0;
			frames.push_back(edge_frame(rng, per[f][i]));
		}
		unsigned got = 0, pred = 0;
		rx_counts(frames, encap_of(per[0][0]), nullptr, &got, &pred);
		fast += got;
		predicted += pred;
		segs += frames.size();
	}
	EXPECT_GT(fast * 6, segs); // a fourth of the segments has a short view (the full stage), and mutations
	EXPECT_GT(predicted * 10, segs);
}

} // namespace
