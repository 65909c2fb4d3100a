#!/usr/bin/env bash
# Negative proof of the engine loop's reordering gate (check engine_loop_tcp): builds tungro.ko with
# TUNGRO_PROOF_LATE_GRO, the detach-order bug that gate was made for (a detached device gets its GRO back only
# after tungro's rx_handler is gone, so the frames between go up one by one), boots the x86_64 test kernel with
# the engine checks only (tungro.only=engine) and passes only if engine_loop_tcp fails there. Its LOOPTCP and
# LOOPPHASES lines are printed: the excess a cycle, the p values, where the out-of-order arrivals fell.
# Reported in make test-full (a guest boot and a module build of its own, about 90 s).
# usage: scripts/gate-proof.sh
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/lib.sh"
[ $# -eq 0 ] || die "usage: scripts/gate-proof.sh"

# The x86_64 test kernel as make test boots it: the sanitizer variants report that check without gating it.
unset TUNGRO_VARIANT TUNGRO_KERNEL
export TUNGRO_PROOF=late-gro TUNGRO_ONLY=engine
out="$here/build/$(build_tag x86_64)/guest-test"
results="$out/results.txt" proof_log="$here/build/gate-proof.log"
mkdir -p "$here/build"
rm -f "$results"   # a verdict from this boot only
log "gate proof: the engine checks on a tungro.ko built with the detach-order bug (TUNGRO_PROOF_LATE_GRO)"
if "$here/scripts/guest.sh" x86_64 test 0 >"$proof_log" 2>&1; then
  die "gate proof FAILED: every engine check passed with the detach-order bug (log: $proof_log)"
fi
[ -f "$results" ] || die "gate proof: no results at $results (log: $proof_log)"
grep -E '^(LOOPTCP|LOOPPHASES) ' "$results" || true
# The gate's own verdict: a loop that failed for too few window pairs proves nothing about it.
if ! grep -q '^CHECK engine_loop_tcp FAIL .*CYCLES WORSE' "$results"; then
  grep '^CHECK .* FAIL' "$results" >&2 || true
  die "gate proof FAILED: the guest failed, but not on engine_loop_tcp's gate (log: $proof_log)"
fi
failed=$(grep -c '^CHECK .* FAIL' "$results")
log "gate proof passed: engine_loop_tcp found the cycles worse with the detach-order bug ($failed failed check(s) in all)"
