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

lane_x86_64() {
  "$here/scripts/kunit.sh" x86_64 &&
    TUNGRO_VARIANT=debug "$here/scripts/kunit.sh" x86_64 &&
    "$here/scripts/guest.sh" x86_64 test "$mib" &&
    TUNGRO_KERNEL=debian TUNGRO_CYCLES="$cycles" "$here/scripts/guest.sh" x86_64 test "$mib" &&
    "$here/scripts/guest.sh" x86_64 conform 0
}

lane_m68k() {
  "$here/scripts/kunit.sh" m68k &&
    "$here/scripts/guest.sh" m68k test "$mib" &&
    "$here/scripts/guest.sh" m68k conform 0 &&
    TUNGRO_KERNEL=debian-6.1 TUNGRO_CYCLES="$cycles" "$here/scripts/guest.sh" x86_64 test "$mib"
}

if [ "${TUNGRO_SERIAL:-0}" = 1 ]; then
  lane_x86_64 && lane_m68k
  exit
fi

mkdir -p "$here/build"
mlog="$here/build/test-lane-m68k.log"
start=$SECONDS
log "QEMU steps in two lanes: x86_64 here, m68k and Debian 6.1 beside it (output: $mlog, printed at the end)"
lane_m68k >"$mlog" 2>&1 &
mpid=$!
lane_x86_64
xrc=$?
log "x86_64 lane $([ $xrc = 0 ] && echo passed || echo FAILED) after $((SECONDS - start)) s; waiting for the m68k lane"
wait "$mpid"
mrc=$?
log "m68k lane $([ $mrc = 0 ] && echo passed || echo FAILED) after $((SECONDS - start)) s; its output:"
cat "$mlog" >&2
[ $xrc = 0 ] || die "the x86_64 lane failed (output above the m68k lane's)"
[ $mrc = 0 ] || die "the m68k lane failed (output just above)"
log "QEMU steps: both lanes passed in $((SECONDS - start)) s"
