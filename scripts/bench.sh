#!/usr/bin/env bash
# Per-segment cost of the C++ core against DPDK's librte_gro on the same packet trains (Google Benchmark),
# built optimised without sanitizers. Numbers are wall-clock on a shared machine: compare within one run.
# usage: scripts/bench.sh [extra Google Benchmark flags]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/lib.sh"
out="$here/build/bench"
mkdir -p "$out"
log "bench: building (Release, DPDK $(pkg-config --modversion libdpdk 2>/dev/null || echo '?'))"
cmake -S "$here/cxxcore" -B "$out" -DCMAKE_BUILD_TYPE=Release -DTUNGRO_SANITIZE=OFF -DTUNGRO_BENCH=ON >"$out.cmake.log" 2>&1 \
  || { tail -20 "$out.cmake.log" >&2; die "bench: cmake failed"; }
cmake --build "$out" -j"$(nproc)" --target bench_gro >"$out.build.log" 2>&1 || { tail -30 "$out.build.log" >&2; die "bench: build failed"; }
"$out/bench_gro" --benchmark_min_time=1 --benchmark_counters_tabular=true "$@" 2>&1 | grep -v '^\*\*\*WARNING\*\*\* Library was built as DEBUG'
