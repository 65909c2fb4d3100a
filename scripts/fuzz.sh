#!/usr/bin/env bash
# libFuzzer runs of the C++ core's three harnesses (cxxcore/fuzz/): fuzz_parse (header parsing and the other
# building blocks), fuzz_receive (the receive loop over a train), fuzz_engine (the engine with the delivery oracle),
# all under ASan + UBSan, then the line and function coverage of cxxcore/src reached by their corpora
# (llvm-profdata/llvm-cov from Debian's clang-14 toolchain).
#   scripts/fuzz.sh           make fuzz: TUNGRO_FUZZ_SECONDS (default 1800) shared by the harnesses in turn, each on
#                             both cores (two processes on one corpus) until TUNGRO_FUZZ_RUNS executions (default
#                             10,000,000) or its share of the time; then the corpora are minimised and the coverage
#                             is reported: below TUNGRO_COV_MIN % of lines (default 90) or a function never reached
#                             fails.
#   scripts/fuzz.sh --smoke   make test's smoke: TUNGRO_FUZZ_SECONDS (default 12) over the three, no coverage.
# Seeds are generated (fuzz_X_corpus --write from tests/frames.cpp, --write-pcap from ../shared/captures); the grown
# corpora stay in build/fuzz/corpus-X (the smoke's in build/fuzz-smoke) between runs. A failure names the input that caused it and how to replay it.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/lib.sh"
smoke=0
[ "${1:-}" = --smoke ] && smoke=1
budget=${TUNGRO_FUZZ_SECONDS:-$([ $smoke = 1 ] && echo 12 || echo 1800)}
runs=${TUNGRO_FUZZ_RUNS:-10000000}
cov_min=${TUNGRO_COV_MIN:-90}
harnesses=(parse receive engine)
# The smoke has its own build and corpora: it never disturbs a long run in progress, nor shrinks its corpora.
fz="$here/build/fuzz"
[ $smoke = 0 ] || fz+=-smoke

clangxx=$(command -v clang++-14 || true)
[ -n "$clangxx" ] || die "fuzz: clang++-14 not installed (apt-get install clang-14 libclang-rt-14-dev llvm-14)"
fuzz_rt="$("$clangxx" -print-resource-dir)/lib/linux/libclang_rt.fuzzer-$(uname -m).a"
[ -f "$fuzz_rt" ] || die "fuzz: clang's fuzzer runtime $fuzz_rt missing (apt-get install libclang-rt-14-dev)"

log "fuzz: building the libFuzzer targets with $clangxx ($fz)"
mkdir -p "$fz"
host_ccache
cmake -S "$here/cxxcore" -B "$fz" -DCMAKE_CXX_COMPILER="$clangxx" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DTUNGRO_SANITIZE=ON -DTUNGRO_FUZZ=ON "${HOST_CMAKE_CACHE[@]}" >"$fz.cmake.log" 2>&1 || { cat "$fz.cmake.log" >&2; die "fuzz configure failed"; }
targets=()
for h in "${harnesses[@]}"; do targets+=("fuzz_$h" "fuzz_${h}_corpus"); done
cmake --build "$fz" -j"$(nproc)" --target "${targets[@]}" >"$fz.build.log" 2>&1 \
  || { tail -40 "$fz.build.log" >&2; die "fuzz build failed"; }
