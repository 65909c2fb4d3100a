// Parity with Linux 6.12 on the IPv6 shapes a review found at the edges (issue 9): tests named ...As612 state what
// 6.12's GRO does (ipv6_gro_receive walks any number of hop-by-hop, routing and destination options headers,
// ip6_offload.c ipv6_gro_pull_exthdrs, no bound), and the engine's glue loop of detect-and-pull.
#include <gtest/gtest.h>

#include "test_util.hpp"

using namespace frames;

namespace {

using Frames = std::vector<std::vector<uint8_t>>;

// A segment routing header (RFC 8754, routing type 4) of @n segments, segments left @left: 8 + 16n bytes.
ExtHdr srh(unsigned n, uint8_t left = 0)
{
	ExtHdr e{43, std::vector<uint8_t>(6 + 16 * n, 0)};
	e.data[0] = 4;
	e.data[1] = left;
	e.data[2] = static_cast<uint8_t>(n - 1);
	for (unsigned i = 0; i < n; i++)
		e.data[6 + 16 * i + 15] = static_cast<uint8_t>(0x40 + i);
	return e;
}

Frames train_of(const Segment &s, unsigned n) { return build_all(train(s, n)); }

Counts engine_counts(const Frames &f, unsigned encap)
{
	MiniGro g(encap);
	for (const auto &x : f)
		g.receive(x, encap);
	g.flush();
	return g.seg_counts();
}

// The engine glue's loop (tungro_rxq_feed) over frame @f: from the IP header the rx_handler pulled, detect the
// tunnel on the bytes so far, pull what tgc_hdr_need asks for, again; every step's view is an exact allocation
// (ASan). false if a step asked for more than the frame or TGC_MAX_HDR_BYTES, or did not end.
bool glue_pull(const std::vector<uint8_t> &f, unsigned *encap, uint32_t *have)
{
	const uint32_t n = static_cast<uint32_t>(f.size());
	*have = (f[0] >> 4) == 4 ? 20 : 40;
	for (unsigned steps = 0; steps < 64; steps++) {
		const std::vector<uint8_t> view(f.begin(), f.begin() + *have);
		*encap = tgc_encap_detect(view.data(), *have);
		const uint32_t need = tgc_hdr_need(view.data(), *have, n, *encap);
		if (need <= *have)
			return true;
		if (need > std::min(n, TGC_MAX_HDR_BYTES))
			return false;
		*have = need;
	}
	return false;
}

// SRv6 H.Encaps (the receiving endpoint, segments left 0): outer IPv6 + SRH of 4 SIDs (72 bytes) + inner IPv6,
// TCP. 6.12 merges the train (routing header is INET6_PROTO_GSO_EXTHDR, walked and memcmp'd). On the engine
// path the device's own GRO is off, so nobody else merges it.
TEST(FamilyParity, Ip6ip6WithSrhOfFourSegmentsMergesInTheEngineAs612)
{
	Segment s = ip6ip6();
	s.outer6.ext.push_back(srh(4));
	const Frames f = train_of(s, 8);
	EXPECT_EQ(tgc_encap_detect(f[0].data(), static_cast<uint32_t>(f[0].size())), unsigned(TGC_ENCAP_IP6IP6))
		<< "the engine glue's tunnel detection";
	EXPECT_EQ(engine_counts(f, TGC_ENCAP_IP6IP6), Counts({8}));
}

// Plain TCP/IPv6 with hop-by-hop + three destination options headers + a routing header (5 headers, 40 bytes):
// 6.12 merges, and so does the engine (within TGC_MAX_EXT_HDRS / TGC_MAX_EXT_BYTES).
TEST(FamilyParity, Plain6WithFiveExtHeadersMergesInTheEngineAs612)
{
	Segment s = sit();
	s.encap = Encap::Plain6;
	s.inner6.ext = {ExtHdr{0, {1, 4, 0, 0, 0, 0}}, ExtHdr{60, {1, 4, 0, 0, 0, 0}}, ExtHdr{60, {1, 4, 0, 0, 0, 0}},
			ExtHdr{60, {1, 4, 0, 0, 0, 0}}, srh(1)};
	EXPECT_EQ(engine_counts(train_of(s, 8), TGC_ENCAP_NONE), Counts({8}));
}

// Parity checks (expected to pass): a routing header with segments left != 0 is walked and merged as 6.12 does;
// a fragment header after a routing header, in the inner layer, is never merged.
TEST(FamilyParity, RoutingHeaderWithSegmentsLeftMergesLike612)
{
	Segment s = sit();
	s.inner6.ext.push_back(srh(2, 1));
	EXPECT_EQ(engine_counts(train_of(s, 8), TGC_ENCAP_SIT), Counts({8}));
	EXPECT_EQ(rx_counts(train_of(s, 8), TGC_ENCAP_SIT), Counts({8}));
}

TEST(FamilyParity, FragmentAfterRoutingHeaderInnerIsNotMerged)
{
	Segment s = sit();
	s.inner6.ext.push_back(srh(1));
	s.inner6.ext.push_back(ExtHdr{44, {0, 0, 0, 0, 0, 9}});
	std::vector<unsigned> reasons;
	EXPECT_EQ(rx_counts(train_of(s, 4), TGC_ENCAP_SIT, &reasons), Counts({1, 1, 1, 1}));
	EXPECT_EQ(reasons, std::vector<unsigned>(4, unsigned(TGC_R_FRAGMENT)));
	EXPECT_EQ(engine_counts(train_of(s, 4), TGC_ENCAP_SIT), Counts({1, 1, 1, 1}));
}

// The engine glue's loop (glue_pull) must end with exactly the headers of every valid shape, the tunnel detected,
// and parse as with the whole frame.
TEST(FamilyParity, EngineGlueDetectAndPullLoopConvergesOnEveryShape)
{
	std::vector<Segment> shapes;
	for (Segment base : {ipip(), sit(), ip4ip6(), ip6ip6()}) {
		shapes.push_back(base);
		if (base.encap == Encap::IP4IP6 || base.encap == Encap::IP6IP6) {
			Segment a = base;
			a.outer6.ext = {ExtHdr{0, {1, 4, 0, 0, 0, 0}}, encap_limit()};
			shapes.push_back(a);
			Segment b = base;
			b.outer6.ext = {srh(3)};
			b.tcp.options = std::vector<uint8_t>(40, 1);
			shapes.push_back(b);
		}
		if (base.encap == Encap::SIT || base.encap == Encap::IP6IP6) {
			Segment c = base;
			c.inner6.ext = {ExtHdr{60, std::vector<uint8_t>(30, 0)}};
			shapes.push_back(c);
		}
	}
	Segment p6 = sit();
	p6.encap = Encap::Plain6;
	p6.inner6.ext = {ExtHdr{0, {1, 4, 0, 0, 0, 0}}, srh(2)};
	shapes.push_back(p6);
	for (const Segment &s : shapes) {
		const auto f = build(s);
		const uint32_t n = static_cast<uint32_t>(f.size());
		unsigned encap;
		uint32_t have, need;
		ASSERT_TRUE(glue_pull(f, &encap, &have));
		EXPECT_EQ(encap, encap_of(s)) << "shape " << int(s.encap);
		tgc_pkt p{}, q{};
		const std::vector<uint8_t> view(f.begin(), f.begin() + have);
		ASSERT_EQ(tgc_parse(view.data(), have, n, encap, &p), TGC_R_NONE) << "shape " << int(s.encap);
		ASSERT_EQ(tgc_parse(f.data(), n, n, encap_of(s), &q), TGC_R_NONE);
		EXPECT_EQ(have, p.payload_off) << "no payload byte pulled, every header byte pulled";
		EXPECT_EQ(p.tcp_off, q.tcp_off);
		// The offload path's loop (tungro_header_view): the slot's encap fixed, from nothing.
		uint32_t h = 0;
		while ((need = tgc_hdr_need(h ? f.data() : nullptr, h, n, encap_of(s))) > h) {
			ASSERT_LE(need, n);
			h = need;
		}
		EXPECT_EQ(h, p.payload_off);
	}
}

} // namespace

