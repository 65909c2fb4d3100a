// tungro-replay: replays a pcap/pcapng capture through tungro's GRO core and prints what GRO made of it.
// Usage and exit status: see usage() below.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "replay.hpp"

namespace {

const char *const kUsage =
	"usage: tungro-replay [--poll N] [--encap auto|ipip|sit|plain|ip4ip6|ip6ip6] [--wrap ipip|sit] [--fix-ipv4-csum]\n"
	"                     [--json]\n"
	"                     [--engine [--buckets B] [--flows F]] CAPTURE\n"
	"  Replays the Ethernet frames of CAPTURE (pcap or pcapng) through tungro's GRO core as NAPI polls of N\n"
	"  frames (default 64) and prints per flow and in total: frames, TCP segments, GRO packets, mean segments\n"
	"  per GRO packet and flush reasons.\n"
	"  --encap  dispatch: auto (by the outer IPv4 protocol or IPv6 next header 4/41, else plain; default) or one\n"
	"           path for every packet\n"
	"  --wrap   ipip: put plain TCP/IPv4 packets in an outer IPv4 header (protocol 4); sit: plain TCP/IPv6 in\n"
	"           protocol 41. Outer 192.0.2.1>192.0.2.2, DF, ID 0; frames may exceed 1514 bytes.\n"
	"  --fix-ipv4-csum  recompute wrong IPv4 header checksums first (captures taken on a sending host\n"
	"           with checksum offload, e.g. tcp4-bulk-1460-nots-printer)\n"
	"  --json   one JSON object instead of the table\n"
	"  --engine tungro's engine: one flow table of B buckets x F flows (default 8 x 8, 1..256 each, B a\n"
	"           power of 2) with tungro's own hash, for every dispatch path and across polls; without it, the\n"
	"           kernel's GRO list (one bucket of 8, every hash 0) per path and poll\n"
	"exit status: 0 done, 1 capture unreadable, 2 bad command line\n";

[[noreturn]] void usage_error(const std::string &msg)
{
	std::fprintf(stderr, "tungro-replay: %s\n%s", msg.c_str(), kUsage);
	std::exit(2);
}

// "seq=3 end=2 ..." in descending count; reasons with no count are left out.
std::vector<std::pair<unsigned, uint64_t>> sorted_reasons(const replay::Stats &s)
{
	std::vector<std::pair<unsigned, uint64_t>> v;
	for (unsigned r = 0; r < TGC_R_COUNT; r++)
		if (s.reasons[r])
			v.emplace_back(r, s.reasons[r]);
	std::stable_sort(v.begin(), v.end(), [](const auto &a, const auto &b) { return a.second > b.second; });
	return v;
}

std::string json_str(const std::string &s)
{
	std::string o = "\"";
	for (char c : s) {
		if (c == '"' || c == '\\')
			o += '\\';
		if (static_cast<unsigned char>(c) < 0x20) {
			char b[8];
			std::snprintf(b, sizeof(b), "\\u%04x", c);
			o += b;
			continue;
		}
		o += c;
	}
	return o + "\"";
}

std::string json_stats(const replay::Stats &s)
{
	char b[256];
	std::snprintf(b, sizeof(b),
		      "{\"frames\": %llu, \"tcp_segments\": %llu, \"gro_packets\": %llu, \"gro_segments\": %llu, "
		      "\"segments_out\": %llu, \"mean_segs_per_gro\": %.3f, \"reasons\": {",
		      (unsigned long long)s.frames, (unsigned long long)s.tcp_segments,
		      (unsigned long long)s.gro_packets, (unsigned long long)s.gro_segments,
		      (unsigned long long)s.segments_out, s.mean_segs());
	std::string o = b;
	bool first = true;
	for (const auto &[r, n] : sorted_reasons(s)) {
		o += (first ? "" : ", ") + json_str(tgc_reason_name(r)) + ": " + std::to_string(n);
		first = false;
	}
	return o + "}}";
}

void print_json(const std::string &path, const replay::Options &opt, const replay::Result &res)
{
	std::printf("{\"file\": %s, \"poll\": %u, \"encap\": \"%s\", \"wrap\": \"%s\",\n", json_str(path).c_str(),
		    opt.poll, replay::kEncapNames[static_cast<int>(opt.encap)],
		    replay::kWrapNames[static_cast<int>(opt.wrap)]);
	if (opt.engine)
		std::printf(" \"engine\": {\"buckets\": %u, \"flows\": %u, \"evicted\": %llu},\n", opt.buckets, opt.flows,
			    (unsigned long long)res.evicted);
	std::printf(" \"records\": %llu, \"not_ip\": %llu, \"wrapped\": %llu, \"csum_fixed\": %llu, "
		    "\"complete_errors\": %llu,\n",
		    (unsigned long long)res.records, (unsigned long long)res.not_ip, (unsigned long long)res.wrapped,
		    (unsigned long long)res.csum_fixed, (unsigned long long)res.complete_errors);
	std::printf(" \"total\": %s,\n \"flows\": [", json_stats(res.total).c_str());
	bool first = true;
	for (const auto &[name, s] : res.flows) {
		std::printf("%s\n  {\"flow\": %s, \"stats\": %s}", first ? "" : ",", json_str(name).c_str(),
			    json_stats(s).c_str());
		first = false;
	}
	std::printf("\n]}\n");
}

std::string reasons_text(const replay::Stats &s)
{
	std::string o;
	for (const auto &[r, n] : sorted_reasons(s))
		o += std::string(o.empty() ? "" : " ") + tgc_reason_name(r) + "=" + std::to_string(n);
	return o;
}

void print_table(const std::string &path, const replay::Options &opt, const replay::Result &res)
{
	if (opt.engine)
		std::printf("engine: %u buckets x %u flows, tungro's hash, %llu evicted\n", opt.buckets, opt.flows,
			    (unsigned long long)res.evicted);
	std::printf("%s: %llu records, %llu not IP (skipped), %llu wrapped, %llu IPv4 checksums fixed, "
		    "%llu IP packets to the core\n",
		    path.c_str(), (unsigned long long)res.records, (unsigned long long)res.not_ip,
		    (unsigned long long)res.wrapped, (unsigned long long)res.csum_fixed,
		    (unsigned long long)res.total.frames);
	std::printf("%8s %8s %8s %9s  %-60s %s\n", "frames", "tcp_segs", "gro_pkts", "segs/gro", "flow", "reasons");
	auto row = [](const std::string &name, const replay::Stats &s) {
		std::printf("%8llu %8llu %8llu %9.2f  %-60s %s\n", (unsigned long long)s.frames,
			    (unsigned long long)s.tcp_segments, (unsigned long long)s.gro_packets, s.mean_segs(),
			    name.c_str(), reasons_text(s).c_str());
	};
	for (const auto &[name, s] : res.flows)
		row(name, s);
	row("total", res.total);
	if (res.complete_errors)
		std::printf("warning: tgc_complete refused %llu GRO packets\n", (unsigned long long)res.complete_errors);
	if (res.total.segments_out != res.total.frames)
		std::printf("warning: %llu segments in, %llu out\n", (unsigned long long)res.total.frames,
			    (unsigned long long)res.total.segments_out);
}

} // namespace

