// Cases "Malformed and hostile input" (M01-M08): passed up unmerged, never read past the frame (ASan: every
// view is its own allocation of exactly the bytes present), never dropped.
#include <gtest/gtest.h>

#include "test_util.hpp"

using namespace frames;

namespace {
// The malformed segment in the middle of a good train: the train around it still merges, nothing is lost.
// Returns the delivered segment counts sorted: a segment that does not parse has no flow to keep order with,
// so it goes up at once, ahead of the held packet (as in the kernel, where such a segment is GRO_NORMAL).
Counts around(Segment bad)
{
	auto t = train(ipip(), 5);
	bad.tcp.seq = t[2].tcp.seq;
	t[2] = bad;
	Counts c = gro_counts(t);
	std::sort(c.begin(), c.end());
	return c;
}
unsigned parse_reason(const std::vector<uint8_t> &f, unsigned encap = TGC_ENCAP_IPIP)
{
	std::vector<uint8_t> exact(f); // own allocation: ASan reports any read past the end
	tgc_pkt p{};
	return tgc_parse(exact.data(), std::min<uint32_t>(exact.size(), TGC_MAX_HDR_BYTES), exact.size(), encap, &p);
}
} // namespace

TEST(Malformed, M01_InnerIhl4AndIhl6AreNotMerged)
{
	Segment s = ipip();
	s.inner4.ihl = 4;
	EXPECT_EQ(parse_reason(build(s)), TGC_R_MALFORMED);
	s.inner4.ihl = 6;
	EXPECT_EQ(parse_reason(build(s)), TGC_R_IP_OPTIONS);
	EXPECT_EQ(around(s), Counts({1, 2, 2}));
}

TEST(Malformed, M02_OuterLengthLargerThanTheFrame)
{
	Segment s = ipip();
	s.outer_len_delta = +100;
	EXPECT_EQ(parse_reason(build(s)), TGC_R_MALFORMED);
	EXPECT_EQ(around(s), Counts({1, 2, 2}));
}

TEST(Malformed, M02_TruncatedSegmentKeepsItsFlowsOrder)
{
	// The truncated segment cannot merge, but its flow is found: the held packet goes up first, then it.
	auto t = train(ipip(), 4);
	t[1].outer_len_delta = +200;
	MiniGro g(TGC_ENCAP_IPIP);
	g.receive_all(build_all(t));
	g.flush();
	ASSERT_EQ(g.seg_counts(), Counts({1, 1, 2}));
	EXPECT_TRUE(g.delivered()[0].parsed);
	EXPECT_EQ(g.delivered()[1].pass_reason, TGC_R_MALFORMED);
	for (const Segment &s : {ipip(), sit()}) {
		auto f = build(s);
		tgc_pkt p{};
		ASSERT_EQ(tgc_flow_of(f.data(), TGC_MAX_HDR_BYTES, encap_of(s), &p), 1);
		EXPECT_EQ(p.tcp_off, s.encap == Encap::SIT ? 60 : 40);
		EXPECT_EQ(tgc_flow_of(f.data(), p.tcp_off + 3u, encap_of(s), &p), 0) << "ports must be inside the view";
	}
}

TEST(Malformed, M03_EthernetPaddingNeverBecomesPayload)
{
	Segment s = ipip();
	s.payload_len = 2;
	s.padding = 6;
	{
		auto f = build(s);
		tgc_pkt p{};
		ASSERT_EQ(tgc_parse(f.data(), f.size(), f.size(), TGC_ENCAP_IPIP, &p), TGC_R_NONE);
		EXPECT_EQ(p.padded, 1);
		EXPECT_EQ(p.payload_len, 2u) << "padding is not payload";
	}
	auto t = train(ipip(), 3);
	Segment last = s;
	last.tcp.seq = t[2].tcp.seq + 1400;
	t.push_back(last);
	MiniGro g(TGC_ENCAP_IPIP);
	g.receive_all(build_all(t));
	g.flush();
	// The held 3 go up first (order kept), then the padded segment alone, never merged.
	ASSERT_EQ(g.seg_counts(), Counts({3, 1}));
	EXPECT_EQ(g.delivered()[1].pass_reason, TGC_R_PADDING);
	for (const auto &d : g.delivered()) {
		if (d.segs == 3) {
			EXPECT_EQ(d.bytes.size(), 60u + 3 * 1400) << "no padding byte in the GRO packet";
		}
	}
}

