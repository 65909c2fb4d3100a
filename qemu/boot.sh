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
# KCSAN ends every report in check_panic_on_warn("KCSAN"): on the kcsan variant (TUNGRO_VARIANT=kcsan) the first
# data race anywhere in the kernel would panic the guest, so panic_on_warn stays off there. A WARN still fails the
# run (judge.sh finds its "cut here" line in console.log), and the agent judges the KCSAN reports (kreports.c:
# tungro's fail the run, the others are listed).
pow=1
[ "${TUNGRO_VARIANT:-}" != kcsan ] || pow=0
cmdline="panic_on_warn=$pow oops=panic panic=-1 log_buf_len=8M tungro.deadline=$(( timeout_s - margin )) $extra"

# Two NICs on one QEMU hub and nothing else: guest traffic never leaves QEMU. Their receive rings hold 1024 buffers,
# not 256: a frame that finds the ring empty waits in QEMU's queue for the NIC, and QEMU 7.2's net/queue.c hands
# the next frame to the NIC directly once the guest has refilled the ring, ahead of the waiting ones. That
# reordering, QEMU's and not the guest's, sets the TCP checks' baseline: with 256 the kernel's GRO alone measured 43
# to 128 out-of-order arrivals in the engine comparison's windows of a run (up to 300 a second), with 1024 1 to 41
# (2026-12-07, README's engine loop). Rarer, not gone: a ring still runs dry while the receiving vCPU stalls.
rxq=rx_queue_size=1024
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
    args=("${common[@]}" -M pc,dump-guest-core=off -smp 2,sockets=2,cores=1,threads=1 -m 768M -append "console=ttyS0 $cmdline"
      -device virtio-net-pci,netdev=n0,$rxq -device virtio-net-pci,netdev=n1,$rxq
      -device virtio-serial-pci,id=vser -device virtserialport,bus=vser.0,chardev=results,name=tungro.results) ;;
  m68k)
    # virt machine: one 68040, virtio-mmio transports, goldfish tty on the first serial port
    qemu=qemu-system-m68k
    args=("${common[@]}" -M virt,dump-guest-core=off -m 512M -append "console=ttyGF0 $cmdline"
      -device virtio-net-device,netdev=n0,$rxq -device virtio-net-device,netdev=n1,$rxq
      -device virtio-serial-device,id=vser -device virtserialport,bus=vser.0,chardev=results,name=tungro.results) ;;
  *) die "unknown arch '$arch' (x86_64, m68k)" ;;
esac
command -v "$qemu" >/dev/null || die "$qemu not installed"
# TUNGRO_ICOUNT=1 (scripts/kunit.sh): the virtual clock advances 1 ns per guest instruction (-icount shift=0) and
# never jumps ahead while the guest idles (sleep=off), so the guest's ktime reads instructions executed: the
# KUnit bench's "ns" become guest instructions, the same in every run whatever the host's load. It makes TCG
# single-threaded (both vCPUs on one host thread).
case "${TUNGRO_ICOUNT:-0}" in
  0) ;;
  1) args+=(-icount shift=0,sleep=off) ;;
  *) die "TUNGRO_ICOUNT must be 0 or 1, got '$TUNGRO_ICOUNT'" ;;
esac

# TUNGRO_PROFILE=FILE (scripts/guest-profile.sh): the TCG plugin qemu/profile/tb-count.c, built there, counts each
# translation block's guest instructions into FILE at exit.
if [ -n "${TUNGRO_PROFILE:-}" ]; then
  [ -f "${TUNGRO_PROFILE_PLUGIN:-}" ] || die "TUNGRO_PROFILE needs TUNGRO_PROFILE_PLUGIN, the built tb-count.so"
  args+=(-plugin "$TUNGRO_PROFILE_PLUGIN,out=$TUNGRO_PROFILE")
fi

echo "boot.sh: $arch: $qemu, timeout ${timeout_s}s, cmdline: $cmdline" >&2
start=$SECONDS
# shellcheck source=qemu/judge.sh
. "$(dirname "$0")/judge.sh"
# the agent's lines show as they arrive. A run that ends in the kernel's own boot, before its agent starts (so
# before tungro is loaded), is booted once more, saying so: Debian's 6.1 kernel hung twice at 2.8 s of boot under
# TCG on 2026-12-04, beside make test's host steps (soft lockups in text patching, a TCG limitation), and QEMU
# itself crashed in the PCI probe on 2026-12-02 and 2026-12-06 (judge.sh). The first run's console and core stay.
for attempt in 1 2; do
  qemu_run_judged "$timeout_s" "$outdir/qemu.log" "$results" "$console" "$qemu" "${args[@]}"
  if [ "$QEMU_BEFORE_AGENT" != 1 ] || [ $attempt = 2 ]; then break; fi
  echo "boot.sh: $arch: $QEMU_REASON; booting again (once)" >&2
  cp "$console" "$console.before-agent"
  [ ! -e "$outdir/core" ] || mv "$outdir/core" "$outdir/core.before-agent"
done
elapsed=$(( SECONDS - start ))
reason=$QEMU_REASON
ran_on=$(grep -m1 -o 'arch=[^ ]* kernel=[^ ]*' "$results" || echo 'arch=? kernel=?')
if [ -z "$reason" ]; then
  echo "boot.sh: $arch guest passed in ${elapsed}s ($ran_on)" >&2
  exit 0
fi
echo "boot.sh: $arch guest FAILED after ${elapsed}s ($ran_on): $reason" >&2
echo "---- last 40 lines of $console ----" >&2
tail -n 40 "$console" >&2 || true
exit 1
