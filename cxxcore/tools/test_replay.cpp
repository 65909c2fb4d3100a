// Replay of the real captures in TUNGRO_CAPTURES (../shared/captures, see SOURCES.md there) through the core, and
// the tungro-replay command line. Figures asserted are facts of the files (record counts, protocols) or bounds
// measured with margin; a missing capture skips its test.
#include <gtest/gtest.h>

#include <pcap/pcap.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "../tests/frames.hpp"
#include "replay.hpp"

namespace fs = std::filesystem;
using replay::Encap;
using replay::Options;
using replay::Result;
using replay::Wrap;

namespace {

std::string capture(const char *name) { return std::string(TUNGRO_CAPTURES_DIR) + "/" + name; }

#define REQUIRE_CAPTURE(name)                                                                          \
	do {                                                                                           \
		if (!fs::exists(capture(name)))                                                        \
			GTEST_SKIP() << "capture " << capture(name)                                    \
				     << " not found (set -DTUNGRO_CAPTURES=DIR to ../shared/captures)"; \
	} while (0)

Result replay_file(const char *name, Options opt = {})
{
	Result r;
	std::string err;
	EXPECT_TRUE(replay::run(capture(name), opt, &r, &err)) << err;
	return r;
}

Options wrapped(Wrap w, bool fix = false)
{
	Options o;
	o.wrap = w;
	o.fix_ipv4_csum = fix;
	return o;
}

// The flow of the bulk sender: the one with the most TCP segments.
const replay::Stats &busiest(const Result &r)
{
	const replay::Stats *best = &r.total;
	uint64_t most = 0;
	for (const auto &kv : r.flows)
		if (kv.second.tcp_segments > most) {
			most = kv.second.tcp_segments;
			best = &kv.second;
		}
	return *best;
}

void expect_conserved(const Result &r)
{
	EXPECT_EQ(r.total.segments_out, r.total.frames) << "frames in != segments out";
	EXPECT_EQ(r.complete_errors, 0u);
}

// Wrapping in an outer header with DF and a fixed ID must not change any GRO decision.
void expect_same_gro(const Result &plain, const Result &tun)
{
	EXPECT_EQ(tun.total.gro_packets, plain.total.gro_packets);
	EXPECT_EQ(tun.total.tcp_segments, plain.total.tcp_segments);
	for (unsigned i = 0; i < TGC_R_COUNT; i++)
		EXPECT_EQ(tun.total.reasons[i], plain.total.reasons[i]) << tgc_reason_name(i);
}

} // namespace

TEST(ReplayCaptures, SitSinglePacketParses)
{
	REQUIRE_CAPTURE("sit-tcp-single-packet.pcap");
	const Result r = replay_file("sit-tcp-single-packet.pcap");
	EXPECT_EQ(r.records, 1u);
	EXPECT_EQ(r.total.frames, 1u);
	EXPECT_EQ(r.total.tcp_segments, 1u);
	EXPECT_EQ(r.total.gro_packets, 1u);
	EXPECT_EQ(r.total.reasons[TGC_R_NONE], 1u); // no flags, 12-byte payload: held, then completed alone
	ASSERT_EQ(r.flows.size(), 1u);
	EXPECT_EQ(r.flows.begin()->first.rfind("sit ", 0), 0u) << r.flows.begin()->first;
	expect_conserved(r);
}

TEST(ReplayCaptures, IpipSinglePacketParses)
{
	REQUIRE_CAPTURE("ipip-tcp-single-packet.pcap");
	const Result r = replay_file("ipip-tcp-single-packet.pcap");
	EXPECT_EQ(r.total.frames, 1u);
	EXPECT_EQ(r.total.tcp_segments, 1u);
	EXPECT_EQ(r.total.gro_packets, 1u);
	EXPECT_EQ(r.total.reasons[TGC_R_NONE], 1u);
	ASSERT_EQ(r.flows.size(), 1u);
	EXPECT_EQ(r.flows.begin()->first, "ipip 10.1.0.1>10.1.0.2 | ip4 10.1.0.3:80>10.1.0.4:80 tcp");
	expect_conserved(r);
}

