#!/usr/bin/env bash
# Boots a tungro test kernel in QEMU (TCG) with the agent initramfs and reports the agent's verdict.
# usage: qemu/boot.sh ARCH KERNEL INITRAMFS OUTDIR TIMEOUT_S "EXTRA_CMDLINE"
#   ARCH x86_64 (bzImage) | m68k (vmlinux; -M virt, untested so far)
#   OUTDIR gets console.log (serial console) and results.txt (virtio-serial port tungro.results)
# Exit 0 only if the last line of results.txt is "success".
# QEMU options are comma lists and binary names contain dashes, not arithmetic:
# shellcheck disable=SC2054,SC2100
set -euo pipefail
die() { printf 'boot.sh: error: %s\n' "$*" >&2; exit 2; }
[ $# -eq 6 ] || die 'usage: qemu/boot.sh ARCH KERNEL INITRAMFS OUTDIR TIMEOUT_S "EXTRA_CMDLINE"'
arch=$1 kernel=$2 initramfs=$3 outdir=$4 timeout_s=$5 extra=$6
[ -f "$kernel" ] || die "no kernel image '$kernel'"
[ -f "$initramfs" ] || die "no initramfs '$initramfs'"
case "$timeout_s" in ''|*[!0-9]*) die "TIMEOUT_S must be whole seconds, got '$timeout_s'" ;; esac
(( timeout_s >= 30 )) || die "TIMEOUT_S must be at least 30"

mkdir -p "$outdir"
console=$outdir/console.log results=$outdir/results.txt
rm -f "$console" "$results"
: >"$results"

# The agent gives up a little before QEMU is killed, so a hang still ends with its own failure line.
margin=$(( timeout_s / 10 > 15 ? timeout_s / 10 : 15 ))
cmdline="panic_on_warn=1 oops=panic panic=-1 tungro.deadline=$(( timeout_s - margin )) $extra"

# Two NICs on one QEMU hub and nothing else: guest traffic never leaves QEMU.
common=(-nodefaults -display none -no-reboot -accel tcg
  -kernel "$kernel" -initrd "$initramfs"
  -serial "file:$console"
  -netdev hubport,id=n0,hubid=0 -netdev hubport,id=n1,hubid=0
  -chardev "file,id=results,path=$results")
case "$arch" in
  x86_64)
    qemu=qemu-system-x86_64
    # Two CPUs as two sockets: QEMU 7.2 makes "-smp 2" one socket of two cores, SeaBIOS's MP table lists
    # the first logical CPU of each package only, and the test kernel (tinyconfig: no ACPI, so no MADT)
    # then brings up one CPU.
    args=("${common[@]}" -M pc -smp 2,sockets=2,cores=1,threads=1 -m 768M -append "console=ttyS0 $cmdline"
      -device virtio-net-pci,netdev=n0 -device virtio-net-pci,netdev=n1
      -device virtio-serial-pci,id=vser -device virtserialport,bus=vser.0,chardev=results,name=tungro.results) ;;
  m68k)
    # virt machine: one 68040, virtio-mmio transports, goldfish tty on the first serial port
    qemu=qemu-system-m68k
    args=("${common[@]}" -M virt -m 512M -append "console=ttyGF0 $cmdline"
      -device virtio-net-device,netdev=n0 -device virtio-net-device,netdev=n1
      -device virtio-serial-device,id=vser -device virtserialport,bus=vser.0,chardev=results,name=tungro.results) ;;
  *) die "unknown arch '$arch' (x86_64, m68k)" ;;
esac
command -v "$qemu" >/dev/null || die "$qemu not installed"

echo "boot.sh: $arch: $qemu, timeout ${timeout_s}s, cmdline: $cmdline" >&2
start=$SECONDS
timeout --foreground -k 10 "$timeout_s" "$qemu" "${args[@]}" </dev/null >"$outdir/qemu.log" 2>&1 &
qpid=$!
# show the agent's lines as they arrive
tail -n +1 -F --pid="$qpid" "$results" 2>/dev/null &
tpid=$!
rc=0
wait "$qpid" || rc=$?
wait "$tpid" 2>/dev/null || true
elapsed=$(( SECONDS - start ))

last=$(tail -n 1 "$results" 2>/dev/null || true)
reason=
if (( rc == 124 || rc == 137 )); then
  reason="QEMU killed by timeout after ${timeout_s}s"
elif (( rc != 0 )); then
  reason="QEMU exited with status $rc: $(tail -n 5 "$outdir/qemu.log" | tr '\n' ' ')"
fi
if grep -q -e 'Kernel panic' -e '------------\[ cut here \]' "$console" 2>/dev/null; then
  reason="${reason:+$reason; }kernel panic/warning in console.log: $(grep -m1 -e 'Kernel panic' "$console" || true)"
fi
if [ -z "$reason" ] && [ "$last" != success ]; then
  if [ -z "$last" ]; then reason="no result lines (agent did not start or results port missing)"
  elif [[ $last == failure:* ]]; then reason="agent reported ${last}"
  else reason="agent did not finish (last line: $last)"; fi
fi
ran_on=$(grep -m1 -o 'arch=[^ ]* kernel=[^ ]*' "$results" || echo 'arch=? kernel=?')
if [ -z "$reason" ]; then
  echo "boot.sh: $arch guest passed in ${elapsed}s ($ran_on)" >&2
  exit 0
fi
echo "boot.sh: $arch guest FAILED after ${elapsed}s ($ran_on): $reason" >&2
echo "---- last 40 lines of $console ----" >&2
tail -n 40 "$console" >&2 || true
exit 1
