// Cases "IPv4 options" (O01-O06) of ../shared/cases/gro-cases.md: one case table, each case run through the engine
// with TGC_ENGINE_IPV4_OPTIONS (every GRO packet resegmented back to the exact wire frames, options intact), the
// engine without it (O05, kernel parity) and the receive loop the offload path runs (O04: never merged there);
// then malformed option lists at every truncation (ASan: exact views).
#include <gtest/gtest.h>

#include <string>

#include "test_util.hpp"

using namespace frames;

namespace {

using Frames = std::vector<std::vector<uint8_t>>;

// Which IPv4 headers of a segment carry the option.
enum Where : unsigned { kOuter = 1, kInner = 2 };

Segment with_opts(Segment s, unsigned where, const std::vector<uint8_t> &o)
{
	if (where & kOuter)
		s.outer.options = o;
	if (where & kInner)
		s.inner4.options = o;
	return s;
}

// @n segments of @first carrying @o where @where says; from segment @change_from on, the option's last byte is
// 0x52 instead (O02). Plain IPv4 has its one header in Segment::outer.
Frames opt_train(Segment first, unsigned where, const std::vector<uint8_t> &o, unsigned n = 8,
		 unsigned change_from = ~0u)
{
	auto t = train(with_opts(std::move(first), where, o), n);
	for (unsigned i = change_from; i < n; i++) {
		if (where & kOuter)
			t[i].outer.options.back() = 0x52;
		if (where & kInner)
			t[i].inner4.options.back() = 0x52;
	}
	return build_all(t);
}

// Option lists of the deny-list (O06), each well formed (RFC 791 3.1 layouts, RFC 1108, RFC 2113).
const std::vector<uint8_t> kLsrr = {131, 7, 4, 198, 18, 0, 9, 1};   // one address to visit, then EOL
const std::vector<uint8_t> kSsrr = {137, 7, 4, 198, 18, 0, 9, 1};
const std::vector<uint8_t> kRr = {7, 7, 4, 0, 0, 0, 0, 1};          // room for one address
const std::vector<uint8_t> kTs = {68, 8, 5, 0, 0, 0, 0, 0};         // timestamps only, room for one
const std::vector<uint8_t> kRa = {148, 4, 0, 0};                    // router alert, value 0
const std::vector<uint8_t> kSec = {130, 11, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}; // RFC 791 security, unclassified
const std::vector<uint8_t> kCipso = {134, 10, 0, 0, 0, 1, 1, 4, 0, 3, 0, 0}; // DOI 1, tag 1 of 4 bytes
const std::vector<uint8_t> kEso = {133, 4, 1, 0};
// Allowed shapes: NOPs then end of list; the DSR option after a NOP, a router alert after it (denied).
const std::vector<uint8_t> kNopEol = {1, 1, 1, 0};
const std::vector<uint8_t> kNopDsr = {1, 0x9e, 8, 0xc6, 0x33, 0x64, 0x0a, 0x1f, 0x51, 0, 0, 0};
const std::vector<uint8_t> kDsrThenRa = {0x9e, 8, 0xc6, 0x33, 0x64, 0x0a, 0x1f, 0x51, 148, 4, 0, 0};

struct Case {
	const char *name;             // starts with the case id
	unsigned encap;
	Frames (*frames)();
	Counts want;                  // engine with TGC_ENGINE_IPV4_OPTIONS
	unsigned reason = TGC_R_NONE; // a reason the engine must have counted at least once (TGC_R_NONE: none)
	bool denied = false;          // O06: not merged in any mode, each segment TGC_R_IP_OPTIONS
};

const Case kCases[] = {
	{"O01_IpipInnerOptionEverySegmentMerge", TGC_ENCAP_IPIP, [] { return opt_train(ipip(), kInner, dsr_option()); },
	 {8}},
	{"O01_IpipInnerNopAndEndOfListMerge", TGC_ENCAP_IPIP, [] { return opt_train(ipip(), kInner, kNopEol); }, {8}},
	{"O02_IpipInnerOptionChangesFromSegment4", TGC_ENCAP_IPIP,
	 [] { return opt_train(ipip(), kInner, dsr_option(), 8, 3); }, {3, 5}, TGC_R_IP_OPT_DIFF},
	{"O02_Plain4OptionChangesFromSegment4", TGC_ENCAP_NONE,
	 [] { return opt_train(plain4(), kOuter, dsr_option(), 8, 3); }, {3, 5}, TGC_R_IP_OPT_DIFF},
	{"O02_IpipOuterOptionChangesFromSegment4", TGC_ENCAP_IPIP,
	 [] { return opt_train(ipip(), kOuter, dsr_option(), 8, 3); }, {3, 5}, TGC_R_IP_OPT_DIFF},
	{"O03_Plain4OptionEverySegmentMerge", TGC_ENCAP_NONE, [] { return opt_train(plain4(), kOuter, dsr_option()); },
	 {8}},
	{"O03_Plain4NopThenOptionMerge", TGC_ENCAP_NONE, [] { return opt_train(plain4(), kOuter, kNopDsr); }, {8}},
	{"O04_IpipOuterOptionMerge", TGC_ENCAP_IPIP, [] { return opt_train(ipip(), kOuter, dsr_option()); }, {8}},
	{"O04_IpipOuterAndInnerOptionsMerge", TGC_ENCAP_IPIP,
	 [] { return opt_train(ipip(), kOuter | kInner, dsr_option()); }, {8}},
	{"O04_SitOuterOptionMerge", TGC_ENCAP_SIT, [] { return opt_train(sit(), kOuter, dsr_option()); }, {8}},
	{"O04_Ip4ip6InnerOptionMerge", TGC_ENCAP_IP4IP6, [] { return opt_train(ip4ip6(), kInner, dsr_option()); }, {8}},
	{"O04_IpipFortyBytesOfOptionsMerge", TGC_ENCAP_IPIP,
	 [] { return opt_train(ipip(), kOuter | kInner, std::vector<uint8_t>(40, 1)); }, {8}},
	{"O06_LooseSourceRouteNeverMerged", TGC_ENCAP_NONE, [] { return opt_train(plain4(), kOuter, kLsrr, 4); },
	 {1, 1, 1, 1}, TGC_R_IP_OPTIONS, true},
	{"O06_StrictSourceRouteNeverMerged", TGC_ENCAP_IPIP, [] { return opt_train(ipip(), kInner, kSsrr, 4); },
	 {1, 1, 1, 1}, TGC_R_IP_OPTIONS, true},
	{"O06_RecordRouteNeverMerged", TGC_ENCAP_IPIP, [] { return opt_train(ipip(), kOuter, kRr, 4); }, {1, 1, 1, 1},
	 TGC_R_IP_OPTIONS, true},
	{"O06_TimestampNeverMerged", TGC_ENCAP_NONE, [] { return opt_train(plain4(), kOuter, kTs, 4); }, {1, 1, 1, 1},
	 TGC_R_IP_OPTIONS, true},
	{"O06_RouterAlertNeverMerged", TGC_ENCAP_IPIP, [] { return opt_train(ipip(), kInner, kRa, 4); }, {1, 1, 1, 1},
	 TGC_R_IP_OPTIONS, true},
	{"O06_SecurityNeverMerged", TGC_ENCAP_NONE, [] { return opt_train(plain4(), kOuter, kSec, 4); }, {1, 1, 1, 1},
	 TGC_R_IP_OPTIONS, true},
	{"O06_CipsoNeverMerged", TGC_ENCAP_SIT, [] { return opt_train(sit(), kOuter, kCipso, 4); }, {1, 1, 1, 1},
	 TGC_R_IP_OPTIONS, true},
	{"O06_ExtendedSecurityNeverMerged", TGC_ENCAP_IP4IP6, [] { return opt_train(ip4ip6(), kInner, kEso, 4); },
	 {1, 1, 1, 1}, TGC_R_IP_OPTIONS, true},
	{"O06_RouterAlertAfterAnAllowedOptionNeverMerged", TGC_ENCAP_NONE,
	 [] { return opt_train(plain4(), kOuter, kDsrThenRa, 4); }, {1, 1, 1, 1}, TGC_R_IP_OPTIONS, true},
};

class Options : public testing::TestWithParam<Case> {};

std::string case_name(const testing::TestParamInfo<Case> &i) { return i.param.name; }
void PrintTo(const Case &c, std::ostream *os) { *os << c.name; }

uint16_t ld16(const uint8_t *p) { return static_cast<uint16_t>((p[0] << 8) | p[1]); }
void st16(uint8_t *p, uint32_t v)
{
	p[0] = static_cast<uint8_t>(v >> 8);
	p[1] = static_cast<uint8_t>(v);
}

// The full TCP checksum of a segment laid out as @p says (what a sender writes).
uint16_t tcp_checksum(const uint8_t *b, const tgc_pkt &p, uint32_t n)
{
	const uint8_t *nh = b + p.inner_off;
	uint32_t sum = 6 + (n - p.tcp_off);
	auto add = [&sum](const uint8_t *q, size_t len) {
		for (size_t i = 0; i + 1 < len; i += 2)
			sum += (q[i] << 8) | q[i + 1];
		if (len & 1)
			sum += q[len - 1] << 8;
	};
	if (nh[0] >> 4 == 4)
		add(nh + 12, 8);
	else
		add(nh + 8, 32);
	add(b + p.tcp_off, n - p.tcp_off);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return static_cast<uint16_t>(~sum);
}

// What the kernel's GSO makes of a completed GRO packet (inet_gso_segment for each IPv4 layer, header with its
// options copied to every segment; ipv6_gso_segment; tcp_gso_segment): segment k has the first segment's
// headers, payload slice k, IP lengths and header checksums redone, IPv4 IDs + k where they increment, sequence
// number + k * gso_size, FIN/PSH only on the last and CWR only on the first, a full TCP checksum.
Frames resegment(const Delivered &d, const tgc_pkt &p)
{
	Frames out;
	const uint32_t hl = p.payload_off, payload = static_cast<uint32_t>(d.bytes.size()) - hl;
	const uint32_t layers[2] = {0, p.inner_off};
	for (uint32_t k = 0; k * d.gso_size < payload; k++) {
		const uint32_t len = std::min<uint32_t>(d.gso_size, payload - k * d.gso_size), n = hl + len;
		std::vector<uint8_t> s(d.bytes.begin(), d.bytes.begin() + hl);
		s.insert(s.end(), d.bytes.begin() + hl + k * d.gso_size, d.bytes.begin() + hl + k * d.gso_size + len);
		for (unsigned l = 0; l < p.nlayers; l++) {
			uint8_t *nh = s.data() + layers[l];
			if (nh[0] >> 4 == 6) {
				st16(nh + 4, n - layers[l] - 40);
				continue;
			}
			if (d.id_state & TGC_ID_INCR(l))
				st16(nh + 4, ld16(nh + 4) + k);
			tgc_fix_ipv4(nh, static_cast<uint16_t>(n - layers[l]));
		}
		uint8_t *th = s.data() + p.tcp_off;
		const uint32_t seq = ((th[4] << 24) | (th[5] << 16) | (th[6] << 8) | th[7]) + k * d.gso_size;
		st16(th + 4, seq >> 16);
		st16(th + 6, seq);
		if ((k + 1) * d.gso_size < payload)
			th[13] &= static_cast<uint8_t>(~0x09);
		if (k)
			th[13] &= static_cast<uint8_t>(~0x80);
		st16(th + 16, 0);
		st16(th + 16, tcp_checksum(s.data(), p, n));
		out.push_back(std::move(s));
	}
	return out;
}

uint32_t view_len(const std::vector<uint8_t> &f) { return std::min<uint32_t>(f.size(), TGC_MAX_HDR_BYTES); }

TEST_P(Options, EngineMergesSafeIdenticalOptions)
{
	const Case &c = GetParam();
	const Frames f = c.frames();
	MiniGro g(c.encap, true, 0, kOptionsList);
	g.receive_all(f);
	g.flush();
	ASSERT_EQ(g.seg_counts(), c.want);
	if (c.denied) {
		EXPECT_EQ(g.reason_count(TGC_R_IP_OPTIONS), f.size());
	} else if (c.reason) {
		EXPECT_GE(g.reason_count(c.reason), 1u);
	}
	// Every GRO packet parses again (header checksums over the options, lengths), and GSO gives back exactly the
	// frames that went in: options intact in every header of every segment.
	size_t next = 0;
	for (const Delivered &d : g.delivered()) {
		if (d.segs == 1) {
			EXPECT_EQ(d.bytes, f.at(next));
			next++;
			continue;
		}
		tgc_pkt p{};
		ASSERT_EQ(tgc_parse_as(d.bytes.data(), view_len(d.bytes), d.bytes.size(), c.encap, TGC_ENGINE_IPV4_OPTIONS, 0, &p),
			  TGC_R_NONE);
		EXPECT_EQ(d.completion.tcp_off, p.tcp_off - p.inner_off);
		const Frames back = resegment(d, p);
		ASSERT_EQ(back.size(), d.segs);
		for (const auto &s : back) {
			ASSERT_LT(next, f.size());
			EXPECT_EQ(s, f[next]) << "segment " << next;
			next++;
		}
	}
	EXPECT_EQ(next, f.size());
}

// O05: the engine without the flag (the module parameter off) is the kernel: no IPv4 header with options merges.
TEST_P(Options, O05_EngineWithoutTheFlagNeverMerges)
{
	const Case &c = GetParam();
	const Frames f = c.frames();
	MiniGro g(c.encap);
	g.receive_all(f);
	g.flush();
	EXPECT_EQ(g.seg_counts(), Counts(f.size(), 1));
	EXPECT_EQ(g.reason_count(TGC_R_IP_OPTIONS), f.size());
}

// O04's offload half: the receive loop the module's offload path runs never merges options (6.12 may complete
// tungro's held packets there and assumes 20 bytes), in any layer.
TEST_P(Options, O04_ReceiveLoopNeverMerges)
{
	const Case &c = GetParam();
	const Frames f = c.frames();
	std::vector<unsigned> reasons;
	EXPECT_EQ(rx_counts(f, c.encap, &reasons), Counts(f.size(), 1));
	EXPECT_EQ(reasons, std::vector<unsigned>(f.size(), TGC_R_IP_OPTIONS));
	for (const auto &x : f) {
		tgc_pkt p{};
		EXPECT_EQ(tgc_parse(x.data(), view_len(x), x.size(), c.encap, &p), unsigned(TGC_R_IP_OPTIONS));
		EXPECT_EQ(tgc_parse_as(x.data(), view_len(x), x.size(), c.encap, TGC_ENGINE_CALLER_HASH, 0, &p),
			  unsigned(TGC_R_IP_OPTIONS))
			<< "only TGC_ENGINE_IPV4_OPTIONS selects the mode";
	}
}

INSTANTIATE_TEST_SUITE_P(Cases, Options, testing::ValuesIn(kCases), case_name);

// Completion over options: header checksums over the full IHL, total lengths, TCP offset past the options, and
// the GRO packet's headers are the first segment's but for those fields.
TEST(OptionsComplete, O01_LengthsAndChecksumsCoverTheOptions)
{
	const Frames f = opt_train(ipip(), kOuter | kInner, dsr_option(), 5);
	MiniGro g(TGC_ENCAP_IPIP, true, 0, kOptionsList);
	g.receive_all(f);
	g.flush();
	ASSERT_EQ(g.seg_counts(), Counts({5}));
	const auto &b = g.delivered()[0].bytes;
	ASSERT_EQ(b.size(), 28u + 28 + 20 + 5 * 1400);
	EXPECT_EQ(b[0], 0x47);
	EXPECT_EQ(b[28], 0x47);
	EXPECT_EQ(ld16(&b[2]), b.size());
	EXPECT_EQ(ld16(&b[28 + 2]), b.size() - 28);
	for (size_t at : {size_t(0), size_t(28)}) {
		std::vector<uint8_t> h(b.begin() + at, b.begin() + at + 28);
		const uint16_t check = ld16(&h[10]);
		tgc_fix_ipv4(h.data(), ld16(&h[2]));
		EXPECT_EQ(ld16(&h[10]), check) << "header at " << at;
		EXPECT_TRUE(std::equal(h.begin() + 20, h.end(), dsr_option().begin()));
	}
	EXPECT_EQ(g.delivered()[0].completion.tcp_off, 28);
	EXPECT_EQ(g.delivered()[0].completion.fixedid, 0);
}

// A different option length is another header layout, so another flow (as an IPv6 extension header of another
// length): both are held, and the first goes up first.
TEST(OptionsFlow, O02_AnotherOptionLengthIsAnotherFlowInOrder)
{
	Frames f = opt_train(plain4(), kOuter, dsr_option(), 3);
	Segment s = with_opts(plain4(), kOuter, kNopDsr);
	s.tcp.seq = 1000 + 3 * 1400;
	s.outer.id = 4;
	for (const auto &x : build_all(train(s, 3)))
		f.push_back(x);
	MiniGro g(TGC_ENCAP_NONE, true, 0, kOptionsList);
	g.receive_all(f);
	g.flush();
	EXPECT_EQ(g.seg_counts(), Counts({3, 3}));
	ASSERT_EQ(g.delivered().size(), 2u);
	EXPECT_EQ(g.delivered()[0].seqs.at(0), 1000u);
}

// The deepest headers options allow stay inside what the engine keeps per flow: past TGC_MAX_HDR_BYTES a segment
// is passed up (TGC_R_IP_OPTIONS when all its bytes are seen), never copied.
TEST(OptionsFlow, HeadersPastTheKeptViewAreNotMerged)
{
	Segment s = with_opts(ip4ip6(), kInner, std::vector<uint8_t>(40, 1)); // inner IHL 15
	// TGC_MAX_EXT_BYTES of destination options: 40 + 256 + 60 + 60 = TGC_MAX_HDR_BYTES + 20 bytes of headers
	s.outer6.ext.push_back(ExtHdr{60, std::vector<uint8_t>(TGC_MAX_EXT_BYTES - 2, 0)});
	s.tcp.options = std::vector<uint8_t>(40, 1);
	ASSERT_EQ(40u + TGC_MAX_EXT_BYTES + 60u + 60u, TGC_MAX_HDR_BYTES + 20u);
	const Frames f = build_all(train(s, 4));
	tgc_pkt p{};
	EXPECT_EQ(tgc_parse_as(f[0].data(), f[0].size(), f[0].size(), TGC_ENCAP_IP4IP6, TGC_ENGINE_IPV4_OPTIONS, 0, &p),
		  unsigned(TGC_R_IP_OPTIONS));
	MiniGro g(TGC_ENCAP_IP4IP6, true, 0, kOptionsList);
	g.receive_all(f);
	g.flush();
	EXPECT_EQ(g.seg_counts(), Counts({1, 1, 1, 1}));
	// The engine's callers hand it TGC_MAX_HDR_BYTES at most (tgc_hdr_need): the TCP header then runs past them.
	EXPECT_EQ(g.reason_count(TGC_R_MALFORMED), 4u);
	// 20 bytes fewer of TCP options: TGC_MAX_HDR_BYTES, the view, merges.
	s.tcp.options.resize(20, 1);
	MiniGro g2(TGC_ENCAP_IP4IP6, true, 0, kOptionsList);
	g2.receive_all(build_all(train(s, 4)));
	g2.flush();
	EXPECT_EQ(g2.seg_counts(), Counts({4}));
}

// Device without checksum help: a bad TCP checksum over an options header is caught (pseudo-header from the
// options header's addresses), the segment passed alone.
TEST(OptionsFlow, O01_BadTcpChecksumBehindOptionsIsNotMerged)
{
	auto t = train(with_opts(ipip(), kInner, dsr_option()), 4);
	t[1].bad_tcp_csum = true;
	MiniGro g(TGC_ENCAP_IPIP, false, 2, kOptionsList); // NET_IP_ALIGN placement, the core validates
	g.receive_all(build_all(t));
	g.flush();
	EXPECT_EQ(g.seg_counts(), Counts({1, 1, 2}));
	EXPECT_EQ(g.reason_count(TGC_R_CSUM), 1u);
}

// Malformed option lists: not merged (TGC_R_MALFORMED), through the engine with the flag; and every truncation of
// such a frame and of a well-formed one, as an exact view, is refused or parsed without a read past it (ASan).
struct Bad {
	const char *name;
	std::vector<uint8_t> opts; // the inner header's options of an IPIP segment
	unsigned ihl;              // 0: the options' own
};

const Bad kBad[] = {
	{"LengthZero", {0x9e, 0, 1, 1}, 0},
	{"LengthOne", {0x9e, 1, 1, 1}, 0},
	{"LengthPastTheHeader", {0x9e, 12, 1, 1, 1, 1, 1, 1}, 0},
	{"TypeInTheLastByteWithoutLength", {1, 1, 1, 0x9e}, 0},
	{"DeniedTypeLengthPastTheHeader", {131, 40, 4, 0}, 0},
	{"OptionCutByTheIhl", {0x9e, 8, 0xc6, 0x33, 0x64, 0x0a, 0x1f, 0x51}, 6},
};

class OptionsBad : public testing::TestWithParam<Bad> {};
void PrintTo(const Bad &c, std::ostream *os) { *os << c.name; }

Segment bad_seg(const Bad &c)
{
	Segment s = with_opts(ipip(), kInner, c.opts);
	if (c.ihl)
		s.inner4.ihl = static_cast<uint8_t>(c.ihl);
	return s;
}

TEST_P(OptionsBad, MalformedListIsNotMerged)
{
	const Frames f = build_all(train(bad_seg(GetParam()), 4));
	MiniGro g(TGC_ENCAP_IPIP, true, 0, kOptionsList);
	g.receive_all(f);
	g.flush();
	EXPECT_EQ(g.seg_counts(), Counts({1, 1, 1, 1}));
	EXPECT_EQ(g.reason_count(TGC_R_MALFORMED), 4u);
}

void every_truncation(const std::vector<uint8_t> &full, unsigned encap)
{
	const uint32_t top = view_len(full);
	for (uint32_t n = 0; n <= top; n++) {
		const std::vector<uint8_t> view(full.begin(), full.begin() + n);
		tgc_pkt p{};
		const unsigned r = tgc_parse_as(view.data(), n, full.size(), encap, TGC_ENGINE_IPV4_OPTIONS, 0, &p);
		if (r == TGC_R_NONE) {
			EXPECT_LE(p.payload_off, n) << "cut at " << n;
		}
		EXPECT_LE(tgc_hdr_need(view.data(), n, full.size(), encap), top);
		(void)tgc_flow_of(view.data(), n, encap, &p);
		// The frame cut short as a whole segment (pkt_len n too): never accepted past its bytes.
		if (tgc_parse_as(view.data(), n, n, encap, TGC_ENGINE_IPV4_OPTIONS, 0, &p) == TGC_R_NONE) {
			EXPECT_LE(p.payload_off + p.payload_len, n);
		}
	}
}

TEST_P(OptionsBad, EveryTruncationStaysInsideTheView)
{
	every_truncation(build(bad_seg(GetParam())), TGC_ENCAP_IPIP);
}

INSTANTIATE_TEST_SUITE_P(Cases, OptionsBad, testing::ValuesIn(kBad),
			 [](const testing::TestParamInfo<Bad> &i) { return std::string(i.param.name); });

TEST(OptionsTruncation, WellFormedOptionsInEveryLayerAtEveryCut)
{
	every_truncation(build(with_opts(ipip(), kOuter | kInner, kNopDsr)), TGC_ENCAP_IPIP);
	every_truncation(build(with_opts(sit(), kOuter, dsr_option())), TGC_ENCAP_SIT);
	every_truncation(build(with_opts(ip4ip6(), kInner, kNopEol)), TGC_ENCAP_IP4IP6);
	every_truncation(build(with_opts(plain4(), kOuter, std::vector<uint8_t>(40, 1))), TGC_ENCAP_NONE);
	// The truncations are refused, and the whole frame is accepted: the loop above is not vacuous.
	const auto full = build(with_opts(ipip(), kOuter | kInner, kNopDsr));
	tgc_pkt p{};
	EXPECT_EQ(tgc_parse_as(full.data(), view_len(full), full.size(), TGC_ENCAP_IPIP, TGC_ENGINE_IPV4_OPTIONS, 0, &p),
		  TGC_R_NONE);
	EXPECT_EQ(p.inner_off, 32u);
	EXPECT_EQ(p.tcp_off, 64u);
	EXPECT_NE(tgc_parse_as(full.data(), 63, full.size(), TGC_ENCAP_IPIP, TGC_ENGINE_IPV4_OPTIONS, 0, &p), TGC_R_NONE);
}

} // namespace