TEST(ReplayCaptures, IpipIcmpIsAllPassedAsNotTcp)
{
	REQUIRE_CAPTURE("ipip-icmp-ping-200pkts.pcap");
	const Result r = replay_file("ipip-icmp-ping-200pkts.pcap");
	EXPECT_EQ(r.records, 200u);
	EXPECT_EQ(r.not_ip, 6u); // the ARP frames
	EXPECT_EQ(r.total.frames, 194u);
	EXPECT_EQ(r.total.reasons[TGC_R_NOT_TCP], 194u);
	EXPECT_EQ(r.total.tcp_segments, 0u);
	EXPECT_EQ(r.total.gro_packets, 0u);
	expect_conserved(r);
}

TEST(ReplayCaptures, PrinterBulkWrappedInIpipCoalesces)
{
	const char *f = "tcp4-bulk-1460-nots-printer.pcapng";
	REQUIRE_CAPTURE(f);
	// Captured on the sender with checksum offload: its 86 IPv4 headers carry checksum 0, which the core refuses.
	const Result raw = replay_file(f, wrapped(Wrap::Ipip));
	EXPECT_EQ(raw.total.reasons[TGC_R_CSUM], 86u);
	EXPECT_EQ(raw.total.gro_packets, raw.total.tcp_segments);

	const Result r = replay_file(f, wrapped(Wrap::Ipip, true));
	EXPECT_EQ(r.csum_fixed, 86u);
	EXPECT_EQ(r.wrapped, 122u);
	EXPECT_EQ(r.total.frames, 122u);
	EXPECT_EQ(r.total.tcp_segments, 122u);
	EXPECT_EQ(r.total.reasons[TGC_R_CSUM], 0u);
	EXPECT_GT(r.total.mean_segs(), 1.5);
	const replay::Stats &bulk = busiest(r);
	EXPECT_EQ(bulk.frames, 86u);
	EXPECT_GT(bulk.mean_segs(), 3.0); // measured 4.78: 1460-byte runs broken by IP ID gaps
	EXPECT_GT(bulk.reasons[TGC_R_IP_ID], 0u);
	expect_conserved(r);

	Options plain;
	plain.fix_ipv4_csum = true;
	expect_same_gro(replay_file(f, plain), r);
}

TEST(ReplayCaptures, Ipv6BulkWrappedInSitCoalesces)
{
	const char *f = "tcp6-bulk-http-ts1408.pcap";
	REQUIRE_CAPTURE(f);
	const Result r = replay_file(f, wrapped(Wrap::Sit));
	EXPECT_EQ(r.wrapped, 2007u);
	EXPECT_EQ(r.total.frames, 2007u);
	EXPECT_EQ(r.total.tcp_segments, 2007u);
	EXPECT_GT(r.total.mean_segs(), 1.5);
	const replay::Stats &bulk = busiest(r);
	EXPECT_GT(bulk.mean_segs(), 2.5); // measured 3.38: TSval changes (options) end many runs
	EXPECT_GT(bulk.reasons[TGC_R_OPTIONS], 0u);
	for (const auto &kv : r.flows)
		EXPECT_EQ(kv.first.rfind("sit 192.0.2.1>192.0.2.2 | ip6 ", 0), 0u) << kv.first;
	expect_conserved(r);
	expect_same_gro(replay_file(f), r);
}

TEST(ReplayCaptures, RetransmissionsAndReorderingFlushOnSeq)
{
	const char *f = "tcp4-bulk-retrans-ooo-http.pcap";
	REQUIRE_CAPTURE(f);
	for (Wrap w : {Wrap::None, Wrap::Ipip}) {
		const Result r = replay_file(f, wrapped(w));
		EXPECT_EQ(r.total.frames, 672u);
		EXPECT_GT(r.total.reasons[TGC_R_SEQ], 0u);
		EXPECT_GT(busiest(r).mean_segs(), 3.0); // measured 6.23
		expect_conserved(r);
	}
}

TEST(ReplayCaptures, RealSitMixedTrafficCountsTcpAndPassesTheRest)
{
	const char *f = "sit-6in4-he-tunnelbroker-mixed.pcap";
	REQUIRE_CAPTURE(f);
	const Result r = replay_file(f);
	EXPECT_EQ(r.total.frames, 127u);
	EXPECT_EQ(r.total.tcp_segments, 75u);                   // SOURCES.md: 75 TCP frames
	EXPECT_EQ(r.total.reasons[TGC_R_NOT_TCP], 127u - 75u); // ICMPv6 and DNS
	expect_conserved(r);
}

