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
cmake -S "$here/cxxcore" -B "$out" -DCMAKE_BUILD_TYPE=Debug -DTUNGRO_SANITIZE=ON >"$out.cmake.log" 2>&1 \
  || { cat "$out.cmake.log" >&2; die "cmake configure failed"; }
cmake --build "$out" -j"$(nproc)" >"$out.build.log" 2>&1 || { tail -40 "$out.build.log" >&2; die "host test build failed"; }
log "host tests: running"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir "$out" --output-on-failure -j"$(nproc)"

# The benchmark binary in its short mode (make bench's outputs check, no timing): tungro's engine and DPDK's
# librte_gro give every train's expected GRO packets, packet by packet. Optimised build, no sanitizers.
"$here/scripts/bench.sh" --check

# libFuzzer smoke run of the core (cxxcore/fuzz/): needs clang++-14 and its fuzzer runtime (libclang-rt-14-dev).
# TUNGRO_FUZZ_SECONDS (default 20; 0 skips) bounds it. The grown corpus stays in build/fuzz/corpus between runs.
fuzz_secs=${TUNGRO_FUZZ_SECONDS:-20}
fz="$here/build/fuzz"
clangxx=$(command -v clang++-14 || true)
fuzz_rt=""
[ -n "$clangxx" ] && fuzz_rt="$("$clangxx" -print-resource-dir)/lib/linux/libclang_rt.fuzzer-$(uname -m).a"
if [ "$fuzz_secs" = 0 ]; then
  log "fuzz smoke: skipped (TUNGRO_FUZZ_SECONDS=0)"
elif [ -z "$clangxx" ]; then
  log "fuzz smoke: SKIPPED: clang++-14 not installed (apt-get install clang-14 libclang-rt-14-dev)"
elif [ ! -f "$fuzz_rt" ]; then
  log "fuzz smoke: SKIPPED: clang's fuzzer runtime $fuzz_rt missing (apt-get install libclang-rt-14-dev)"
else
  log "fuzz smoke: building the libFuzzer target with $clangxx ($fz)"
  mkdir -p "$fz"
  cmake -S "$here/cxxcore" -B "$fz" -DCMAKE_CXX_COMPILER="$clangxx" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DTUNGRO_SANITIZE=ON -DTUNGRO_FUZZ=ON >"$fz.cmake.log" 2>&1 || { cat "$fz.cmake.log" >&2; die "fuzz configure failed"; }
  cmake --build "$fz" -j"$(nproc)" --target tungro_fuzz tungro_fuzz_corpus >"$fz.build.log" 2>&1 \
    || { tail -40 "$fz.build.log" >&2; die "fuzz build failed"; }
  rm -rf "$fz/seeds" && mkdir -p "$fz/corpus" "$fz/artifacts"
  "$fz/tungro_fuzz_corpus" --write "$fz/seeds" >/dev/null
  log "fuzz smoke: running tungro_fuzz for ${fuzz_secs}s (log: $fz/fuzz.log)"
  rc=0
  ( cd "$fz" && ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      ./tungro_fuzz -max_total_time="$fuzz_secs" -max_len=16384 -timeout=10 -print_final_stats=1 \
      -artifact_prefix="$fz/artifacts/" corpus seeds ) >"$fz/fuzz.log" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ]; then
    grep -aE "invariant violated|ERROR:|SUMMARY" "$fz/fuzz.log" >&2 || tail -30 "$fz/fuzz.log" >&2
    art=$(grep -ao "Test unit written to .*" "$fz/fuzz.log" | sed 's/Test unit written to //' | tail -1)
    die "fuzz smoke found a failure (exit $rc); reproduce: $fz/tungro_fuzz $art  (or build/host/tungro_fuzz_corpus $art)"
  fi
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$fz/fuzz.log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$fz/fuzz.log")
  done_line=$(grep -aE '^#[0-9]+[[:space:]]+DONE' "$fz/fuzz.log" | tail -1 | sed 's/^#[0-9]*[[:space:]]*DONE[[:space:]]*//')
  log "fuzz smoke: passed: $execs inputs in ${fuzz_secs}s ($rate/s), $done_line"
fi
