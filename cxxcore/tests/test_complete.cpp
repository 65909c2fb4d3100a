// gro_complete fixups: lengths, IPv4 header checksums, TCP pseudo-header checksum for CHECKSUM_PARTIAL, gso bits,
// and that the GRO packet resegments into the original wire segments (payloads, sequence numbers).
#include <gtest/gtest.h>

#include "test_util.hpp"

using namespace frames;

namespace {
uint16_t get16(const std::vector<uint8_t> &b, size_t at) { return static_cast<uint16_t>((b[at] << 8) | b[at + 1]); }
uint16_t fold_sum(const uint8_t *p, size_t n, uint32_t sum = 0)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		sum += (p[i] << 8) | p[i + 1];
	if (n & 1)
		sum += p[n - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return static_cast<uint16_t>(sum);
}
} // namespace

TEST(Complete, IpipLengthsChecksumsAndGsoBits)
{
	auto t = train(ipip(), 8);
	MiniGro g(TGC_ENCAP_IPIP);
	g.receive_all(build_all(t));
	g.flush();
	ASSERT_EQ(g.seg_counts(), Counts({8}));
	const auto &d = g.delivered()[0];
	const auto &b = d.bytes;
	ASSERT_EQ(b.size(), 60u + 8 * 1400);
	EXPECT_EQ(get16(b, 2), b.size());                     // outer total length
	EXPECT_EQ(fold_sum(b.data(), 20), 0xffff);            // outer header checksum
	EXPECT_EQ(get16(b, 22), b.size() - 20);               // inner total length
	EXPECT_EQ(fold_sum(b.data() + 20, 20), 0xffff);       // inner header checksum
	// CHECKSUM_PARTIAL: the field holds the folded pseudo-header sum.
	uint32_t pseudo = fold_sum(b.data() + 32, 8) + 6 + (b.size() - 40);
	while (pseudo >> 16)
		pseudo = (pseudo & 0xffff) + (pseudo >> 16);
	EXPECT_EQ(get16(b, 40 + 16), pseudo);
	EXPECT_EQ(d.completion.tcp_off, 20);
	EXPECT_EQ(d.completion.csum_offset, 16);
	EXPECT_EQ(d.completion.tcpv6, 0);
	EXPECT_EQ(d.completion.fixedid, 0); // inner IDs increment
	EXPECT_EQ(d.gso_size, 1400u);
}

TEST(Complete, SitPayloadLengthAndTcpv6)
{
	MiniGro g(TGC_ENCAP_SIT);
	g.receive_all(build_all(train(sit(), 5)));
	g.flush();
	ASSERT_EQ(g.seg_counts(), Counts({5}));
	const auto &d = g.delivered()[0];
	EXPECT_EQ(get16(d.bytes, 2), d.bytes.size());
	EXPECT_EQ(get16(d.bytes, 24), d.bytes.size() - 60); // IPv6 payload length
	EXPECT_EQ(d.completion.tcpv6, 1);
	EXPECT_EQ(d.completion.fixedid, 0);
}

TEST(Complete, ResegmentsIntoTheOriginalSegments)
{
	for (const Segment &s : {ipip(), sit()}) {
		auto t = train(s, 7);
		MiniGro g(encap_of(s));
		g.receive_all(build_all(t));
		g.flush();
		ASSERT_EQ(g.seg_counts(), Counts({7}));
		const auto &d = g.delivered()[0];
		const size_t hl = s.encap == Encap::SIT ? 80 : 60;
		for (size_t i = 0; i < t.size(); i++) {
			auto orig = build(t[i]);
			// Payload slice i of the GRO packet equals segment i's payload; its sequence number follows.
			ASSERT_TRUE(std::equal(orig.begin() + hl, orig.end(), d.bytes.begin() + hl + i * d.gso_size));
			EXPECT_EQ(d.seqs[i], t[i].tcp.seq);
		}
	}
}

TEST(Complete, RefusesHeadersItCannotParse)
{
	std::vector<uint8_t> junk(40, 0);
	tgc_completion c{};
	EXPECT_EQ(tgc_complete(junk.data(), junk.size(), junk.size(), 0, 1, &c), -1);
}

TEST(Names, EveryReasonHasAName)
{
	for (unsigned r = 0; r < TGC_R_COUNT; r++)
		EXPECT_STRNE(tgc_reason_name(r), "?");
	EXPECT_STREQ(tgc_reason_name(TGC_R_COUNT), "?");
	EXPECT_EQ(tgc_hist_bucket(1), 0u);
	EXPECT_EQ(tgc_hist_bucket(2), 1u);
	EXPECT_EQ(tgc_hist_bucket(4), 2u);
	EXPECT_EQ(tgc_hist_bucket(5), 3u);
	EXPECT_EQ(tgc_hist_bucket(44), 6u);
}