TEST(ReplayCaptures, PollOfOneFrameNeverMerges)
{
	const char *f = "tcp4-bulk-retrans-ooo-http.pcap";
	REQUIRE_CAPTURE(f);
	Options o;
	o.poll = 1;
	const Result r = replay_file(f, o);
	EXPECT_EQ(r.total.gro_packets, r.total.tcp_segments);
	expect_conserved(r);
}

// Every capture, every dispatch and wrap, two poll sizes: nothing lost, nothing refused at completion (ASan/UBSan
// watch the rest). One instance per dispatch, so CTest's shards share the thousand replays.
class EveryCapture : public ::testing::TestWithParam<Encap> {};

TEST_P(EveryCapture, EveryModeConservesSegments)
{
	if (!fs::is_directory(TUNGRO_CAPTURES_DIR))
		GTEST_SKIP() << "capture directory " << TUNGRO_CAPTURES_DIR << " not found";
	unsigned files = 0;
	for (const auto &e : fs::directory_iterator(TUNGRO_CAPTURES_DIR)) {
		const std::string ext = e.path().extension();
		if (ext != ".pcap" && ext != ".pcapng")
			continue;
		files++;
		for (Wrap w : {Wrap::None, Wrap::Ipip, Wrap::Sit})
			for (unsigned poll : {7u, 64u})
				for (bool engine : {false, true}) {
					Options o;
					o.encap = GetParam();
					o.wrap = w;
					o.poll = poll;
					o.engine = engine;
					Result r;
					std::string err;
					ASSERT_TRUE(replay::run(e.path(), o, &r, &err)) << err;
					SCOPED_TRACE(e.path().filename().string() + " wrap " +
						     replay::kWrapNames[static_cast<int>(w)] + " poll " +
						     std::to_string(poll) + (engine ? " engine" : " offloads"));
					expect_conserved(r);
				}
	}
	EXPECT_GT(files, 0u);
}

// An instance is named as tungro-replay's --encap value.
std::string encap_name(const ::testing::TestParamInfo<Encap> &info)
{
	return replay::kEncapNames[static_cast<int>(info.param)];
}

INSTANTIATE_TEST_SUITE_P(ReplayCaptures, EveryCapture,
			 ::testing::Values(Encap::Auto, Encap::Ipip, Encap::Sit, Encap::Plain, Encap::Ip4ip6,
					   Encap::Ip6ip6),
			 encap_name);

