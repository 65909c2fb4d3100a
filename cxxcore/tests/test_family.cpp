// Cases "IP-in-IPv6 and IPv6 extension headers" (X01-X08) of ../shared/cases/gro-cases.md: one case table, each
// case run through the engine (MiniGro on tgc_engine_*) and through the receive loop (tgc_receive, the offload
// path's model), plus malformed and over-the-bound extension headers.
#include <gtest/gtest.h>

#include <string>

#include "test_util.hpp"

using namespace frames;

namespace {

using Frames = std::vector<std::vector<uint8_t>>;

// An 8-byte extension header of @type carrying one experimental option (type 0x1e: skip if unknown, RFC 4727)
// whose last byte is @v, so two such headers differ in exactly one byte.
ExtHdr opt_hdr(uint8_t type, uint8_t v = 0xd) { return ExtHdr{type, {0x1e, 4, 0xa, 0xb, 0xc, v}}; }

// A routing header of type 4 (segment routing, RFC 8754) with segments left 0 and one segment: 24 bytes.
ExtHdr srh()
{
	ExtHdr e{43, std::vector<uint8_t>(22, 0)};
	e.data[0] = 4;                     // routing type
	e.data[2] = 0;                     // last entry
	e.data[19] = e.data[21] = 0x2a;    // the segment: some address
	return e;
}

Frames build_train(const Segment &first, unsigned n, void (*edit)(unsigned i, Segment &s) = nullptr)
{
	auto t = train(first, n);
	if (edit)
		for (unsigned i = 0; i < n; i++)
			edit(i, t[i]);
	return build_all(t);
}

Segment with_outer_ext(Segment s, ExtHdr e)
{
	s.outer6.ext.push_back(std::move(e));
	return s;
}
Segment with_inner_ext(Segment s, ExtHdr e)
{
	s.inner6.ext.push_back(std::move(e));
	return s;
}

struct Case {
	const char *name;                 // starts with the case id
	unsigned encap;
	Frames (*frames)();
	Counts want;
	unsigned reason = TGC_R_NONE;     // for cases that merge nothing: every segment's reason
};

const Case kCases[] = {
	{"X01_Ip4ip6EightSegmentsMerge", TGC_ENCAP_IP4IP6, [] { return build_train(ip4ip6(), 8); }, {8}},
	{"X01_Ip4ip6WithEncapLimitOptionMerge", TGC_ENCAP_IP4IP6,
	 [] { return build_train(with_outer_ext(ip4ip6(), encap_limit()), 8); }, {8}},
	{"X02_Ip6ip6EightSegmentsMerge", TGC_ENCAP_IP6IP6, [] { return build_train(ip6ip6(), 8); }, {8}},
	{"X02_Ip6ip6WithEncapLimitOptionMerge", TGC_ENCAP_IP6IP6,
	 [] { return build_train(with_outer_ext(ip6ip6(), encap_limit()), 8); }, {8}},
	{"X03_OuterHopLimitChangesOnSegment3", TGC_ENCAP_IP6IP6,
	 [] { return build_train(ip6ip6(), 8, [](unsigned i, Segment &s) { s.outer6.hop_limit = i >= 2 ? 63 : 64; }); },
	 {2, 6}},
	{"X03_OuterTrafficClassChangesOnSegment3", TGC_ENCAP_IP6IP6,
	 [] { return build_train(ip6ip6(), 8, [](unsigned i, Segment &s) { s.outer6.traffic_class = i >= 2 ? 1 : 0; }); },
	 {2, 6}},
	{"X04_OuterFlowLabelsMakeTwoFlowsEachMerged", TGC_ENCAP_IP6IP6,
	 [] {
		 Segment a = ip6ip6(), b = ip6ip6();
		 a.outer6.flow_label = 0x12345;
		 b.outer6.flow_label = 0x54321;
		 b.tcp.seq = 900000; // same inner addresses and ports: only the outer label tells them apart
		 const Frames fa = build_train(a, 6), fb = build_train(b, 6);
		 Frames mixed;
		 for (unsigned i = 0; i < 6; i++) {
			 mixed.push_back(fa[i]);
			 mixed.push_back(fb[i]);
		 }
		 return mixed;
	 },
	 {6, 6}},
	{"X05_SitInnerDstOptsIdenticalMerge", TGC_ENCAP_SIT,
	 [] { return build_train(with_inner_ext(sit(), opt_hdr(60)), 8); }, {8}},
	{"X05_SitInnerDstOptsDifferFromSegment4AreAnotherFlow", TGC_ENCAP_SIT,
	 [] {
		 return build_train(with_inner_ext(sit(), opt_hdr(60)), 8,
				    [](unsigned i, Segment &s) { s.inner6.ext[0].data[5] = i >= 3 ? 0xe : 0xd; });
	 },
	 {3, 5}},
	{"X06_SitInnerHopByHopIdenticalMerge", TGC_ENCAP_SIT,
	 [] { return build_train(with_inner_ext(sit(), opt_hdr(0)), 8); }, {8}},
	{"X06_Ip6ip6BothLayersWithHopByHopDstOptsAndRoutingMerge", TGC_ENCAP_IP6IP6,
	 [] {
		 Segment s = with_outer_ext(with_outer_ext(ip6ip6(), opt_hdr(0)), encap_limit());
		 return build_train(with_inner_ext(s, srh()), 8);
	 },
	 {8}},
	{"X06_Plain6DstOptsIdenticalMerge", TGC_ENCAP_NONE,
	 [] {
		 Segment s = with_inner_ext(sit(), opt_hdr(60));
		 s.encap = Encap::Plain6;
		 return build_train(s, 8);
	 },
	 {8}},
	{"X07_OuterFragmentHeaderIsNotMerged", TGC_ENCAP_IP6IP6,
	 [] { return build_train(with_outer_ext(ip6ip6(), ExtHdr{44, {0, 0, 0, 0, 0, 7}}), 4); }, {1, 1, 1, 1},
	 TGC_R_FRAGMENT},
	{"X07_Ip4ip6FragmentHeaderAfterTheEncapLimitIsNotMerged", TGC_ENCAP_IP4IP6,
	 [] {
		 Segment s = with_outer_ext(with_outer_ext(ip4ip6(), encap_limit()), ExtHdr{44, {0, 0, 0, 0, 0, 7}});
		 return build_train(s, 4);
	 },
	 {1, 1, 1, 1}, TGC_R_FRAGMENT},
	{"X08_Ip4ip6InsideSitIsNotMerged", TGC_ENCAP_SIT,
	 [] {
		 Frames out;
		 for (const auto &f : build_train(ip4ip6(), 4))
			 out.push_back(wrap_ipv4(f, 41));
		 return out;
	 },
	 {1, 1, 1, 1}, TGC_R_NESTED},
	{"X08_SitInsideIp6ip6IsNotMerged", TGC_ENCAP_IP6IP6,
	 [] {
		 Segment s = ip6ip6();
		 s.inner6.next_header = 41; // the inner IPv6 header says another tunnel follows
		 return build_train(s, 4);
	 },
	 {1, 1, 1, 1}, TGC_R_NESTED},
};

class Family : public testing::TestWithParam<Case> {};

std::string case_name(const testing::TestParamInfo<Case> &i) { return i.param.name; }
void PrintTo(const Case &c, std::ostream *os) { *os << c.name; }

// A completed GRO packet is valid: it parses again as one segment of all the payload (outer and inner lengths
// agree, IPv4 header checksums hold), its TCP checksum verifies once a device completes the CHECKSUM_PARTIAL sum,
// each payload slice is that of the input segment of its sequence number, and the gso bits are the row's.
void expect_valid_gro_packet(const Delivered &d, unsigned encap, const Frames &in)
{
	tgc_pkt p{};
	std::vector<uint8_t> b = d.bytes;
	ASSERT_EQ(tgc_parse(b.data(), std::min<uint32_t>(b.size(), TGC_MAX_HDR_BYTES), b.size(), encap, &p), TGC_R_NONE);
	EXPECT_EQ(p.payload_len, d.segs * 1400u);
	EXPECT_EQ(d.completion.tcp_off, p.tcp_off - p.inner_off);
	EXPECT_EQ(d.completion.tcpv6, p.inner_version == 6 ? 1 : 0);
	finish_partial_csum(b, p.tcp_off, 16);
	EXPECT_TRUE(tgc_tcp_csum_ok(&p, b.data(), b.size()));
	ASSERT_EQ(d.seqs.size(), d.segs);
	for (unsigned k = 0; k < d.segs; k++) {
		const auto orig = std::find_if(in.begin(), in.end(), [&](const std::vector<uint8_t> &f) {
			tgc_pkt q{};
			return tgc_parse(f.data(), std::min<uint32_t>(f.size(), TGC_MAX_HDR_BYTES), f.size(), encap, &q) ==
				       TGC_R_NONE && q.seq == d.seqs[k];
		});
		ASSERT_NE(orig, in.end());
		ASSERT_EQ(orig->size(), p.payload_off + 1400u);
		EXPECT_TRUE(std::equal(orig->begin() + p.payload_off, orig->end(), d.bytes.begin() + p.payload_off + k * 1400));
	}
}

TEST_P(Family, Engine)
{
	const Case &c = GetParam();
	const Frames f = c.frames();
	MiniGro g(c.encap);
	for (const auto &x : f)
		g.receive(x, c.encap);
	g.flush();
	ASSERT_EQ(g.seg_counts(), c.want);
	if (c.reason) {
		EXPECT_EQ(g.reason_count(c.reason), f.size());
	}
	for (const Delivered &d : g.delivered()) {
		if (d.segs > 1)
			expect_valid_gro_packet(d, c.encap, f);
	}
	const tgc_tunnel *t = tgc_tunnel_of(c.encap);
	if (t) {
		EXPECT_EQ(f[0][0] >> 4, t->outer_version);
		EXPECT_EQ(t->gso, t->outer_version == 6 ? TGC_GSO_IPXIP6 : TGC_GSO_IPXIP4);
	}
}

TEST_P(Family, Receive)
{
	const Case &c = GetParam();
	std::vector<unsigned> reasons;
	EXPECT_EQ(rx_counts(c.frames(), c.encap, &reasons), c.want);
	if (c.reason) {
		EXPECT_EQ(reasons, std::vector<unsigned>(reasons.size(), c.reason));
	}
}

INSTANTIATE_TEST_SUITE_P(Cases, Family, testing::ValuesIn(kCases), case_name);

// Header offsets count the extension headers of each layer, and pulling as tgc_hdr_need says reaches exactly the
// first payload byte; tgc_flow_of locates the same layout.
TEST(FamilyLayout, X01_OffsetsAndHeaderPullCountTheEncapLimitOption)
{
	Segment s = with_outer_ext(ip4ip6(), encap_limit());
	s.tcp.options = {1, 1, 1, 1};
	const auto f = build(s);
	tgc_pkt p{};
	ASSERT_EQ(tgc_parse(f.data(), std::min<uint32_t>(f.size(), TGC_MAX_HDR_BYTES), f.size(), TGC_ENCAP_IP4IP6, &p),
		  TGC_R_NONE);
	EXPECT_EQ(p.inner_off, 48u);
	EXPECT_EQ(p.tcp_off, 68u);
	EXPECT_EQ(p.payload_off, 92u);
	EXPECT_EQ(p.inner_version, 4u);
	EXPECT_EQ(tgc_encap_detect(f.data(), p.inner_off), unsigned(TGC_ENCAP_IP4IP6));
	EXPECT_EQ(tgc_encap_detect(f.data(), p.inner_off - 1), unsigned(TGC_ENCAP_NONE)) << "option cut short";
	uint32_t have = 0, need, steps = 0;
	while ((need = tgc_hdr_need(have ? f.data() : nullptr, have, f.size(), TGC_ENCAP_IP4IP6)) > have) {
		have = need;
		steps++;
	}
	EXPECT_EQ(have, p.payload_off);
	EXPECT_GE(steps, 4u) << "outer header, option, inner header, TCP";
	tgc_pkt w{};
	ASSERT_EQ(tgc_flow_of(f.data(), p.tcp_off + 4u, TGC_ENCAP_IP4IP6, &w), 1);
	EXPECT_EQ(w.inner_off, p.inner_off);
	EXPECT_EQ(w.tcp_off, p.tcp_off);
}

// The largest headers the bounds allow fit TGC_MAX_HDR_BYTES: ip6ip6, TGC_MAX_EXT_BYTES of extension headers
// (half in each layer), TCP options.
TEST(FamilyLayout, X02_LargestAcceptedHeadersFitTheView)
{
	ExtHdr big{60, std::vector<uint8_t>(TGC_MAX_EXT_BYTES / 2 - 2, 0)};
	Segment s = with_inner_ext(with_outer_ext(ip6ip6(), big), big);
	s.tcp.options = std::vector<uint8_t>(40, 1);
	const auto f = build(s);
	tgc_pkt p{};
	ASSERT_EQ(tgc_parse(f.data(), TGC_MAX_HDR_BYTES, f.size(), TGC_ENCAP_IP6IP6, &p), TGC_R_NONE);
	EXPECT_EQ(p.payload_off, TGC_MAX_HDR_BYTES);
	EXPECT_EQ(tgc_hdr_need(f.data(), TGC_MAX_HDR_BYTES, f.size(), TGC_ENCAP_IP6IP6), TGC_MAX_HDR_BYTES);
}

// Completion of an outer IPv6 tunnel packet: outer payload length over its option, inner header as the row says.
TEST(FamilyComplete, X02_OuterPayloadLengthCountsTheOptionAndTheInnerHeader)
{
	MiniGro g(TGC_ENCAP_IP6IP6);
	for (const auto &f : build_train(with_outer_ext(ip6ip6(), encap_limit()), 5))
		g.receive(f);
	g.flush();
	ASSERT_EQ(g.seg_counts(), Counts({5}));
	const auto &b = g.delivered()[0].bytes;
	ASSERT_EQ(b.size(), 48u + 40 + 20 + 5 * 1400);
	EXPECT_EQ((b[4] << 8) | b[5], int(b.size() - 40));       // outer payload length: option + inner packet
	EXPECT_EQ((b[48 + 4] << 8) | b[48 + 5], 20 + 5 * 1400); // inner payload length
	EXPECT_EQ(g.delivered()[0].completion.tcpv6, 1);
	EXPECT_EQ(tgc_tunnel_of(TGC_ENCAP_IP6IP6)->gso, TGC_GSO_IPXIP6);
	EXPECT_EQ(tgc_tunnel_of(TGC_ENCAP_SIT)->gso, TGC_GSO_IPXIP4);
	EXPECT_EQ(tgc_tunnel_of(TGC_ENCAP_NONE), nullptr);
	EXPECT_EQ(tgc_tunnel_of(TGC_ENCAP_COUNT), nullptr);
}

// The tunnel table: every row is found back from its outer version and protocol, and has a name.
TEST(FamilyTable, EveryRowIsDetectedFromItsOuterHeader)
{
	const Segment shapes[] = {ipip(), sit(), ip4ip6(), ip6ip6()};
	for (const Segment &s : shapes) {
		const auto f = build(s);
		const unsigned e = encap_of(s);
		const tgc_tunnel *t = tgc_tunnel_of(e);
		ASSERT_NE(t, nullptr);
		EXPECT_EQ(tgc_encap_detect(f.data(), f.size()), e) << t->name;
		EXPECT_EQ(f[0] >> 4, t->outer_version);
		EXPECT_EQ(f[t->outer_version == 4 ? 9 : 6], t->proto);
		tgc_pkt p{};
		ASSERT_EQ(tgc_parse(f.data(), std::min<uint32_t>(f.size(), TGC_MAX_HDR_BYTES), f.size(), e, &p), TGC_R_NONE)
			<< t->name;
		EXPECT_EQ(p.inner_version, t->inner_version);
		// Another row's parse refuses it: the table, not the protocol number alone, says what a tunnel is.
		for (unsigned o = TGC_ENCAP_NONE + 1; o < TGC_ENCAP_COUNT; o++) {
			if (o == e)
				continue;
			EXPECT_NE(tgc_parse(f.data(), std::min<uint32_t>(f.size(), TGC_MAX_HDR_BYTES), f.size(), o, &p),
				  TGC_R_NONE)
				<< t->name << " as " << tgc_tunnel_of(o)->name;
		}
	}
	EXPECT_EQ(tgc_encap_detect(build(plain4()).data(), 40), unsigned(TGC_ENCAP_NONE));
	EXPECT_EQ(tgc_encap_detect(nullptr, 0), unsigned(TGC_ENCAP_NONE));
}

// Malformed and out-of-bound extension headers: passed up unmerged for their reason, through both paths, never
// read past the bytes (each view is an exact allocation: ASan).
struct Bad {
	const char *name;
	unsigned encap;
	Segment seg;
	unsigned reason;
};

Segment ext_past_payload()
{
	// The inner hop-by-hop header says 64 bytes; the IPv6 payload holds 8 of it and the TCP header.
	Segment s = with_inner_ext(sit(), opt_hdr(0));
	s.inner6.ext[0].hdrlen_override = 7;
	s.payload_len = 0;
	return s;
}
Segment ext_hdrs(unsigned n, unsigned bytes_each)
{
	Segment s = ip6ip6();
	for (unsigned i = 0; i < n; i++)
		s.outer6.ext.push_back(ExtHdr{60, std::vector<uint8_t>(bytes_each - 2, 0)});
	return s;
}
Segment esp_inner()
{
	Segment s = with_inner_ext(sit(), encap_limit());
	s.inner6.next_header = 50; // ESP after the destination options
	return s;
}

const Bad kBad[] = {
	{"ExtHeaderLengthPastTheIpv6Payload", TGC_ENCAP_SIT, ext_past_payload(), TGC_R_MALFORMED},
	{"MoreExtHeadersThanTheBound", TGC_ENCAP_IP6IP6, ext_hdrs(TGC_MAX_EXT_HDRS + 1, 8), TGC_R_EXT_LIMIT},
	{"MoreExtBytesThanTheBound", TGC_ENCAP_IP6IP6, ext_hdrs(1, TGC_MAX_EXT_BYTES + 8), TGC_R_EXT_LIMIT},
	{"EspAfterTheOptionsIsNotWalked", TGC_ENCAP_SIT, esp_inner(), TGC_R_IPV6_EXT},
};

class FamilyBad : public testing::TestWithParam<Bad> {};
void PrintTo(const Bad &c, std::ostream *os) { *os << c.name; }

TEST_P(FamilyBad, PassedUnmergedForItsReason)
{
	const Bad &c = GetParam();
	const Frames f = build_train(c.seg, 4);
	std::vector<unsigned> reasons;
	EXPECT_EQ(rx_counts(f, c.encap, &reasons), Counts({1, 1, 1, 1}));
	EXPECT_EQ(reasons, std::vector<unsigned>(4, c.reason));
	MiniGro g(c.encap);
	for (const auto &x : f)
		g.receive(x);
	g.flush();
	EXPECT_EQ(g.seg_counts(), Counts({1, 1, 1, 1}));
	EXPECT_EQ(g.reason_count(c.reason), 4u);
}

// Every cut of an extension-header frame, as an exact view: refused or parsed, never read past (ASan), and the
// header pull never asks past the frame.
TEST_P(FamilyBad, EveryTruncationStaysInsideTheView)
{
	const Bad &c = GetParam();
	const auto full = build(c.seg);
	const uint32_t top = std::min<uint32_t>(full.size(), TGC_MAX_HDR_BYTES);
	for (uint32_t n = 0; n <= top; n++) {
		const std::vector<uint8_t> view(full.begin(), full.begin() + n);
		tgc_pkt p{};
		EXPECT_NE(tgc_parse(view.data(), n, full.size(), c.encap, &p), TGC_R_NONE) << "cut at " << n;
		EXPECT_LE(tgc_hdr_need(view.data(), n, full.size(), c.encap), top);
		(void)tgc_flow_of(view.data(), n, c.encap, &p);
		(void)tgc_encap_detect(view.data(), n);
	}
}

INSTANTIATE_TEST_SUITE_P(Cases, FamilyBad, testing::ValuesIn(kBad),
			 [](const testing::TestParamInfo<Bad> &i) { return std::string(i.param.name); });

} // namespace