// Plain TCP/IPv4 without IP options, the GRO packet tgc_finish() completes on its own short path (host-order sums
// of words loaded before any store): the same fields the general path writes, checked against sums made here byte
// by byte, over IDs that increment or stay, DF set or clear, TOS and TTL that put carries in the header sum, TCP
// timestamps (payload at 52), and a packet close to 64 KiB (a length whose high byte carries).
struct Plain4Case {
	const char *name;
	bool df;
	int id_step;       // 1: IDs increment; 0: fixed
	uint8_t tos, ttl;
	bool timestamps;   // 12 bytes of TCP options
	unsigned segs;
	uint32_t payload;
	bool fixedid;      // SKB_GSO_TCP_FIXEDID expected: fixed IDs with DF (6.12's GSO refuses it with DF clear)
};

class CompletePlain4 : public ::testing::TestWithParam<Plain4Case> {};

TEST_P(CompletePlain4, LengthsChecksumsAndGsoBits)
{
	const Plain4Case &c = GetParam();
	Segment s = plain4();
	s.outer.df = c.df;
	s.outer.tos = c.tos;
	s.outer.ttl = c.ttl;
	s.outer.id = 0xfffe; // the ID wraps inside the train when it increments
	s.payload_len = c.payload;
	if (c.timestamps)
		s.tcp.options = {1, 1, 8, 10, 0, 0, 0, 9, 0, 0, 0, 3};
	auto t = train(s, c.segs); // Plain4: the ID one up a segment
	for (unsigned i = 0; i < c.segs; i++)
		t[i].outer.id = static_cast<uint16_t>(s.outer.id + i * c.id_step);
	MiniGro g(TGC_ENCAP_NONE);
	g.receive_all(build_all(t));
	g.flush();
	ASSERT_EQ(g.seg_counts(), Counts({c.segs}));
	const auto &d = g.delivered()[0];
	const auto &b = d.bytes;
	const size_t hl = c.timestamps ? 52 : 40;
	ASSERT_EQ(b.size(), hl + size_t(c.segs) * c.payload);
	const auto first = build(t[0]);
	EXPECT_EQ(get16(b, 2), b.size());           // total length
	EXPECT_EQ(fold_sum(b.data(), 20), 0xffff);  // header checksum
	uint32_t pseudo = fold_sum(b.data() + 12, 8) + 6 + (b.size() - 20);
	while (pseudo >> 16)
		pseudo = (pseudo & 0xffff) + (pseudo >> 16);
	EXPECT_EQ(get16(b, 20 + 16), pseudo);       // CHECKSUM_PARTIAL: the folded pseudo-header sum
	// Every other header byte is the first segment's.
	for (size_t i = 0; i < hl; i++) {
		if (i == 2 || i == 3 || i == 10 || i == 11 || i == 36 || i == 37)
			continue;
		EXPECT_EQ(b[i], first[i]) << "header byte " << i;
	}
	EXPECT_EQ(d.completion.tcp_off, 20);
	EXPECT_EQ(d.completion.csum_offset, 16);
	EXPECT_EQ(d.completion.tcpv6, 0);
	EXPECT_EQ(d.completion.udp, 0);
	EXPECT_EQ(d.completion.ecn, 0);
	EXPECT_EQ(d.completion.fixedid, c.fixedid);
	EXPECT_EQ(d.gso_size, c.payload);
}

INSTANTIATE_TEST_SUITE_P(
	Plain4, CompletePlain4,
	::testing::Values(Plain4Case{"df_incrementing", true, 1, 0, 64, false, 8, 1400, false},
			  Plain4Case{"df_fixed_id", true, 0, 0, 64, false, 8, 1400, true},
			  Plain4Case{"no_df_fixed_id", false, 0, 0, 64, false, 8, 1400, false},
			  Plain4Case{"tos_ttl_carries", true, 1, 0xff, 0xff, false, 5, 1400, false},
			  Plain4Case{"timestamps", true, 1, 0x02, 1, true, 8, 1448, false},
			  Plain4Case{"near_64k", true, 1, 0, 64, true, 45, 1448, false}),
	[](const ::testing::TestParamInfo<Plain4Case> &i) { return std::string(i.param.name); });