TEST(Malformed, M04_TcpDataOffsetTooSmallOrTooLarge)
{
	Segment s = ipip();
	s.tcp.doff_override = 4;
	EXPECT_EQ(parse_reason(build(s)), TGC_R_MALFORMED);
	s.payload_len = 8;
	s.tcp.doff_override = 15; // 60 bytes of header, only 28 present
	EXPECT_EQ(parse_reason(build(s)), TGC_R_MALFORMED);
	EXPECT_EQ(around(s), Counts({1, 2, 2}));
}

TEST(Malformed, M05_InnerFragmentsAreNotMerged)
{
	Segment s = ipip();
	s.inner4.mf = true;
	EXPECT_EQ(parse_reason(build(s)), TGC_R_FRAGMENT);
	s.inner4.mf = false;
	s.inner4.frag_offset = 185;
	EXPECT_EQ(parse_reason(build(s)), TGC_R_FRAGMENT);
}

TEST(Malformed, M06_NestedTunnelsAreNotAggregatedNorRecursed)
{
	// IPIP inside IPIP: the inner header says protocol 4 again.
	Segment s = ipip();
	s.inner_proto_override = 4;
	EXPECT_EQ(parse_reason(build(s)), TGC_R_NESTED);
	// 16 layers of IPIP: hand-made, every layer claims protocol 4; one look, no recursion, no crash.
	std::vector<uint8_t> deep;
	auto inner = build(ipip());
	deep = inner;
	for (int i = 0; i < 16; i++) {
		std::vector<uint8_t> outer(20, 0);
		outer[0] = 0x45;
		uint16_t len = static_cast<uint16_t>(20 + deep.size());
		outer[2] = len >> 8;
		outer[3] = len & 0xff;
		outer[6] = 0x40;
		outer[8] = 64;
		outer[9] = 4;
		uint32_t sum = 0;
		for (int k = 0; k < 20; k += 2)
			sum += (outer[k] << 8) | outer[k + 1];
		while (sum >> 16)
			sum = (sum & 0xffff) + (sum >> 16);
		outer[10] = static_cast<uint8_t>(~sum >> 8);
		outer[11] = static_cast<uint8_t>(~sum);
		outer.insert(outer.end(), deep.begin(), deep.end());
		deep = outer;
	}
	EXPECT_EQ(parse_reason(deep), TGC_R_NESTED);
	MiniGro g(TGC_ENCAP_IPIP);
	g.receive(deep);
	g.flush();
	EXPECT_EQ(g.seg_counts(), Counts({1}));
}

TEST(Malformed, M07_FrameEndsInsideTheInnerHeader)
{
	auto f = build(ipip());
	for (size_t cut : {0u, 1u, 19u, 20u, 30u, 39u, 40u, 50u, 59u}) {
		std::vector<uint8_t> t(f.begin(), f.begin() + cut);
		EXPECT_NE(parse_reason(t), TGC_R_NONE) << "cut at " << cut;
	}
}

TEST(Malformed, M08_IcmpInsideIpipIsPassedThrough)
{
	Segment s = ipip();
	s.inner_proto_override = 1;
	EXPECT_EQ(parse_reason(build(s)), TGC_R_NOT_TCP);
	EXPECT_EQ(around(s), Counts({1, 2, 2}));
}

TEST(Malformed, EveryTruncationOfEveryEncapIsRefusedWithoutOverread)
{
	for (const Segment &s : {ipip(), sit(), plain4()}) {
		auto f = build(s);
		for (size_t cut = 0; cut < f.size(); cut++) {
			std::vector<uint8_t> t(f.begin(), f.begin() + cut);
			EXPECT_NE(parse_reason(t, encap_of(s)), TGC_R_NONE);
		}
		EXPECT_EQ(parse_reason(f, encap_of(s)), TGC_R_NONE);
	}
}
