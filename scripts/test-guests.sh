#!/usr/bin/env bash
# The QEMU steps of make test in two lanes at once, one per arch:
#   x86_64: KUnit on the test kernel and on the debug kernel, guest checks on the test kernel and on Debian's
#           6.12, wire conformance (the guests have 2 vCPUs);
#   m68k:   KUnit, guest checks, wire conformance (the guests have 1 CPU), then the x86_64 guest checks on Debian
#           12's own 6.1 kernel (the shorter lane takes it).
# On a 2-core machine the serial run left a core idle through every m68k boot (285 s of the 894 s warm run).
# What runs under emulation gates on counts and on paired comparisons within one boot, never on time, so a lane
# slowed by the other judges the same way. The x86_64 lane prints as it goes; the m68k lane's output is kept in
# build/test-lane-m68k.log and printed when both are done (its progress lines carry their own times).
# usage: scripts/test-guests.sh TEST_MIB DISTRO_CYCLES    TUNGRO_SERIAL=1: one lane after the other
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/lib.sh"
[ $# -eq 2 ] || die "usage: scripts/test-guests.sh TEST_MIB DISTRO_CYCLES"
mib=$1 cycles=$2

# step NAME CMD...: one step of a lane; a failure names the step in a line failure_summary finds.
step() {
  local name=$1
  shift
  "$@" && return 0
  echo "[tungro] lane step failed: $name"
  return 1
}

lane_x86_64() {
  step "KUnit, x86_64 test kernel" "$here/scripts/kunit.sh" x86_64 &&
    step "KUnit, x86_64 debug kernel" env TUNGRO_VARIANT=debug "$here/scripts/kunit.sh" x86_64 &&
    step "guest checks, x86_64 test kernel" "$here/scripts/guest.sh" x86_64 test "$mib" &&
    step "guest checks, Debian 6.12" env TUNGRO_KERNEL=debian TUNGRO_CYCLES="$cycles" \
      "$here/scripts/guest.sh" x86_64 test "$mib" &&
    step "wire conformance, x86_64" "$here/scripts/guest.sh" x86_64 conform 0
}

lane_m68k() {
  step "KUnit, m68k" "$here/scripts/kunit.sh" m68k &&
    step "guest checks, m68k" "$here/scripts/guest.sh" m68k test "$mib" &&
    step "wire conformance, m68k" "$here/scripts/guest.sh" m68k conform 0 &&
    step "guest checks, Debian 6.1" env TUNGRO_KERNEL=debian-6.1 TUNGRO_CYCLES="$cycles" \
      "$here/scripts/guest.sh" x86_64 test "$mib"
}

# failure_summary LANE LOG: the failed step and the failing checks of a lane, last on the output, where a CI
# log that keeps only its tail still shows them.
failure_summary() {
  echo "[tungro] ---- why the $1 lane failed (full output: $2) ----" >&2
  grep -a -E 'lane step failed|^CHECK [^ ]+ FAIL|^# error:|^boot\.sh: .*fail|\[(FAILED|CRASHED)\]|^HOSTILE .*result=differ|^CONFORM .*result=FAIL|error:' \
    "$2" | tail -n 30 >&2 || true
}

if [ "${TUNGRO_SERIAL:-0}" = 1 ]; then
  lane_x86_64 && lane_m68k
  exit
fi

mkdir -p "$here/build"
mlog="$here/build/test-lane-m68k.log"
start=$SECONDS
log "QEMU steps in two lanes: x86_64 here, m68k and Debian 6.1 beside it (output: $mlog, printed at the end)"
xlog="$here/build/test-lane-x86_64.log"
lane_m68k >"$mlog" 2>&1 &
mpid=$!
lane_x86_64 2>&1 | tee "$xlog"
xrc=${PIPESTATUS[0]}
log "x86_64 lane $([ $xrc = 0 ] && echo passed || echo FAILED) after $((SECONDS - start)) s; waiting for the m68k lane"
wait "$mpid"
mrc=$?
log "m68k lane $([ $mrc = 0 ] && echo passed || echo FAILED) after $((SECONDS - start)) s; its output:"
cat "$mlog" >&2
[ $xrc = 0 ] || failure_summary x86_64 "$xlog"
[ $mrc = 0 ] || failure_summary m68k "$mlog"
[ $xrc = 0 ] || die "the x86_64 lane failed (its failed step and checks just above; output above the m68k lane's)"
[ $mrc = 0 ] || die "the m68k lane failed (its failed step and checks just above)"
log "QEMU steps: both lanes passed in $((SECONDS - start)) s"
