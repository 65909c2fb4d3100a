// tungro_fuzz_corpus: the fuzz harness without libFuzzer, for any compiler.
//   tungro_fuzz_corpus                 runs every built-in seed through the harness (a ctest under ASan/UBSan)
//   tungro_fuzz_corpus --write DIR     writes the seeds as files into DIR (the fuzzer's starting corpus)
//   tungro_fuzz_corpus FILE|DIR...     runs the given inputs (reproduces a crash file without clang)
// Exit status 0 on success, 2 on a usage or I/O error; an invariant violation aborts.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "seeds.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

namespace fs = std::filesystem;

namespace {

int run_file(const fs::path &p)
{
	std::ifstream f(p, std::ios::binary);
	if (!f) {
		std::fprintf(stderr, "tungro_fuzz_corpus: cannot read %s\n", p.c_str());
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
			std::fprintf(stderr, "tungro_fuzz_corpus: cannot create %s: %s\n", argv[2], ec.message().c_str());
			return 2;
		}
		unsigned n = 0;
		for (const auto &[name, bytes] : fuzzseeds::make_seeds()) {
			std::ofstream f(fs::path(argv[2]) / ("seed-" + name), std::ios::binary | std::ios::trunc);
			f.write(reinterpret_cast<const char *>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
			if (!f) {
				std::fprintf(stderr, "tungro_fuzz_corpus: cannot write into %s\n", argv[2]);
				return 2;
			}
			n++;
		}
		std::printf("wrote %u seeds into %s\n", n, argv[2]);
		return 0;
	}
	if (argc > 1 && argv[1][0] == '-') {
		std::fprintf(stderr, "usage: %s [--write DIR | FILE|DIR...]\n", argv[0]);
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
