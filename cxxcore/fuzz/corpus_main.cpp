// fuzz_<harness>_corpus: one fuzz harness without libFuzzer, for any compiler (and for the coverage build).
//   fuzz_X_corpus                          runs every built-in seed through the harness (a ctest under ASan/UBSan)
//   fuzz_X_corpus --write DIR              writes the seeds as files into DIR (the fuzzers' starting corpus)
//   fuzz_X_corpus --write-pcap DIR PCAP... writes seeds made of the captures' IP packets into DIR
//   fuzz_X_corpus FILE|DIR...              runs the given inputs (reproduces a crash file without clang)
// Exit status 0 on success, 2 on a usage or I/O error; an invariant violation aborts.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz_input.hpp"
#include "replay.hpp"
#include "seeds.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

namespace fs = std::filesystem;

namespace {

// Seeds of at most kPcapSeedBytes (the fuzzers' -max_len) from each capture: its IP packets in order as records
// dispatched by the outer protocol (kEncapAuto), each seed one NAPI poll; at most kPcapSeedsPer per capture.
constexpr size_t kPcapSeedBytes = 8192, kPcapSeedsPer = 24;

bool write_seed(const fs::path &p, const std::vector<uint8_t> &bytes)
{
	std::ofstream f(p, std::ios::binary | std::ios::trunc);
	f.write(reinterpret_cast<const char *>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
	if (!f)
		std::fprintf(stderr, "fuzz corpus: cannot write %s\n", p.c_str());
	return static_cast<bool>(f);
}

int write_pcap_seeds(const fs::path &dir, int n, char **files)
{
	unsigned seeds = 0;
	for (int i = 0; i < n; i++) {
		std::vector<std::vector<uint8_t>> pkts;
		uint64_t records;
		std::string err;
		if (!replay::read_ip_packets(files[i], &pkts, &records, &err)) {
			std::fprintf(stderr, "fuzz corpus: %s\n", err.c_str());
			return 2;
		}
		const std::string base = fs::path(files[i]).stem().string();
		std::vector<uint8_t> in;
		size_t k = 0, last = 0;
		auto emit = [&]() {
			if (in.empty())
				return true;
			in[last] |= fuzzin::kEndPoll;
			const bool ok = write_seed(dir / ("pcap-" + base + "-" + std::to_string(k++)), in);
			in.clear();
			seeds++;
			return ok;
		};
		for (const auto &p : pkts) {
			if (p.empty() || p.size() + fuzzin::kRecordHdr > kPcapSeedBytes)
				continue;
			if (in.size() + p.size() + fuzzin::kRecordHdr > kPcapSeedBytes && !emit())
				return 2;
			if (k == kPcapSeedsPer)
				break;
			last = in.size();
			fuzzin::put_record(in, fuzzin::kEncapAuto, 0, p);
		}
		if (k < kPcapSeedsPer && !emit())
			return 2;
	}
	std::printf("wrote %u capture seeds into %s\n", seeds, dir.c_str());
	return 0;
}

int run_file(const fs::path &p)
{
	std::ifstream f(p, std::ios::binary);
	if (!f) {
		std::fprintf(stderr, "fuzz corpus: cannot read %s\n", p.c_str());
		return 2;
	}
	std::vector<uint8_t> in((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
	LLVMFuzzerTestOneInput(in.data(), in.size());
	return 0;
}

} // namespace

int main(int argc, char **argv)
{
	if (argc == 3 && std::strcmp(argv[1], "--write") == 0) {
		std::error_code ec;
		fs::create_directories(argv[2], ec);
		if (ec) {
			std::fprintf(stderr, "fuzz corpus: cannot create %s: %s\n", argv[2], ec.message().c_str());
			return 2;
		}
		unsigned n = 0;
		for (const auto &[name, bytes] : fuzzseeds::make_seeds()) {
			if (!write_seed(fs::path(argv[2]) / ("seed-" + name), bytes))
				return 2;
			n++;
		}
		std::printf("wrote %u seeds into %s\n", n, argv[2]);
		return 0;
	}
	if (argc >= 3 && std::strcmp(argv[1], "--write-pcap") == 0) {
		std::error_code ec;
		fs::create_directories(argv[2], ec);
		return ec ? 2 : write_pcap_seeds(argv[2], argc - 3, argv + 3);
	}
	if (argc > 1 && argv[1][0] == '-') {
		std::fprintf(stderr, "usage: %s [--write DIR | --write-pcap DIR PCAP... | FILE|DIR...]\n", argv[0]);
		return 2;
	}
	if (argc == 1) {
		unsigned n = 0;
		for (const auto &[name, bytes] : fuzzseeds::make_seeds()) {
			LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
			n++;
		}
		std::printf("%u built-in seeds passed the harness invariants\n", n);
		return 0;
	}
	unsigned n = 0;
	for (int i = 1; i < argc; i++) {
		std::error_code ec;
		if (fs::is_directory(argv[i], ec)) {
			for (const auto &e : fs::directory_iterator(argv[i]))
				if (e.is_regular_file()) {
					if (run_file(e.path()))
						return 2;
					n++;
				}
		} else {
			if (run_file(argv[i]))
				return 2;
			n++;
		}
	}
	std::printf("%u inputs passed the harness invariants\n", n);
	return 0;
}