int main(int argc, char **argv)
{
	replay::Options opt;
	bool json = false, table_set = false;
	std::string path;
	for (int i = 1; i < argc; i++) {
		const std::string a = argv[i];
		auto value = [&]() -> std::string {
			if (i + 1 >= argc)
				usage_error("option " + a + " needs a value");
			return argv[++i];
		};
		if (a == "-h" || a == "--help") {
			std::fputs(kUsage, stdout);
			return 0;
		} else if (a == "--json") {
			json = true;
		} else if (a == "--fix-ipv4-csum") {
			opt.fix_ipv4_csum = true;
		} else if (a == "--poll") {
			const std::string v = value();
			char *end = nullptr;
			errno = 0;
			const unsigned long n = std::strtoul(v.c_str(), &end, 10);
			if (v.empty() || *end || errno || n < 1 || n > 1000000 || v[0] == '-')
				usage_error("--poll wants a frame count from 1 to 1000000, not '" + v + "'");
			opt.poll = static_cast<unsigned>(n);
		} else if (a == "--engine") {
			opt.engine = true;
		} else if (a == "--buckets" || a == "--flows") {
			const std::string v = value();
			char *end = nullptr;
			errno = 0;
			const unsigned long n = std::strtoul(v.c_str(), &end, 10);
			if (v.empty() || *end || errno || n < 1 || n > 256 || v[0] == '-')
				usage_error(a + " wants a count from 1 to 256, not '" + v + "'");
			if (a == "--buckets" && (n & (n - 1)))
				usage_error("--buckets wants a power of two (the hash's low bits pick the bucket), not '" + v + "'");
			(a == "--buckets" ? opt.buckets : opt.flows) = static_cast<unsigned>(n);
			table_set = true;
		} else if (a == "--encap") {
			const std::string v = value();
			const auto *e = std::find(std::begin(replay::kEncapNames), std::end(replay::kEncapNames), v);
			if (e == std::end(replay::kEncapNames))
				usage_error("--encap wants auto, ipip, sit, plain, ip4ip6 or ip6ip6, not '" + v + "'");
			opt.encap = static_cast<replay::Encap>(e - std::begin(replay::kEncapNames));
		} else if (a == "--wrap") {
			const std::string v = value();
			if (v == "ipip")
				opt.wrap = replay::Wrap::Ipip;
			else if (v == "sit")
				opt.wrap = replay::Wrap::Sit;
			else
				usage_error("--wrap wants ipip or sit, not '" + v + "'");
		} else if (a.size() > 1 && a[0] == '-') {
			usage_error("unknown option '" + a + "'");
		} else if (path.empty()) {
			path = a;
		} else {
			usage_error("one capture file only (got '" + path + "' and '" + a + "')");
		}
	}
	if (path.empty())
		usage_error("no capture file given");
	if (table_set && !opt.engine)
		usage_error("--buckets and --flows need --engine");

	replay::Result res;
	std::string err;
	if (!replay::run(path, opt, &res, &err)) {
		std::fprintf(stderr, "tungro-replay: %s\n", err.c_str());
		return 1;
	}
	if (json)
		print_json(path, opt, res);
	else
		print_table(path, opt, res);
	return 0;
}
