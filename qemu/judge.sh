#!/usr/bin/env bash
# Sourced by qemu/boot.sh and scripts/install-test.sh: one QEMU run under timeout and its verdict.
# qemu_run_judged TIMEOUT_S QEMU_LOG RESULTS CONSOLE QEMU [ARGS...]
#   runs QEMU under `timeout -k 10` (stdin /dev/null, its own output into QEMU_LOG) while RESULTS (the guest's
#   side channel) is printed on stdout as it grows; then sets QEMU_RC (QEMU's exit status) and QEMU_REASON: why
#   the run failed (killed by the timeout, a non-zero exit, a kernel panic or warning in CONSOLE, a last line of
#   RESULTS other than "success"), or "" when it passed. A QEMU that crashes leaves a core file (without guest
#   memory when the machine has dump-guest-core=off) in QEMU_LOG's folder, named in QEMU_REASON: one warm make
#   test of 2026-12-02 had qemu-system-x86_64 die of SIGSEGV at boot, with nothing to look at afterwards.
#   QEMU_BOOT_S (default 180; the KASAN kernel reaches init at 20 s): the guest must write its first result line by
#   then, or QEMU is stopped. QEMU_BEFORE_AGENT=1 when the run ended before that first line, in the kernel's own
#   boot and so before tungro was loaded: a hang, or QEMU itself dying of a signal (2026-12-06: qemu-system-x86_64
#   7.2 died of SIGSEGV in memory_region_access_valid() during the guest's PCI probe, two TCG vCPUs, host busy).
#   boot.sh boots such a run once more, saying so.
qemu_run_judged() {
  local timeout_s=$1 qlog=$2 results=$3 console=$4 qpid tpid wpid last
  shift 4
  QEMU_RC=0 QEMU_REASON=
  (ulimit -c unlimited 2>/dev/null; cd "$(dirname "$qlog")" && exec timeout --foreground -k 10 "$timeout_s" "$@") \
    </dev/null >"$qlog" 2>&1 &
  qpid=$!
  tail -n +1 -F --pid="$qpid" "$results" 2>/dev/null &
  tpid=$!
  # A guest whose agent has not written its first line after boot_s seconds hung in the kernel's own boot,
  # before the agent loads tungro: stopped there, not at the run's timeout.
  local boot_s=${QEMU_BOOT_S:-180} marker
  marker="$(dirname "$qlog")/boot-hung"
  rm -f "$marker"
  (
    for ((i = 0; i < boot_s; i++)); do
      sleep 1
      kill -0 "$qpid" 2>/dev/null && [ ! -s "$results" ] || exit 0
    done
    : >"$marker"
    kill "$qpid" 2>/dev/null
  ) &
  wpid=$!
  wait "$qpid" || QEMU_RC=$?
  wait "$tpid" 2>/dev/null || true
  wait "$wpid" 2>/dev/null || true
  last=$(tail -n 1 "$results" 2>/dev/null || true)
  QEMU_BEFORE_AGENT=0
  if [ -e "$marker" ]; then
    QEMU_BEFORE_AGENT=1
    QEMU_REASON="the guest did not reach its agent within ${boot_s}s: the kernel's boot hung before tungro was loaded (console: $(tail -n 1 "$console" 2>/dev/null | cut -c1-120))"
  elif (( QEMU_RC == 124 || QEMU_RC == 137 )); then
    QEMU_REASON="QEMU killed by timeout after ${timeout_s}s"
  elif (( QEMU_RC != 0 )); then
    QEMU_REASON="QEMU exited with status $QEMU_RC: $(tail -n 5 "$qlog" | tr '\n' ' ')"
    if (( QEMU_RC > 128 )); then
      local core
      core=$(ls -t "$(dirname "$qlog")"/core* 2>/dev/null | head -n 1)
      QEMU_REASON+=" (signal $((QEMU_RC - 128)); core: ${core:-none written})"
      if [ ! -s "$results" ]; then
        QEMU_BEFORE_AGENT=1
        QEMU_REASON="QEMU crashed in the kernel's boot, before the agent loaded tungro: $QEMU_REASON"
      fi
    fi
  fi
  if grep -q -e 'Kernel panic' -e '------------\[ cut here \]' "$console" 2>/dev/null; then
    QEMU_REASON="${QEMU_REASON:+$QEMU_REASON; }kernel panic/warning in console.log: $(grep -m1 -e 'Kernel panic' "$console" || true)"
  fi
  if [ -z "$QEMU_REASON" ] && [ "$last" != success ]; then
    if [ -z "$last" ]; then QEMU_REASON="no result lines (the guest's reporter did not start or its port is missing)"
    elif [[ $last == failure:* ]]; then QEMU_REASON="the guest reported ${last}"
    else QEMU_REASON="the guest did not finish (last line: $last)"; fi
  fi
}
