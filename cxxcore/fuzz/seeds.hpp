// Seed corpus of the GRO fuzz harness, built from the test frame builder (tests/frames.cpp) at build/test time so
// no binary blobs are committed.
#ifndef TUNGRO_FUZZ_SEEDS_HPP
#define TUNGRO_FUZZ_SEEDS_HPP

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace fuzzseeds {

// Named inputs in the fuzz_input.hpp record format: well-formed trains (T01 IPIP, SIT, plain IPv4/IPv6, two
// interleaved flows, one reaching the 64 KiB limit) and malformed or unmergeable ones (bad lengths, padding,
// options, fragments, nesting, ICMP, bad checksums, truncation). Names are file-name safe.
std::vector<std::pair<std::string, std::vector<uint8_t>>> make_seeds();

} // namespace fuzzseeds
#endif