rm -rf "$fz/seeds" "$fz/artifacts" && mkdir -p "$fz/artifacts"
"$fz/fuzz_engine_corpus" --write "$fz/seeds" >/dev/null
shopt -s nullglob
caps=("$here"/../shared/captures/*.pcap "$here"/../shared/captures/*.pcapng)
[ ${#caps[@]} -gt 0 ] && "$fz/fuzz_engine_corpus" --write-pcap "$fz/seeds" "${caps[@]}" >/dev/null
log "fuzz: $(ls "$fz/seeds" | wc -l) seeds (test frames and ${#caps[@]} captures)"

# ASan: a small quarantine and short allocation stacks keep the RSS and the per-allocation cost down (use-after-free
# is still caught within the quarantine); leaks are checked at the exit of each run.
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1:quarantine_size_mb=16:malloc_context_size=5
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# -max_len: a train of a few full-size segments (the record repeat count reaches 64 KiB; fuzz_parse takes one
# segment at a time: a shorter input is a shorter execution); -rss_limit_mb: a leak or a runaway input fails the
# run instead of swapping the machine.
flags=(-timeout=10 -rss_limit_mb=512 -print_final_stats=1 -artifact_prefix="$fz/artifacts/")
ncpu=$(nproc)
procs=$((ncpu < 2 ? 1 : 2))
left=$budget
summary=()
for i in "${!harnesses[@]}"; do
  h=${harnesses[$i]}
  secs=$((left / (${#harnesses[@]} - i)))
  [ "$secs" -ge 1 ] || secs=1
  mkdir -p "$fz/corpus-$h"
  log "fuzz $h: $procs processes, up to $runs executions or ${secs}s (logs: $fz/$h-*.log)"
  start=$SECONDS
  pids=()
  for p in $(seq 1 $procs); do
    ( cd "$fz" && exec "./fuzz_$h" "${flags[@]}" -max_len=$([ "$h" = parse ] && echo 2048 || echo 8192) -seed="$p$RANDOM" -runs=$(((runs + procs - 1) / procs)) \
        -max_total_time="$secs" "corpus-$h" seeds ) >"$fz/$h-$p.log" 2>&1 &
    pids+=($!)
  done
  rc=0
  for pid in "${pids[@]}"; do wait "$pid" || rc=$?; done
  took=$((SECONDS - start))
  left=$((left - took))
  if [ "$rc" -ne 0 ]; then
    for p in $(seq 1 $procs); do
      grep -aE "invariant violated|ERROR:|SUMMARY|runtime error" "$fz/$h-$p.log" >&2 || true
    done
    art=$(grep -aho "Test unit written to .*" "$fz/$h"-*.log | sed 's/Test unit written to //' | tail -1)
    die "fuzz $h found a failure (exit $rc); replay: $fz/fuzz_${h}_corpus $art"
  fi
  execs=0 rss=0
  for p in $(seq 1 $procs); do
    e=$(sed -n 's/^stat::number_of_executed_units: *//p' "$fz/$h-$p.log")
    r=$(sed -n 's/^stat::peak_rss_mb: *//p' "$fz/$h-$p.log")
    execs=$((execs + ${e:-0}))
    [ "${r:-0}" -gt "$rss" ] && rss=$r
  done
  rate=$((execs / (took > 0 ? took : 1)))
  cov=$(grep -ahoE 'cov: [0-9]+ ft: [0-9]+' "$fz/$h-1.log" | tail -1)
  summary+=("$(printf '%-8s %10d executions in %4ds: %6d/s on %d cores (%d/s per core), peak RSS %s MB, %s, corpus %d' \
    "$h" "$execs" "$took" "$rate" "$procs" $((rate / procs)) "$rss" "$cov" "$(ls "$fz/corpus-$h" | wc -l)")")
  log "fuzz $h: passed: ${summary[-1]#"$h"}"
done

if [ $smoke = 1 ]; then
  log "fuzz smoke: passed"
  exit 0
fi

# Minimised corpora (what reaches every feature found, nothing more): smaller, faster next runs and the coverage.
for h in "${harnesses[@]}"; do
  rm -rf "$fz/corpus-$h.min" && mkdir -p "$fz/corpus-$h.min"
  ( cd "$fz" && "./fuzz_$h" -merge=1 -max_len=8192 "corpus-$h.min" "corpus-$h" seeds ) >"$fz/$h-merge.log" 2>&1 \
    || { tail -20 "$fz/$h-merge.log" >&2; die "fuzz $h: corpus merge failed"; }
  rm -rf "$fz/corpus-$h" && mv "$fz/corpus-$h.min" "$fz/corpus-$h"
done

# Coverage: the corpus runners and the core with source-based coverage, no sanitizers, over every corpus.
cv="$here/build/fuzz-cov"
log "fuzz: coverage of cxxcore/src over the corpora ($cv)"
cmake -S "$here/cxxcore" -B "$cv" -DCMAKE_CXX_COMPILER="$clangxx" -DCMAKE_BUILD_TYPE=Debug -DTUNGRO_SANITIZE=OFF \
  -DTUNGRO_COVERAGE=ON >"$cv.cmake.log" 2>&1 || { cat "$cv.cmake.log" >&2; die "coverage configure failed"; }
cmake --build "$cv" -j"$(nproc)" --target fuzz_parse_corpus fuzz_receive_corpus fuzz_engine_corpus >"$cv.build.log" 2>&1 \
  || { tail -40 "$cv.build.log" >&2; die "coverage build failed"; }
rm -f "$cv"/*.profraw
for h in "${harnesses[@]}"; do
  LLVM_PROFILE_FILE="$cv/$h.profraw" "$cv/fuzz_${h}_corpus" "$fz/corpus-$h" "$fz/seeds" >/dev/null \
    || die "coverage: fuzz_${h}_corpus failed on its corpus"
done
llvm-profdata-14 merge -sparse -o "$cv/fuzz.profdata" "$cv"/*.profraw
srcs=("$here"/cxxcore/src/*.cpp "$here"/cxxcore/src/*.hpp)
llvm-cov-14 report "$cv/fuzz_engine_corpus" -object "$cv/fuzz_parse_corpus" -object "$cv/fuzz_receive_corpus" \
  -instr-profile="$cv/fuzz.profdata" "${srcs[@]}" >"$cv/report.txt"
llvm-cov-14 show "$cv/fuzz_engine_corpus" -object "$cv/fuzz_parse_corpus" -object "$cv/fuzz_receive_corpus" \
  -instr-profile="$cv/fuzz.profdata" -format=html -output-dir="$cv/html" "${srcs[@]}"
total=$(grep '^TOTAL' "$cv/report.txt")
# TOTAL columns: regions, missed, cover, functions, missed, executed, lines, missed, cover, branches, missed, cover
read -r _ _ _ _ fns fmiss _ lines lmiss lcov _ <<<"$total"
echo "fuzz results (ASan+UBSan, $(uname -m), $ncpu cores):"
printf '  %s\n' "${summary[@]}"
echo "coverage of cxxcore/src by the three corpora (llvm-cov, HTML in $cv/html):"
sed 's/^/  /' "$cv/report.txt"
echo "  lines: $((lines - lmiss)) of $lines ($lcov), functions: $((fns - fmiss)) of $fns"
[ "$fmiss" -eq 0 ] || die "fuzz coverage: $fmiss functions of cxxcore/src never reached"
awk -v c="${lcov%\%}" -v m="$cov_min" 'BEGIN { exit !(c + 0 >= m + 0) }' \
  || die "fuzz coverage: lines $lcov below $cov_min%"
log "make fuzz: passed"
