#!/usr/bin/env bash
# make fuzz's skb-shape part: TRAINS random trains of the KUnit suite tungro_skb_fuzz on the KASAN (debug) x86_64
# kernel, split into GUESTS guests that run side by side (KUnit runs its suites on one CPU, so one guest leaves
# the other host core idle). The suite seeds batch b of 500 trains with fuzz_seed + b; guest g is given the seed
# of its first batch, so the guests together run exactly the batches, and seeds, of one guest running TRAINS.
# usage: scripts/skb-fuzz.sh TRAINS [GUESTS]   (GUESTS default: the host's cores, at most 4)
# TUNGRO_FUZZ_SEED: the first batch's seed (default the module's, 20241201).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/lib.sh"
trains=${1:?usage: scripts/skb-fuzz.sh TRAINS [GUESTS]}
ncpu=$(nproc)
guests=${2:-$((ncpu > 4 ? 4 : ncpu))}
case "$trains" in ''|*[!0-9]*|0) die "TRAINS must be a whole number above 0, got '$trains'" ;; esac
case "$guests" in ''|*[!0-9]*|0) die "GUESTS must be a whole number above 0, got '$guests'" ;; esac
batch=500   # kunit/skb_fuzz_kunit.c's TGF_BATCH
seed=${TUNGRO_FUZZ_SEED:-20241201}
batches=$(( (trains + batch - 1) / batch ))
(( guests <= batches )) || guests=$batches
export TUNGRO_VARIANT=debug
# the debug kernel (built once, cached) and the module before the guests, not by each guest's kunit.sh at once
"$here/scripts/build-module.sh" x86_64 >/dev/null
log "skb-shape fuzzer: $trains trains (seeds $seed..$((seed + batches - 1))) on the KASAN kernel in $guests guests"
start=$SECONDS
pids=() logs=() want=()
first=0
for g in $(seq 1 "$guests"); do
  n=$(( batches / guests + (g <= batches % guests ? 1 : 0) ))
  t=$(( n * batch ))
  # the last batch of all may be short
  (( first + n < batches )) || t=$(( trains - first * batch ))
  logf="$here/build/x86_64-debug/skb-fuzz-$g.log"
  mkdir -p "$(dirname "$logf")"
  TUNGRO_FUZZ_TRAINS=$t TUNGRO_FUZZ_SEED=$((seed + first)) TUNGRO_KUNIT_TAG=fuzz$g \
    "$here/scripts/kunit.sh" x86_64 tungro_skb_fuzz >"$logf" 2>&1 &
  pids+=($!) logs+=("$logf") want+=("$t")
  log "guest $g: $t trains, batches $first..$((first + n - 1)) (log: $logf)"
  first=$(( first + n ))
done
failed=0 total=0
for i in "${!pids[@]}"; do
  g=$((i + 1))
  if wait "${pids[$i]}"; then
    ktap="$here/build/x86_64-debug/kunit-fuzz$g/ktap.txt"
    got=$(fuzz_trains_run "$ktap")
    if [ "$got" -ne "${want[$i]}" ]; then
      log "guest $g: passed but ran $got trains of ${want[$i]}"
      failed=1
    fi
    total=$(( total + got ))
    log "guest $g: $(grep -m1 '^kunit ' "${logs[$i]}" || echo 'no summary')"
  else
    log "guest $g FAILED (log: ${logs[$i]}):"
    tail -n 30 "${logs[$i]}" >&2
    failed=1
  fi
done
[ "$failed" = 0 ] || die "skb-shape fuzzer failed (see above)"
log "skb-shape fuzzer: $total random trains in random skb layouts passed on the KASAN kernel in $((SECONDS - start)) s"
