// Cases "Layer-3 flush rules" (L01-L14): checked once against the matched held packet, outer and inner.
#include <gtest/gtest.h>

#include "test_util.hpp"

using namespace frames;

TEST(Layer3, L01_InnerTtlChangeOnSegment3)
{
	auto t = train(ipip(), 6);
	for (size_t i = 2; i < 6; i++)
		t[i].inner4.ttl = 63;
	EXPECT_EQ(gro_counts(t), Counts({2, 4}));
}

TEST(Layer3, L02_OuterTtlChangeOnSegment3)
{
	auto t = train(ipip(), 6);
	for (size_t i = 2; i < 6; i++)
		t[i].outer.ttl = 63;
	EXPECT_EQ(gro_counts(t), Counts({2, 4}));
}

TEST(Layer3, L03_InnerTosCeMarkOnSegment4)
{
	auto t = train(ipip(), 6);
	for (size_t i = 3; i < 6; i++)
		t[i].inner4.tos = 0x03; // ECN CE
	EXPECT_EQ(gro_counts(t), Counts({3, 3}));
}

TEST(Layer3, L03_OuterTosChangeOnSegment4)
{
	auto t = train(ipip(), 6);
	for (size_t i = 3; i < 6; i++)
		t[i].outer.tos = 0x10;
	EXPECT_EQ(gro_counts(t), Counts({3, 3}));
}

TEST(Layer3, L04_InnerDfDiffersOnSegment2)
{
	auto t = train(ipip(), 6);
	for (size_t i = 1; i < 6; i++)
		t[i].inner4.df = false;
	EXPECT_EQ(gro_counts(t), Counts({1, 5}));
}

static std::vector<Segment> inner_ids(bool df, std::vector<uint16_t> ids)
{
	auto t = train(ipip(), static_cast<unsigned>(ids.size()));
	for (size_t i = 0; i < ids.size(); i++) {
		t[i].inner4.df = df;
		t[i].inner4.id = ids[i];
	}
	return t;
}

TEST(Layer3, L05_InnerDfClearIncrementingIds)
{
	EXPECT_EQ(gro_counts(inner_ids(false, {100, 101, 102, 103})), Counts({4}));
}

TEST(Layer3, L06_InnerIdGapBreaksTheChain)
{
	EXPECT_EQ(gro_counts(inner_ids(false, {100, 101, 103, 104})), Counts({2, 2}));
}

TEST(Layer3, L07_InnerDfFixedIdMergesWithFixedId)
{
	MiniGro g(TGC_ENCAP_IPIP);
	g.receive_all(build_all(inner_ids(true, {5, 5, 5, 5, 5})));
	g.flush();
	ASSERT_EQ(g.seg_counts(), Counts({5}));
	EXPECT_EQ(g.delivered()[0].completion.fixedid, 1);
	EXPECT_EQ(g.last_verdict().fixedid, 1) << "the kernel's ip_fixedid must agree";
}

TEST(Layer3, L08_TwoFixedThenOneIncrementing)
{
	EXPECT_EQ(gro_counts(inner_ids(true, {5, 5, 6})), Counts({2, 1}));
}

TEST(Layer3, L09_TwoIncrementingThenOneFixed)
{
	EXPECT_EQ(gro_counts(inner_ids(true, {5, 6, 6})), Counts({2, 1}));
}

TEST(Layer3, L10_OuterIncrementingInnerFixedIsPerLayer)
{
	auto t = inner_ids(true, {9, 9, 9});
	for (size_t i = 0; i < 3; i++) {
		t[i].outer.df = false;
		t[i].outer.id = static_cast<uint16_t>(100 + i);
	}
	MiniGro g(TGC_ENCAP_IPIP);
	g.receive_all(build_all(t));
	g.flush();
	ASSERT_EQ(g.seg_counts(), Counts({3})); // 6.12 stops after 2: intended difference
	EXPECT_EQ(g.delivered()[0].id_state, TGC_ID_INCR(0) | TGC_ID_FIXED(1)); // outer increments, inner fixed
	EXPECT_EQ(g.delivered()[0].completion.fixedid, 1);
}

