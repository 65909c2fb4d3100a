// Cases "Tunnel basics" (T01-T05) of ../shared/cases/gro-cases.md, plus A02/A03 alignment and byte order.
#include <gtest/gtest.h>

#include "test_util.hpp"

using namespace frames;

TEST(TunnelBasics, T01_IpipEightSegmentsMergeIntoOne)
{
	EXPECT_EQ(gro_counts(train(ipip(), 8)), Counts({8}));
}

TEST(TunnelBasics, T02_SitOuterIdsIncrementWithDfClearMerge)
{
	Segment s = sit();
	s.outer.df = false;
	s.outer.id = 7;
	// IPv6 has no IP ID: only the outer IPv4 ID is checked, and 7, 8, 9 ... increments.
	EXPECT_EQ(gro_counts(train(s, 8, +1)), Counts({8}));
}

TEST(TunnelBasics, T03_SitOuterDfFixedIdMerge)
{
	EXPECT_EQ(gro_counts(train(sit(), 8)), Counts({8}));
}

TEST(TunnelBasics, T04_TwoInterleavedIpipFlowsStayApartAndInOrder)
{
	Segment a = ipip(), b = ipip();
	b.tcp.sport = 40001;
	b.tcp.seq = 900000;
	auto ta = train(a, 6), tb = train(b, 6);
	std::vector<Segment> mixed;
	for (int i = 0; i < 6; i++) {
		mixed.push_back(ta[i]);
		mixed.push_back(tb[i]);
	}
	MiniGro g(TGC_ENCAP_IPIP);
	g.receive_all(build_all(mixed));
	g.flush();
	ASSERT_EQ(g.seg_counts(), Counts({6, 6}));
	for (const auto &d : g.delivered()) {
		ASSERT_EQ(d.seqs.size(), 6u);
		for (size_t i = 1; i < d.seqs.size(); i++)
			EXPECT_EQ(d.seqs[i], d.seqs[i - 1] + 1400) << "segments of one flow out of order";
	}
}

TEST(TunnelBasics, T05_IpipAndPlainWithSameInnerTupleNeverMerge)
{
	Segment t = ipip();
	Segment p = plain4();
	// Same addresses and ports as the IPIP packet's inner header.
	p.outer.saddr = t.inner4.saddr;
	p.outer.daddr = t.inner4.daddr;
	auto ft = build(t), fp = build(p);
	tgc_pkt pt{}, pp{};
	ASSERT_EQ(tgc_parse(ft.data(), ft.size(), ft.size(), TGC_ENCAP_IPIP, &pt), TGC_R_NONE);
	ASSERT_EQ(tgc_parse(fp.data(), fp.size(), fp.size(), TGC_ENCAP_NONE, &pp), TGC_R_NONE);
	EXPECT_FALSE(tgc_same_flow(&pt, ft.data(), fp.data(), fp.size()));
	EXPECT_FALSE(tgc_same_flow(&pp, fp.data(), ft.data(), ft.size()));
	// And the tunnel parser refuses a plain packet outright.
	EXPECT_NE(tgc_parse(fp.data(), fp.size(), fp.size(), TGC_ENCAP_IPIP, &pt), TGC_R_NONE);
}

TEST(Layout, A02_HeadersAtTwoModFourMergeTheSame)
{
	for (unsigned align : {0u, 1u, 2u, 3u}) {
		EXPECT_EQ(gro_counts(train(ipip(), 8), true, align), Counts({8})) << "align " << align;
		EXPECT_EQ(gro_counts(train(sit(), 8), true, align), Counts({8})) << "align " << align;
	}
}

TEST(Layout, A03_FieldsAreReadBigEndianWhateverTheHost)
{
	// Sequence number 0x01020304 must come out as that value on any host byte order.
	Segment s = ipip();
	s.tcp.seq = 0x01020304;
	auto f = build(s);
	tgc_pkt p{};
	ASSERT_EQ(tgc_parse(f.data(), f.size(), f.size(), TGC_ENCAP_IPIP, &p), TGC_R_NONE);
	EXPECT_EQ(p.seq, 0x01020304u);
	EXPECT_EQ(p.payload_len, 1400u);
	EXPECT_EQ(p.inner_off, 20u);
	EXPECT_EQ(p.tcp_off, 40u);
	EXPECT_EQ(p.payload_off, 60u);
}
