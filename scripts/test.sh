#!/usr/bin/env bash
# make test's steps in two lanes at once, and each step's time in a table at the end:
#   main lane: host tests, lint, tungro.ko for the test kernel, the DKMS build, the build matrix; then KUnit on the
#              x86_64 test kernel, the x86_64 guest checks (the x86_64 guests have 2 vCPUs) and KUnit on m68k;
#   side lane: from the start, beside the host steps: the guest checks on Debian's own 6.1 x86_64 kernel, KUnit
#              on the x86_64 debug kernel, then m68k's guest checks (one CPU);
#   last:      x86_64's wire conformance (150 s), in whichever lane gets there first. Warm, the lanes get there
#              within a minute of each other; cold, the side lane, whose kernel builds end before the main lane's
#              nine-arch build matrix (2026-12-07: 2,285 s against 2,523 s).
# On the 2-core CI machine the host steps leave a core idle much of their time (ctest, checkpatch, sparse), and
# so does every m68k boot: run one after the other, the steps took 949 s warm (2026-12-02), over make test's 12
# minutes. Two lanes of all of them still took 906 to 945 s (2026-12-03/04): the guest checks on Debian's 6.12
# kernel (the test kernels' source with Debian's config; its DKMS build stays here) and m68k's wire conformance
# moved to make test-full. What runs under emulation gates on counts and on paired comparisons within one boot, never on time, so
# a step slowed by the other lane judges the same way. Shared trees are built under locks (kernel.sh,
# build-module.sh, debian-kernel.sh). The main lane prints as it goes; the side lane's output is kept in
# build/test-lane-side.log and printed when both are done (its progress lines carry their own times).
# usage: scripts/test.sh TEST_MIB    TUNGRO_SERIAL=1: one lane after the other
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/lib.sh"
[ $# -eq 1 ] || die "usage: scripts/test.sh TEST_MIB"
mib=$1
mkdir -p "$here/build"
times="$here/build/test-times"
: >"$times.main"
: >"$times.side"

# step LANE NAME CMD...: one step of a lane, timed into build/test-times.LANE; a failure names the step in a line
# failure_summary finds.
step() {
  local lane=$1 name=$2 t0=$SECONDS rc=0
  shift 2
  "$@" || rc=$?
  printf '%s\t%s\t%d\t%s\n' "$lane" "$name" $((SECONDS - t0)) "$([ $rc = 0 ] && echo passed || echo FAILED)" \
    >>"$times.$lane"
  [ $rc = 0 ] && return 0
  echo "[tungro] lane step failed: $name"
  return 1
}

lane_main() {
  step main "host tests (ASan+UBSan), bench check, fuzz smoke" "$here/scripts/host-test.sh" &&
    step main "lint" "$here/scripts/lint.sh" &&
    step main "tungro.ko, x86_64 test kernel" "$here/scripts/build-module.sh" x86_64 &&
    step main "DKMS build, Debian 6.12 headers" "$here/scripts/dkms-test.sh" &&
    step main "build matrix, 9 arches" "$here/scripts/cross-check.sh" &&
    step main "layout negative proof" "$here/scripts/cross-check.sh" --selftest &&
    step main "KUnit, x86_64 test kernel" "$here/scripts/kunit.sh" x86_64 &&
    step main "guest checks, x86_64 test kernel" "$here/scripts/guest.sh" x86_64 test "$mib" &&
    step main "KUnit, m68k" "$here/scripts/kunit.sh" m68k &&
    last_step main
}

# last_step LANE: the wire conformance, if no other lane has claimed it (mkdir is the atomic claim); a lane that
# finds it claimed is done.
claim="$here/build/test-last-step.claim"
rm -rf "$claim"
last_step() {
  mkdir "$claim" 2>/dev/null || return 0
  step "$1" "wire conformance, x86_64" "$here/scripts/guest.sh" x86_64 conform 0
}

# Debian's 6.1 guest first, beside the host steps; m68k's guest (one vCPU) last, beside the x86_64 guest checks.
# Two 2-vCPU guests at once on 2 cores made the attach/detach loop's windows slower than the kernel's, and its
# reordering per MiB worse (engine_loop_tcp, p = 0.0001, 2026-12-04), while per second it was not: the check now
# needs both (tcpstat.c, tcp_pairs_report()).
lane_side() {
  step side "guest checks, Debian 6.1" env TUNGRO_KERNEL=debian-6.1 "$here/scripts/guest.sh" x86_64 test "$mib" &&
    step side "KUnit, x86_64 debug kernel" env TUNGRO_VARIANT=debug "$here/scripts/kunit.sh" x86_64 &&
    step side "guest checks, m68k" "$here/scripts/guest.sh" m68k test "$mib" &&
    last_step side
}

# failure_summary LANE LOG: the failed step and the failing checks of a lane, last on the output, where a CI
# log that keeps only its tail still shows them.
failure_summary() {
  echo "[tungro] ---- why the $1 lane failed (full output: $2) ----" >&2
  grep -a -E 'lane step failed|^CHECK [^ ]+ FAIL|^# error:|^boot\.sh: .*fail|\[(FAILED|CRASHED)\]|^HOSTILE .*result=differ|^CONFORM .*result=FAIL|error:' \
    "$2" | tail -n 30 >&2 || true
}

# times_table: every step that ran, its lane and its wall time
times_table() {
  log "make test, step by step (wall seconds; the lanes ran side by side):"
  cat "$times.main" "$times.side" | awk -F'\t' '{ printf "  %-5s %-52s %5d s  %s\n", $1, $2, $3, $4 }' >&2
}

start=$SECONDS
if [ "${TUNGRO_SERIAL:-0}" = 1 ]; then
  lane_main && lane_side
  rc=$?
  times_table
  exit $rc
fi

mlog="$here/build/test-lane-side.log"
xlog="$here/build/test-lane-main.log"
log "make test in two lanes: host steps and the x86_64 guest checks here, Debian 6.1, debug KUnit and m68k's guest beside them, the wire conformance in whichever lane ends first (output: $mlog, printed at the end)"
# job control while it starts: the side lane gets a process group of its own, which a failed main lane can stop
# whole (QEMU included)
set -m
lane_side >"$mlog" 2>&1 &
mpid=$!
set +m
# a failed main lane ends the other one too: its result would not change the verdict
lane_main 2>&1 | tee "$xlog"
xrc=${PIPESTATUS[0]}
if [ $xrc != 0 ]; then
  kill -TERM -- -"$mpid" 2>/dev/null
  log "main lane FAILED after $((SECONDS - start)) s; the side lane was stopped"
else
  log "main lane passed after $((SECONDS - start)) s; waiting for the side lane"
fi
wait "$mpid"
mrc=$?
[ $xrc != 0 ] || log "side lane $([ $mrc = 0 ] && echo passed || echo FAILED) after $((SECONDS - start)) s; its output:"
[ $xrc != 0 ] || cat "$mlog" >&2
times_table
[ $xrc = 0 ] || failure_summary main "$xlog"
[ $xrc != 0 ] || [ $mrc = 0 ] || failure_summary side "$mlog"
[ $xrc = 0 ] || die "the main lane failed (its failed step and checks just above)"
[ $mrc = 0 ] || die "the side lane failed (its failed step and checks just above)"
log "make test: both lanes passed in $((SECONDS - start)) s"