namespace {

// Runs tungro-replay with args; returns its exit status and output (stdout and stderr).
int run_cli(const std::string &args, std::string *output)
{
	const std::string cmd = std::string(TUNGRO_REPLAY_BIN) + " " + args + " 2>&1";
	FILE *p = popen(cmd.c_str(), "r");
	if (!p)
		return -1;
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
		output->append(buf, n);
	const int st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

} // namespace

TEST(ReplayCli, BadCommandLinesAreRefusedWithAMessage)
{
	const struct {
		const char *args, *msg;
	} cases[] = {
		{"", "no capture file given"},
		{"--bogus x.pcap", "unknown option '--bogus'"},
		{"--poll 0 x.pcap", "--poll wants"},
		{"--poll 12abc x.pcap", "--poll wants"},
		{"--poll", "needs a value"},
		{"--encap gre x.pcap", "--encap wants"},
		{"--wrap plain x.pcap", "--wrap wants"},
		{"a.pcap b.pcap", "one capture file only"},
		{"--engine --buckets 0 x.pcap", "--buckets wants"},
		{"--engine --flows 257 x.pcap", "--flows wants"},
		{"--buckets 4 x.pcap", "need --engine"},
	};
	for (const auto &c : cases) {
		std::string out;
		EXPECT_EQ(run_cli(c.args, &out), 2) << c.args << "\n" << out;
		EXPECT_NE(out.find(c.msg), std::string::npos) << c.args << "\n" << out;
		EXPECT_NE(out.find("usage:"), std::string::npos) << out;
	}
}

TEST(ReplayCli, UnreadableFileIsAnErrorNotACrash)
{
	std::string out;
	EXPECT_EQ(run_cli("/nonexistent/capture.pcap", &out), 1) << out;
	EXPECT_NE(out.find("cannot read capture /nonexistent/capture.pcap"), std::string::npos) << out;
	out.clear();
	// Not a capture at all: this very test binary.
	EXPECT_EQ(run_cli(std::string("/proc/self/exe"), &out), 1) << out;
	EXPECT_NE(out.find("cannot read capture"), std::string::npos) << out;
}

TEST(ReplayCli, JsonAndTableOutput)
{
	REQUIRE_CAPTURE("ipip-tcp-single-packet.pcap");
	std::string out;
	ASSERT_EQ(run_cli("--json --poll 8 " + capture("ipip-tcp-single-packet.pcap"), &out), 0) << out;
	EXPECT_NE(out.find("\"total\": {\"frames\": 1, \"tcp_segments\": 1, \"gro_packets\": 1"), std::string::npos)
		<< out;
	EXPECT_NE(out.find("\"reasons\": {\"none\": 1}"), std::string::npos) << out;
	out.clear();
	ASSERT_EQ(run_cli("--encap sit " + capture("ipip-tcp-single-packet.pcap"), &out), 0) << out;
	EXPECT_NE(out.find("malformed=1"), std::string::npos) << out; // IPIP bytes on the SIT path
}

// --engine: the same totals in the same JSON shape, plus the table's layout and evictions; one flow of a
// single packet is one GRO packet whatever the table.
TEST(ReplayCli, EngineJsonGivesTheSameTotals)
{
	REQUIRE_CAPTURE("ipip-tcp-single-packet.pcap");
	std::string out;
	ASSERT_EQ(run_cli("--json --engine --buckets 2 --flows 4 --poll 8 " + capture("ipip-tcp-single-packet.pcap"),
			  &out),
		  0)
		<< out;
	EXPECT_NE(out.find("\"engine\": {\"buckets\": 2, \"flows\": 4, \"evicted\": 0}"), std::string::npos) << out;
	EXPECT_NE(out.find("\"total\": {\"frames\": 1, \"tcp_segments\": 1, \"gro_packets\": 1"), std::string::npos)
		<< out;
	out.clear();
	ASSERT_EQ(run_cli("--engine " + capture("ipip-tcp-single-packet.pcap"), &out), 0) << out;
	EXPECT_NE(out.find("engine: 8 buckets x 8 flows"), std::string::npos) << out;
}

// The engine's table on the real captures: never fewer segments per GRO packet than the kernel's one bucket of 8
// (its flows are spread over 64 slots and kept across polls), nothing lost.
TEST(ReplayCaptures, EngineCoalescesAtLeastAsTheKernelList)
{
	const char *f = "sit-6in4-he-tunnelbroker-mixed.pcap";
	REQUIRE_CAPTURE(f);
	Options o;
	const Result kernel = replay_file(f, o);
	o.engine = true;
	const Result engine = replay_file(f, o);
	expect_conserved(engine);
	EXPECT_EQ(engine.total.frames, kernel.total.frames);
	EXPECT_EQ(engine.total.tcp_segments, kernel.total.tcp_segments);
	EXPECT_GE(engine.total.mean_segs(), kernel.total.mean_segs());
}

// Issue 8's crafted trains through the replay path, as a capture: 16 IPIP flows interleaved segment by segment, 16
// segments per flow, written as Ethernet frames with libpcap and replayed in polls of 64 (4 segments of every
// flow per poll). The kernel's list (one bucket of 8, hash 0) completes a flow on every segment: exactly 1.0
// segments per GRO packet; tungro's 8 x 8 table holds all 16 flows: exactly 4.0. The same figures as the host
// engine test (test_engine.cpp) and the KUnit engine suite, here through tungro-replay's own code and its CLI.
namespace {

// Writes @ip (IP packets) as Ethernet frames of a capture in the temporary directory; returns its path.
std::string write_pcap(const std::string &name, const std::vector<std::vector<uint8_t>> &ip)
{
	const std::string path =
		(fs::temp_directory_path() / ("tungro-" + name + "-" + std::to_string(getpid()) + ".pcap")).string();
	pcap_t *dead = pcap_open_dead(DLT_EN10MB, 65535);
	pcap_dumper_t *d = dead ? pcap_dump_open(dead, path.c_str()) : nullptr;
	EXPECT_NE(d, nullptr) << path << ": " << (dead ? pcap_geterr(dead) : "pcap_open_dead failed");
	if (!d) {
		if (dead)
			pcap_close(dead);
		return path;
	}
	for (size_t i = 0; i < ip.size(); i++) {
		const bool v6 = !ip[i].empty() && ip[i][0] >> 4 == 6;
		std::vector<uint8_t> fr = {2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, v6 ? uint8_t(0x86) : uint8_t(0x08),
					   v6 ? uint8_t(0xdd) : uint8_t(0x00)}; // Ethernet, IPv4 or IPv6
		fr.insert(fr.end(), ip[i].begin(), ip[i].end());
		pcap_pkthdr h{};
		h.ts.tv_usec = static_cast<suseconds_t>(i);
		h.caplen = h.len = static_cast<bpf_u_int32>(fr.size());
		pcap_dump(reinterpret_cast<u_char *>(d), &h, fr.data());
	}
	pcap_dump_close(d);
	pcap_close(dead);
	return path;
}

// @flows flows of @segs segments from @first (own source port and sequence space each), interleaved segment by
// segment.
std::vector<std::vector<uint8_t>> interleaved(const frames::Segment &first, unsigned flows, unsigned segs)
{
	std::vector<std::vector<frames::Segment>> per(flows);
	for (unsigned f = 0; f < flows; f++) {
		frames::Segment s = first;
		s.tcp.sport = static_cast<uint16_t>(40000 + f);
		s.tcp.seq = 1000 + f * 10000000u;
		per[f] = frames::train(s, segs);
	}
	std::vector<std::vector<uint8_t>> ip;
	for (unsigned i = 0; i < segs; i++)
		for (unsigned f = 0; f < flows; f++)
			ip.push_back(frames::build(per[f][i]));
	return ip;
}

std::string write_train16_pcap() { return write_pcap("train16", interleaved(frames::ipip(), 16, 16)); }

} // namespace

TEST(ReplayCraftedTrain, Issue8_SixteenInterleavedIpipFlowsInPollsOf64)
{
	const std::string path = write_train16_pcap();
	Options o;
	Result kernel, engine;
	std::string err;
	ASSERT_TRUE(replay::run(path, o, &kernel, &err)) << err;
	o.engine = true;
	ASSERT_TRUE(replay::run(path, o, &engine, &err)) << err;
	for (const Result *r : {&kernel, &engine}) {
		expect_conserved(*r);
		EXPECT_EQ(r->total.tcp_segments, 256u);
		EXPECT_EQ(r->total.gro_segments, 256u);
		EXPECT_EQ(r->flows.size(), 16u);
	}
	EXPECT_EQ(kernel.total.gro_packets, 256u) << "the kernel's one bucket of 8 evicts on every segment";
	EXPECT_EQ(engine.total.gro_packets, 64u) << "tungro's table holds the 16 flows: 4 segments each per poll";
	EXPECT_EQ(engine.evicted, 0u);
	EXPECT_DOUBLE_EQ(engine.total.mean_segs() / kernel.total.mean_segs(), 4.0);

	std::string out;
	ASSERT_EQ(run_cli("--json --engine --poll 64 " + path, &out), 0) << out;
	EXPECT_NE(out.find("\"total\": {\"frames\": 256, \"tcp_segments\": 256, \"gro_packets\": 64"), std::string::npos)
		<< out;
	out.clear();
	ASSERT_EQ(run_cli("--json --poll 64 " + path, &out), 0) << out;
	EXPECT_NE(out.find("\"total\": {\"frames\": 256, \"tcp_segments\": 256, \"gro_packets\": 256"), std::string::npos)
		<< out;
	fs::remove(path);
}

// Case X02 through the replay path: ip6ip6 with the encapsulation-limit option, four flows interleaved, found by
// auto-detection (outer IPv6, next header 41 after the option) and merged as the case says on both models.
TEST(ReplayCraftedTrain, X02_Ip6ip6WithEncapLimitIsDetectedAndCoalesces)
{
	frames::Segment s = frames::ip6ip6();
	s.outer6.ext.push_back(frames::encap_limit());
	const std::string path = write_pcap("ip6ip6", interleaved(s, 4, 16));
	for (bool engine : {false, true}) {
		Options o;
		o.engine = engine;
		Result r;
		std::string err;
		ASSERT_TRUE(replay::run(path, o, &r, &err)) << err;
		expect_conserved(r);
		EXPECT_EQ(r.total.tcp_segments, 64u);
		EXPECT_EQ(r.total.gro_packets, 4u) << (engine ? "engine" : "kernel list");
		ASSERT_EQ(r.flows.size(), 4u);
		for (const auto &kv : r.flows)
			EXPECT_EQ(kv.first.rfind("ip6in6 ", 0), 0u) << kv.first;
	}
	fs::remove(path);
}
