// Cases "Inner and plain UDP on an attached device" (U01-U05) of ../shared/cases/gro-cases.md: one case table, run
// through the engine (MiniGro on tgc_engine_*) for plain UDP over IPv4 and IPv6 and inside IPIP, SIT, ip4ip6 and
// ip6ip6, with TGC_IN_UDP_GRO as the glue sets it when a UDP_GRO socket is found (or the device forwards UDP
// GRO). Then malformed datagrams: the length field against the bytes, and every truncation (ASan).
#include <gtest/gtest.h>

#include <string>

#include "test_util.hpp"

using namespace frames;

namespace {

using Frames = std::vector<std::vector<uint8_t>>;
using Edit = void (*)(unsigned i, Segment &s);

const Encap kShapes[] = {Encap::Plain4, Encap::Plain6, Encap::IPIP, Encap::SIT, Encap::IP4IP6, Encap::IP6IP6};

const char *shape_name(Encap e)
{
	switch (e) {
	case Encap::Plain4: return "Plain4";
	case Encap::Plain6: return "Plain6";
	case Encap::IPIP: return "Ipip";
	case Encap::SIT: return "Sit";
	case Encap::IP4IP6: return "Ip4ip6";
	default: return "Ip6ip6";
	}
}

bool inner_v6(Encap e) { return e == Encap::Plain6 || e == Encap::SIT || e == Encap::IP6IP6; }

// The innermost IP header's TTL / hop limit (@ttl) or TOS / traffic class, whatever the shape.
void set_inner(Segment &s, bool ttl, uint8_t v)
{
	V4 &h4 = s.encap == Encap::Plain4 ? s.outer : s.inner4;
	if (inner_v6(s.encap))
		(ttl ? s.inner6.hop_limit : s.inner6.traffic_class) = v;
	else
		(ttl ? h4.ttl : h4.tos) = v;
}
void set_inner_ttl(Segment &s, uint8_t ttl) { set_inner(s, true, ttl); }
void set_inner_tos(Segment &s, uint8_t tos) { set_inner(s, false, tos); }

struct UdpCase {
	const char *name;       // the case id first
	unsigned n;             // datagrams in the train
	Edit edit;              // per-datagram change, or nullptr
	Counts want;
	uint32_t in = TGC_IN_UDP_GRO;
	unsigned reason = TGC_R_NONE; // when set: at least one datagram passed for it (all when want is all 1s)
	bool tunnels_only = false;
	bool ipv4_inner_only = false;
	bool csum_help = true;  // false: the core validates the UDP checksum (TGC_IN_CSUM_CHECK)
	uint32_t payload = 1200;
};

const UdpCase kBase[] = {
	{"U01_EightDatagramsToAUdpGroSocketMerge", 8, nullptr, {8}},
	{"U02_WithoutUdpGroNothingMerges", 8, nullptr, {1, 1, 1, 1, 1, 1, 1, 1}, 0, TGC_R_NOT_TCP},
	{"U03_InnerTtlChangesOnDatagram3", 8, [](unsigned i, Segment &s) { set_inner_ttl(s, i >= 2 ? 63 : 64); }, {2, 6},
	 TGC_IN_UDP_GRO, TGC_R_TTL},
	{"U03_OuterTtlChangesOnDatagram3", 8,
	 [](unsigned i, Segment &s) {
		 s.outer.ttl = i >= 2 ? 63 : 64;
		 s.outer6.hop_limit = i >= 2 ? 63 : 64;
	 },
	 {2, 6}, TGC_IN_UDP_GRO, TGC_R_TTL, true},
	{"U03_InnerTosChangesOnDatagram4", 8, [](unsigned i, Segment &s) { set_inner_tos(s, i >= 3 ? 3 : 0); }, {3, 5},
	 TGC_IN_UDP_GRO, TGC_R_TOS},
	{"U03_InnerDfDiffersOnDatagram2", 8,
	 [](unsigned i, Segment &s) { (s.encap == Encap::Plain4 ? s.outer : s.inner4).df = i == 0; }, {1, 7},
	 TGC_IN_UDP_GRO, TGC_R_DF, false, true},
	{"U03_InnerIdGapBeforeDatagram3", 8,
	 [](unsigned i, Segment &s) {
		 V4 &h = s.encap == Encap::Plain4 ? s.outer : s.inner4;
		 h.df = false;
		 if (i >= 2)
			 h.id = static_cast<uint16_t>(h.id + 1);
	 },
	 {2, 6}, TGC_IN_UDP_GRO, TGC_R_IP_ID, false, true},
	{"U04_ShorterDatagram4EndsThePacket", 8, [](unsigned i, Segment &s) { s.payload_len = i == 3 ? 600 : 1200; },
	 {4, 4}, TGC_IN_UDP_GRO, TGC_R_SHORT},
	{"U04_LongerDatagram4NeverJoins", 8, [](unsigned i, Segment &s) { s.payload_len = i == 3 ? 1300 : 1200; },
	 {3, 2, 3}, TGC_IN_UDP_GRO, TGC_R_MSS},
	{"U05_ZeroChecksumOnDatagram3IsNeverMerged", 8, [](unsigned i, Segment &s) { s.udp.zero_csum = i == 2; },
	 {2, 1, 5}, TGC_IN_UDP_GRO, TGC_R_UDP_CSUM0},
	{"U05_ZeroChecksumsNeverMerge", 6, [](unsigned, Segment &s) { s.udp.zero_csum = true; }, {1, 1, 1, 1, 1, 1},
	 TGC_IN_UDP_GRO, TGC_R_UDP_CSUM0},
	{"U05_BadChecksumOnDatagram3WithoutDeviceHelp", 8, [](unsigned i, Segment &s) { s.bad_tcp_csum = i == 2; },
	 {2, 1, 5}, TGC_IN_UDP_GRO, TGC_R_CSUM, false, false, false},
	{"U05_GoodChecksumsWithoutDeviceHelpMerge", 8, nullptr, {8}, TGC_IN_UDP_GRO, TGC_R_NONE, false, false, false},
	{"UL_LengthFieldLongerThanTheBytesOnDatagram3", 8, [](unsigned i, Segment &s) { s.udp.len_delta = i == 2; },
	 {2, 1, 5}, TGC_IN_UDP_GRO, TGC_R_UDP_LEN},
	{"UL_LengthFieldShorterThanTheBytesOnDatagram3", 8,
	 [](unsigned i, Segment &s) { s.udp.len_delta = i == 2 ? -100 : 0; }, {2, 1, 5}, TGC_IN_UDP_GRO, TGC_R_UDP_LEN},
	{"UL_EmptyDatagramsNeverMerge", 4, [](unsigned, Segment &s) { s.payload_len = 0; }, {1, 1, 1, 1}, TGC_IN_UDP_GRO,
	 TGC_R_NO_PAYLOAD},
	// 6.12's UDP_GRO_CNT_MAX: 64 datagrams end a packet (small datagrams, far from 64 KiB).
	{"UL_SixtyFourDatagramsEndAPacket", 100, nullptr, {64, 36}, TGC_IN_UDP_GRO, TGC_R_SIZE, false, false, true, 100},
};

struct Case {
	std::string name;
	Encap shape;
	const UdpCase *base;
};

std::vector<Case> all_cases()
{
	std::vector<Case> out;
	for (const UdpCase &b : kBase)
		for (Encap e : kShapes) {
			if ((b.tunnels_only && !is_tunnel(e)) || (b.ipv4_inner_only && inner_v6(e)))
				continue;
			out.push_back(Case{std::string(b.name) + "_" + shape_name(e), e, &b});
		}
	return out;
}

Frames build_case(const Case &c)
{
	auto t = train(as_udp(ipip_as(c.shape), c.base->payload), c.base->n);
	if (c.base->edit)
		for (unsigned i = 0; i < t.size(); i++)
			c.base->edit(i, t[i]);
	return build_all(t);
}

tgc_pkt parse_udp(const std::vector<uint8_t> &f, unsigned encap, unsigned *reason = nullptr)
{
	tgc_pkt p{};
	const unsigned r = tgc_parse_as(f.data(), std::min<uint32_t>(f.size(), TGC_MAX_HDR_BYTES), f.size(), encap, 0, TGC_IN_UDP_GRO, &p);
	if (reason)
		*reason = r;
	return p;
}

uint16_t get16(const std::vector<uint8_t> &b, size_t at) { return static_cast<uint16_t>((b[at] << 8) | b[at + 1]); }

// A completed UDP GRO packet is what 6.12's udp_gro_complete builds for a UDP_GRO socket: it parses again as one
// datagram of all the payload (IP and UDP lengths cover it all), completion says UDP (SKB_GSO_UDP_L4) with the
// checksum field at 6, gso_size is the first datagram's payload, the checksum verifies once the CHECKSUM_PARTIAL
// sum is completed, and the payload is the datagrams' in order (@in from @first on).
void expect_udp_gro_packet(const Delivered &d, unsigned encap, const Frames &in, size_t first)
{
	std::vector<uint8_t> b = d.bytes;
	unsigned r = 0;
	const tgc_pkt p = parse_udp(b, encap, &r);
	ASSERT_EQ(r, unsigned(TGC_R_NONE));
	ASSERT_TRUE(tgc_pkt_is_udp(&p));
	EXPECT_EQ(d.completion.udp, 1);
	EXPECT_EQ(d.completion.csum_offset, 6);
	EXPECT_EQ(d.completion.tcp_off, p.tcp_off - p.inner_off);
	EXPECT_EQ(d.completion.tcpv6, p.inner_version == 6 ? 1 : 0);
	EXPECT_EQ(d.completion.fixedid, 0);
	EXPECT_EQ(get16(b, p.tcp_off + 4), p.payload_len + 8u) << "UDP length covers the GRO packet";
	const tgc_pkt p0 = parse_udp(in.at(first), encap);
	EXPECT_EQ(d.gso_size, p0.payload_len) << "gso_size: the datagram payload (the UDP_GRO cmsg)";
	finish_partial_csum(b, p.tcp_off, 6);
	EXPECT_TRUE(tgc_tcp_csum_ok(&p, b.data(), b.size()));
	size_t at = p.payload_off;
	for (unsigned k = 0; k < d.segs; k++) {
		const auto &f = in.at(first + k);
		const tgc_pkt q = parse_udp(f, encap);
		ASSERT_LE(at + q.payload_len, d.bytes.size());
		EXPECT_TRUE(std::equal(f.begin() + q.payload_off, f.begin() + q.payload_off + q.payload_len,
				       d.bytes.begin() + static_cast<long>(at)))
			<< "datagram " << k;
		at += q.payload_len;
	}
	EXPECT_EQ(at, d.bytes.size());
}

class Udp : public testing::TestWithParam<Case> {};
void PrintTo(const Case &c, std::ostream *os) { *os << c.name; }

TEST_P(Udp, Engine)
{
	const Case &c = GetParam();
	const unsigned encap = encap_of(ipip_as(c.shape));
	const Frames f = build_case(c);
	MiniGro g(encap, c.base->csum_help);
	g.set_input(c.base->in);
	for (const auto &x : f)
		g.receive(x);
	g.flush();
	ASSERT_EQ(g.seg_counts(), c.base->want);
	if (c.base->reason) {
		const bool all_passed = std::all_of(c.base->want.begin(), c.base->want.end(), [](unsigned n) { return n == 1; });
		if (all_passed) {
			EXPECT_EQ(g.reason_count(c.base->reason), f.size());
		} else {
			EXPECT_GE(g.reason_count(c.base->reason), 1u);
		}
	}
	size_t first = 0;
	for (const Delivered &d : g.delivered()) {
		if (d.segs > 1)
			expect_udp_gro_packet(d, encap, f, first);
		else
			EXPECT_EQ(d.bytes, f.at(first)) << "a datagram passed up unmerged is as it came";
		first += d.segs;
	}
	EXPECT_EQ(first, f.size()) << "every datagram delivered once, in order";
}

INSTANTIATE_TEST_SUITE_P(Cases, Udp, testing::ValuesIn(all_cases()),
			 [](const testing::TestParamInfo<Case> &i) { return i.param.name; });

// U01 in every shape: offsets, the header pull reaches exactly the first payload byte, and without the input bit
// the same bytes are TGC_R_NOT_TCP (tgc_parse, the offload path's answer: UDP stays with the kernel there).
TEST(UdpLayout, U01_OffsetsHeaderPullAndTheInputBit)
{
	for (Encap e : kShapes) {
		const Segment s = as_udp(ipip_as(e));
		const auto f = build(s);
		const unsigned encap = encap_of(s);
		unsigned r = 0;
		const tgc_pkt p = parse_udp(f, encap, &r);
		ASSERT_EQ(r, unsigned(TGC_R_NONE)) << shape_name(e);
		EXPECT_TRUE(tgc_pkt_is_udp(&p));
		EXPECT_EQ(p.payload_len, 1200u);
		EXPECT_EQ(p.seq, 0u);
		EXPECT_EQ(p.tcp_flags, 0u);
		EXPECT_EQ(p.payload_off, f.size() - 1200);
		tgc_pkt q{};
		EXPECT_EQ(tgc_parse(f.data(), p.payload_off, f.size(), encap, &q), unsigned(TGC_R_NOT_TCP)) << shape_name(e);
		EXPECT_EQ(tgc_parse_as(f.data(), p.payload_off, f.size(), encap, 0, 0, &q), unsigned(TGC_R_NOT_TCP));
		uint32_t have = 0, need;
		while ((need = tgc_hdr_need(have ? f.data() : nullptr, have, f.size(), encap)) > have)
			have = need;
		EXPECT_EQ(have, p.payload_off) << shape_name(e);
	}
}

// A UDP datagram and a TCP segment with the same addresses and ports are never one flow (T05's rule for L4).
TEST(UdpFlow, U01_TcpAndUdpOfTheSameAddressesAndPortsStayApart)
{
	for (Encap e : kShapes) {
		const auto tcp = build_all(train(ipip_as(e), 4));
		const auto udp = build_all(train(as_udp(ipip_as(e)), 4));
		MiniGro g(encap_of(ipip_as(e)));
		g.set_input(TGC_IN_UDP_GRO);
		for (unsigned i = 0; i < 4; i++) {
			g.receive(tcp[i]);
			g.receive(udp[i]);
		}
		g.flush();
		ASSERT_EQ(g.seg_counts(), Counts({4, 4})) << shape_name(e);
		EXPECT_EQ(g.delivered()[0].completion.udp + g.delivered()[1].completion.udp, 1) << "one TCP, one UDP";
	}
}

// 64 KiB: 1200-byte datagrams over IPIP stop before the aggregate reaches TGC_MAX_GRO_BYTES.
TEST(UdpFlow, U01_SixtyDatagramsSplitBelowSixtyFourKiB)
{
	MiniGro g(TGC_ENCAP_IPIP);
	g.set_input(TGC_IN_UDP_GRO);
	g.receive_all(build_all(train(as_udp(ipip()), 60)));
	g.flush();
	// 20 + 20 + 8 header bytes + k * 1200 < 65536: k <= 54.
	ASSERT_EQ(g.seg_counts(), Counts({54, 6}));
	EXPECT_EQ(g.reason_count(TGC_R_SIZE), 1u);
}

// Every cut of a UDP datagram's headers, as an exact view: refused below the first payload byte, parsed from it
// on, never read past (ASan); and the cut frame itself (its IP length now a lie) through the engine behind a held
// packet of its flow: passed up, nothing lost.
TEST(UdpMalformed, EveryTruncationStaysInsideTheView)
{
	for (Encap e : kShapes) {
		const Segment s = as_udp(ipip_as(e), 40);
		const auto full = build(s);
		const unsigned encap = encap_of(s);
		const tgc_pkt whole = parse_udp(full, encap);
		for (uint32_t n = 0; n <= full.size(); n++) {
			const std::vector<uint8_t> view(full.begin(), full.begin() + n);
			tgc_pkt p{};
			const unsigned r = tgc_parse_as(view.data(), n, full.size(), encap, 0, TGC_IN_UDP_GRO, &p);
			EXPECT_EQ(r == TGC_R_NONE, n >= whole.payload_off) << shape_name(e) << " cut at " << n;
			EXPECT_LE(tgc_hdr_need(view.data(), n, full.size(), encap), full.size());
			(void)tgc_flow_of(view.data(), n, encap, &p);

			MiniGro g(encap);
			g.set_input(TGC_IN_UDP_GRO);
			g.receive(full);
			g.receive(view);
			g.flush();
			ASSERT_EQ(g.delivered().size(), n == full.size() ? 1u : 2u) << shape_name(e) << " cut at " << n;
		}
	}
}

// The length field against the bytes, every value near the truth: only the true one merges.
TEST(UdpMalformed, UL_OnlyTheTrueLengthFieldMerges)
{
	for (int delta = -12; delta <= 12; delta++) {
		Frames f = build_all(train(as_udp(ipip()), 3));
		Segment bad = train(as_udp(ipip()), 4)[3];
		bad.udp.len_delta = delta;
		f.push_back(build(bad));
		MiniGro g(TGC_ENCAP_IPIP);
		g.set_input(TGC_IN_UDP_GRO);
		g.receive_all(f);
		g.flush();
		EXPECT_EQ(g.seg_counts(), delta == 0 ? Counts({4}) : Counts({3, 1})) << "delta " << delta;
		if (delta) {
			EXPECT_EQ(g.reason_count(TGC_R_UDP_LEN), 1u) << "delta " << delta;
		}
	}
}

// K01 and K08 on an attached device: IP-in-IP inside FOU (K01: over IPv4; K08: ip4ip6-style in FOU over IPv6, the
// outer header carrying the encapsulation limit as Linux ip6 tunnels send it) and inside GUE. To the engine these
// are UDP datagrams to a tunnel's port: the glue never sets TGC_IN_UDP_GRO for an encapsulation socket (6.12 hands
// them to the socket's gro_receive, which an attached device does not reach), so each goes up unmerged, in order,
// as it came, counted TGC_R_NOT_TCP: README's one accepted difference. The payload is a whole inner packet (IPv4 or
// IPv6 with TCP, GUE with its 4-byte header first), so nothing in the engine may read it as the tunnel it is.
TEST(UdpEncap, K01_K08_FouAndGueDatagramsPassTheEngineUnmerged)
{
	struct Shape {
		const char *name;
		Encap outer;      // Plain4 (K01) or Plain6 (K08) carrier
		Encap inner;      // what FOU/GUE carries: Plain4 (ipproto 4) or Plain6 (41)
		bool gue;
	};
	const Shape shapes[] = {
		{"K01_IpipInFou", Encap::Plain4, Encap::Plain4, false},
		{"K01_SitInGue", Encap::Plain4, Encap::Plain6, true},
		{"K08_Ip4ip6InFou6", Encap::Plain6, Encap::Plain4, false},
		{"K08_Ip6ip6InGue6", Encap::Plain6, Encap::Plain6, true},
	};
	for (const Shape &sh : shapes) {
		SCOPED_TRACE(sh.name);
		Frames f;
		unsigned encap = 0;
		for (const Segment &in : train(ipip_as(sh.inner), 8)) {
			std::vector<uint8_t> payload = build(in);
			if (sh.gue) // GUE version 0, no flags, hlen 0, proto_ctype = the inner protocol (RFC draft-ietf-intarea-gue)
				payload.insert(payload.begin(), {0, sh.inner == Encap::Plain4 ? uint8_t(4) : uint8_t(41), 0, 0});
			Segment s = as_udp(ipip_as(sh.outer), static_cast<uint32_t>(payload.size()));
			s.tcp.dport = sh.gue ? 5558 : 5557;
			if (sh.outer == Encap::Plain6)
				s.inner6.ext.push_back(encap_limit());
			std::vector<uint8_t> b = build(s);
			std::copy(payload.begin(), payload.end(), b.end() - static_cast<long>(payload.size()));
			encap = encap_of(s);
			f.push_back(std::move(b));
		}
		MiniGro g(encap);
		for (const auto &x : f)
			g.receive(x);
		g.flush();
		ASSERT_EQ(g.seg_counts(), std::vector<unsigned>(8, 1u));
		EXPECT_EQ(g.reason_count(TGC_R_NOT_TCP), f.size());
		for (size_t i = 0; i < f.size(); i++)
			EXPECT_EQ(g.delivered().at(i).bytes, f[i]) << "datagram " << i << " as it came, in order";
	}
}

} // namespace