namespace {
// Random extension-header chains in either IPv6 layer of every tunnel: the engine glue's detect-and-pull loop
// ends with the verdict tgc_parse gives on the whole frame (seen up to TGC_MAX_HDR_BYTES), and never asks past it.
TEST(FamilyParity, RandomExtChainsGlueLoopAgreesWithWholeFrameParse)
{
	uint32_t rnd = 12345;
	auto next = [&rnd](uint32_t m) { rnd = rnd * 1103515245u + 12345u; return (rnd >> 8) % m; };
	const uint8_t types[] = {0, 43, 60, 60, 44, 50};
	unsigned mismatches = 0;
	for (unsigned it = 0; it < 4000; it++) {
		Segment s;
		switch (next(5)) {
		case 0: s = sit(); break;
		case 1: s = ip4ip6(); break;
		case 2: s = ip6ip6(); break;
		case 3: s = sit(); s.encap = Encap::Plain6; break;
		default: s = ipip(); break;
		}
		auto chain = [&](std::vector<ExtHdr> &v) {
			for (unsigned k = next(4); k; k--)
				v.push_back(ExtHdr{types[next(sizeof types)], std::vector<uint8_t>(6 + 8 * next(6), 0)});
		};
		if (s.encap == Encap::IP4IP6 || s.encap == Encap::IP6IP6)
			chain(s.outer6.ext);
		if (s.encap != Encap::IPIP && s.encap != Encap::IP4IP6)
			chain(s.inner6.ext);
		s.payload_len = 100 + next(1300);
		const auto f = build(s);
		const uint32_t n = static_cast<uint32_t>(f.size());
		unsigned encap;
		uint32_t have;
		ASSERT_TRUE(glue_pull(f, &encap, &have));
		const std::vector<uint8_t> view(f.begin(), f.begin() + have);
		tgc_pkt p{}, q{};
		const unsigned a = tgc_parse(view.data(), have, n, encap, &p);
		const unsigned whole = tgc_encap_detect(f.data(), std::min(n, TGC_MAX_HDR_BYTES));
		const unsigned b = tgc_parse(f.data(), std::min(n, TGC_MAX_HDR_BYTES), n, whole, &q);
		if (a != b || (a == TGC_R_NONE && have != p.payload_off)) {
			if (mismatches++ < 5)
				ADD_FAILURE() << "it " << it << " encap " << encap << "/" << whole << " reason " << a << " vs " << b
					      << " have " << have;
		}
	}
	EXPECT_EQ(mismatches, 0u);
}
} // namespace
