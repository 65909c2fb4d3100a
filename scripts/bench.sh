#!/usr/bin/env bash
# Per-segment cost of the C++ core's engine against DPDK's librte_gro on the same packet trains, built optimised
# without sanitizers: outputs checked packet by packet (bench_gro --check), wall clock from Google Benchmark,
# instructions from callgrind (stable on a shared machine), one table (scripts/bench-table.py).
# usage: scripts/bench.sh [--check] [extra Google Benchmark flags]
#   --check   build and compare the outputs only (what make host-test runs): no timing, no callgrind
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/lib.sh"
out="$here/build/bench"
mkdir -p "$out"
log "bench: building (-O2 as the kernel builds the core, no sanitizers, DPDK $(pkg-config --modversion libdpdk 2>/dev/null || echo '?'))"
host_ccache
cmake -S "$here/cxxcore" -B "$out" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTUNGRO_SANITIZE=OFF -DTUNGRO_BENCH=ON \
  "${HOST_CMAKE_CACHE[@]}" >"$out.cmake.log" 2>&1 \
  || { tail -20 "$out.cmake.log" >&2; die "bench: cmake failed"; }
cmake --build "$out" -j"$(nproc)" --target bench_gro >"$out.build.log" 2>&1 || { tail -30 "$out.build.log" >&2; die "bench: build failed"; }

log "bench: outputs, tungro vs DPDK librte_gro, packet by packet"
"$out/bench_gro" --check || die "bench: an engine's GRO packets differ from the expected ones"
if [ "${1:-}" = "--check" ]; then
  exit 0
fi

# Repetitions in random order: on a shared machine (a VM whose speed drifts over seconds) consecutive runs of one
# engine would each see another part of the drift (2026-12-06, 30 reps in order: tungro 8 flows 16.9 to 27.1 ns).
log "bench: wall clock (Google Benchmark, 10 repetitions interleaved at random; a shared machine: compare within one run)"
"$out/bench_gro" --benchmark_min_time=0.05 --benchmark_repetitions=10 --benchmark_enable_random_interleaving=true \
  --benchmark_report_aggregates_only=true \
  --benchmark_out="$out/bench.json" --benchmark_out_format=json "$@" >"$out/bench.txt" 2>&1 \
  || { cat "$out/bench.txt" >&2; die "bench: Google Benchmark failed"; }
# Keep the medians of the repetitions for the table.
python3 - "$out/bench.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["benchmarks"] = [dict(b, name=b["run_name"].replace("/manual_time", ""))
                   for b in d["benchmarks"] if b.get("aggregate_name") == "median"]
json.dump(d, open(sys.argv[1], "w"))
PY

log "bench: instructions (valgrind --tool=callgrind, 20 trains per scenario and engine)"
rm -rf "$out/callgrind" && mkdir -p "$out/callgrind"
valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file="$out/callgrind/cg.out.%p" \
  "$out/bench_gro" --callgrind=20 >"$out/callgrind.log" 2>&1 || { tail -20 "$out/callgrind.log" >&2; die "bench: callgrind run failed"; }
python3 "$here/scripts/bench-table.py" "$out/bench.json" "$out/callgrind"