TEST(Layer3, L11_OuterRandomIdsWithDfDoNotMerge)
{
	auto t = train(ipip(), 3);
	const uint16_t ids[] = {9, 4711, 3};
	for (size_t i = 0; i < 3; i++)
		t[i].outer.id = ids[i];
	EXPECT_EQ(gro_counts(t), Counts({1, 1, 1})); // 6.12 merges all: intended difference
	// Counted as its own reason, so the difference from 6.12 is measured wherever tungro runs (demo, debugfs).
	MiniGro g(TGC_ENCAP_IPIP);
	g.receive_all(build_all(t));
	g.flush();
	EXPECT_EQ(g.reason_count(TGC_R_OUTER_ID), 2u);
	EXPECT_EQ(g.reason_count(TGC_R_IP_ID), 0u);
	EXPECT_STREQ(tgc_reason_name(TGC_R_OUTER_ID), "outer_id");
}

// The same random outer IDs with DF clear: 6.12 checks them too, so it is the plain ID rule, not L11's.
TEST(Layer3, L11_OuterRandomIdsWithoutDfAreTheIdRule)
{
	auto t = train(ipip(), 3);
	const uint16_t ids[] = {9, 4711, 3};
	for (size_t i = 0; i < 3; i++) {
		t[i].outer.id = ids[i];
		t[i].outer.df = false;
	}
	MiniGro g(TGC_ENCAP_IPIP);
	g.receive_all(build_all(t));
	g.flush();
	EXPECT_EQ(g.seg_counts(), Counts({1, 1, 1}));
	EXPECT_EQ(g.reason_count(TGC_R_IP_ID), 2u);
	EXPECT_EQ(g.reason_count(TGC_R_OUTER_ID), 0u);
}

TEST(Layer3, L12_InnerDfClearFixedIdMerges)
{
	MiniGro g(TGC_ENCAP_IPIP);
	g.receive_all(build_all(inner_ids(false, {42, 42, 42, 42})));
	g.flush();
	ASSERT_EQ(g.seg_counts(), Counts({4})); // 6.12 does not merge: intended difference
	EXPECT_TRUE(g.delivered()[0].id_state & TGC_ID_FIXED(1));
	// No FIXEDID without DF: 6.12's GSO would refuse to segment the packet again.
	EXPECT_EQ(g.delivered()[0].completion.fixedid, 0);
	EXPECT_EQ(g.last_verdict().fixedid, 0) << "the kernel's ip_fixedid must agree";
}

TEST(Layer3, L13_SitInnerHopLimitChangeOnSegment2)
{
	auto t = train(sit(), 5);
	for (size_t i = 1; i < 5; i++)
		t[i].inner6.hop_limit = 63;
	EXPECT_EQ(gro_counts(t), Counts({1, 4}));
}

TEST(Layer3, L13_SitInnerTrafficClassChangeOnSegment2)
{
	auto t = train(sit(), 5);
	for (size_t i = 1; i < 5; i++)
		t[i].inner6.traffic_class = 0x20;
	EXPECT_EQ(gro_counts(t), Counts({1, 4}));
}

TEST(Layer3, L14_SitFlowLabelSeparatesFlowsWithoutFlushing)
{
	Segment a = sit(), b = sit();
	b.inner6.flow_label = 0x12345;
	b.tcp.seq = 500000;
	auto ta = train(a, 4), tb = train(b, 4);
	std::vector<Segment> mixed;
	for (int i = 0; i < 4; i++) {
		mixed.push_back(ta[i]);
		mixed.push_back(tb[i]);
	}
	MiniGro g(TGC_ENCAP_SIT);
	g.receive_all(build_all(mixed));
	g.flush();
	EXPECT_EQ(g.seg_counts(), Counts({4, 4}));
	EXPECT_EQ(g.reason_count(TGC_R_TOS) + g.reason_count(TGC_R_TTL), 0u);
}
