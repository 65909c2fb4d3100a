// Cases "TCP rules" (P01-P12), on IPIP unless said otherwise.
#include <gtest/gtest.h>

#include "test_util.hpp"

using namespace frames;

namespace {
constexpr uint8_t ACK = 0x10, PSH = 0x08, SYN = 0x02, RST = 0x04, URG = 0x20, CWR = 0x80, FIN = 0x01;
}

TEST(TcpRules, P01_PshEndsThePacketAndIsCarried)
{
	auto t = train(ipip(), 6);
	t[3].tcp.flags = ACK | PSH;
	MiniGro g(TGC_ENCAP_IPIP);
	g.receive_all(build_all(t));
	g.flush();
	ASSERT_EQ(g.seg_counts(), Counts({4, 2}));
	const auto &first = g.delivered()[0];
	EXPECT_TRUE(first.bytes[40 + 13] & PSH) << "PSH must be carried in the GRO packet";
}

TEST(TcpRules, P02_SynRstUrgAreDeliveredAloneAfterTheHeldPacket)
{
	for (uint8_t f : {uint8_t(ACK | SYN), uint8_t(ACK | RST), uint8_t(ACK | URG)}) {
		auto t = train(ipip(), 5);
		t[2].tcp.flags = f;
		EXPECT_EQ(gro_counts(t), Counts({2, 1, 2})) << "flags " << int(f);
	}
}

TEST(TcpRules, P03_CwrStartsANewPacket)
{
	auto t = train(ipip(), 6);
	t[2].tcp.flags = ACK | CWR;
	MiniGro g(TGC_ENCAP_IPIP);
	g.receive_all(build_all(t));
	g.flush();
	ASSERT_EQ(g.seg_counts(), Counts({2, 4}));
	EXPECT_EQ(g.delivered()[1].completion.ecn, 1) << "CWR in the first segment sets SKB_GSO_TCP_ECN";
}

TEST(TcpRules, P04_PureAckIsNeverMergedAndFollowsTheHeldPacket)
{
	auto t = train(ipip(), 4);
	Segment ack = t[3];
	ack.payload_len = 0;
	t.insert(t.begin() + 3, ack);
	MiniGro g(TGC_ENCAP_IPIP);
	g.receive_all(build_all(t));
	g.flush();
	ASSERT_EQ(g.seg_counts(), Counts({3, 1, 1}));
	EXPECT_EQ(g.delivered()[1].pass_reason, TGC_R_NO_PAYLOAD);
}

TEST(TcpRules, P05_AckSeqChange)
{
	auto t = train(ipip(), 6);
	for (size_t i = 2; i < 6; i++)
		t[i].tcp.ack = 99;
	EXPECT_EQ(gro_counts(t), Counts({2, 4}));
}

TEST(TcpRules, P06_WindowChange)
{
	auto t = train(ipip(), 6);
	for (size_t i = 2; i < 6; i++)
		t[i].tcp.window = 1024;
	EXPECT_EQ(gro_counts(t), Counts({2, 4}));
}

TEST(TcpRules, P07_IdenticalTimestampsMergeAndATsvalChangeSplits)
{
	Segment s = ipip();
	s.tcp.options = {1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2}; // NOP NOP TS(1, 2)
	EXPECT_EQ(gro_counts(train(s, 6)), Counts({6}));
	auto t = train(s, 6);
	for (size_t i = 2; i < 6; i++)
		t[i].tcp.options[7] = 9;
	EXPECT_EQ(gro_counts(t), Counts({2, 4}));
}

TEST(TcpRules, P08_SequenceGap)
{
	auto t = train(ipip(), 6);
	for (size_t i = 2; i < 6; i++)
		t[i].tcp.seq += 1400;
	EXPECT_EQ(gro_counts(t), Counts({2, 4}));
}

TEST(TcpRules, P09_SegmentLargerThanHeldMss)
{
	Segment s = ipip();
	s.payload_len = 1000;
	auto t = train(s, 2);
	Segment big = t[1];
	big.tcp.seq += 1000;
	big.payload_len = 1400;
	big.inner4.id++;
	t.push_back(big);
	EXPECT_EQ(gro_counts(t), Counts({2, 1}));
}

TEST(TcpRules, P10_ShortSegmentIsMergedAndEndsThePacket)
{
	auto t = train(ipip(), 6);
	t[2].payload_len = 600;
	for (size_t i = 3; i < 6; i++)
		t[i].tcp.seq -= 800;
	EXPECT_EQ(gro_counts(t), Counts({3, 3}));
}

TEST(TcpRules, P11_SixtyFourKibLimitSplitsLosingNothing)
{
	auto t = train(ipip(), 60); // 60 x 1460 bytes > 64 KiB
	MiniGro g(TGC_ENCAP_IPIP);
	g.receive_all(build_all(t));
	g.flush();
	unsigned total = 0;
	for (const auto &d : g.delivered()) {
		EXPECT_LT(d.bytes.size(), 65536u);
		total += d.segs;
	}
	EXPECT_EQ(total, 60u);
	// 40 bytes of headers + n x 1400 < 65536 -> at most 46 segments per packet.
	EXPECT_EQ(g.seg_counts(), Counts({46, 14}));
	EXPECT_EQ(g.reason_count(TGC_R_SIZE), 1u);
}

TEST(TcpRules, P12_BadChecksumWithoutDeviceHelpIsNotMerged)
{
	auto t = train(ipip(), 4);
	t[1].bad_tcp_csum = true;
	MiniGro g(TGC_ENCAP_IPIP, /*device_checksum_help=*/false);
	g.receive_all(build_all(t));
	g.flush();
	ASSERT_EQ(g.seg_counts(), Counts({1, 1, 2}));
	EXPECT_EQ(g.delivered()[1].pass_reason, TGC_R_CSUM);
	EXPECT_EQ(g.delivered()[1].bytes, build(t[1])) << "delivered as is";
}
