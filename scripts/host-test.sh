#!/usr/bin/env bash
# Builds the C++ core for the host with ASan + UBSan and runs its GoogleTest suite through CTest (unit tests, the
# fuzz harness over its seed corpus, tungro-replay on ../shared/captures), the benchmark's output check, then a
# bounded libFuzzer smoke run.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/lib.sh"
out="$here/build/host"
mkdir -p "$out"
log "host tests: configuring and building the C++ core with ASan+UBSan ($out)"
host_ccache
cmake -S "$here/cxxcore" -B "$out" -DCMAKE_BUILD_TYPE=Debug -DTUNGRO_SANITIZE=ON "${HOST_CMAKE_CACHE[@]}" >"$out.cmake.log" 2>&1 \
  || { cat "$out.cmake.log" >&2; die "cmake configure failed"; }
cmake --build "$out" -j"$(nproc)" >"$out.build.log" 2>&1 || { tail -40 "$out.build.log" >&2; die "host test build failed"; }
log "host tests: running"
rm -rf "$out/gtest"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir "$out" --output-on-failure -j"$(nproc)"
# CTest counts shards (CMakeLists.txt, tungro_gtest_shards): the tests are in the shards' JUnit files, one per
# shard that ran (a failed shard stopped the script above).
nshards=$(ctest --test-dir "$out" -N | grep -c '/shard-[0-9]*$' || true)
nxml=$(find "$out/gtest" -name '*.xml' 2>/dev/null | wc -l)
[ "$nshards" -gt 0 ] && [ "$nxml" -eq "$nshards" ] || die "host tests: $nxml JUnit files for $nshards shards"
read -r ntests nskip < <(cat "$out"/gtest/*.xml | awk '
  /<testcase / { n++; if ($0 ~ /result="skipped"/) s++ }
  END { print n + 0, s + 0 }')
log "host tests: $((ntests - nskip)) GoogleTest tests passed, $nskip skipped, in $nshards shards"
# The replay tests skip (and CTest counts them passed) when their captures are absent: say which. The directory is
# the build's own (CMake's TUNGRO_CAPTURES, by default ../shared/captures beside the checkout).
caps=$(sed -n 's/^TUNGRO_CAPTURES:PATH=//p' "$out/CMakeCache.txt")
ncaps=$(find "$caps" -maxdepth 1 \( -name '*.pcap' -o -name '*.pcapng' \) 2>/dev/null | wc -l)
if [ "$ncaps" -gt 0 ]; then
  log "host tests: capture replays ran over $ncaps captures in $caps"
else
  log "host tests: capture replays SKIPPED: no captures in ${caps:-TUNGRO_CAPTURES} (a checkout beside ../shared has them)"
fi

# The benchmark binary in its short mode (make bench's outputs check, no timing): tungro's engine and DPDK's
# librte_gro give every train's expected GRO packets, packet by packet. Optimised build, no sanitizers.
"$here/scripts/bench.sh" --check

# libFuzzer smoke run of the core's three harnesses (scripts/fuzz.sh --smoke; make fuzz runs them long):
# TUNGRO_FUZZ_SECONDS (default 12; 0 skips) bounds it; needs clang++-14 and its fuzzer runtime (libclang-rt-14-dev).
if [ "${TUNGRO_FUZZ_SECONDS:-12}" = 0 ]; then
  log "fuzz smoke: skipped (TUNGRO_FUZZ_SECONDS=0)"
elif ! command -v clang++-14 >/dev/null; then
  log "fuzz smoke: SKIPPED: clang++-14 not installed (apt-get install clang-14 libclang-rt-14-dev)"
else
  "$here/scripts/fuzz.sh" --smoke
fi
