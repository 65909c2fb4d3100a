#!/usr/bin/env bash
# Runs the guest agent in QEMU on a tungro test kernel with tungro.ko in its initramfs.
# usage: scripts/guest.sh ARCH MODE MIB
#   MODE  demo (kernel GRO vs tungro table) | test (guest checks of make test) | conform (wire conformance) |
#         race (make test-kcsan: test's checks that run tungro on both CPUs at once) |
#         soak (make soak: K06 and the engine's attach/detach loop, TUNGRO_CYCLES and TUNGRO_LOOP_CYCLES, default 1000)
#   MIB   MiB per TCP stream (0: the mode's default); demo: MiB per engine and stream scenario
# TUNGRO_KERNEL=debian (6.12) or debian-6.1 boots Debian's own amd64 kernel instead (x86_64; demo and test),
# with the modules the agent needs in the initramfs; output in build/x86_64-debian[-6.1]/.
# TUNGRO_ONLY=GROUP (test): one group of checks only (streams, k06, ip6, engine, irq, unbind, k01, faults, k07,
# trace; the agent refuses another name), for a quicker turn while working on it.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/lib.sh"
[ $# -eq 3 ] || die "usage: scripts/guest.sh ARCH MODE MIB"
arch=$1 mode=$2 mib=$3
case "$mode" in demo|test|conform|race|soak) ;; *) die "unknown mode '$mode' (demo, test, conform, race, soak)" ;; esac
case "$mib" in ''|*[!0-9]*) die "MIB must be a whole number, got '$mib'" ;; esac
if [ "$(tungro_kernel)" != tungro ] && [ "$mode" = conform ]; then
  die "conform runs on the test kernels only (its peer suite is built from their source)"
fi
kdir=$(kernel_tree "$arch")
kimg=$(kernel_image "$arch" "$kdir")
[ -f "$kimg" ] || die "no kernel image at $kimg"
mods=$("$here/scripts/build-module.sh" "$arch")
ko="$mods/tungro.ko"

out="$here/build/$(build_tag "$arch")/guest-$mode"
mkdir -p "$out"
"$here/qemu/build-agent.sh" "$arch" "$out/agent"
# What the agent needs from the kernel before it starts: virtio-net NICs, the virtio-serial results port,
# AF_PACKET (post-GRO counts), IPv6 (SIT's inner family), IPIP, SIT, FOU over IPv4 and IPv6, ip6 tunnels (ip4ip6, ip6ip6).
# Modules only where they are not built in (Debian's kernel), loaded by the agent first.
specs=$(guest_modules "$kdir" "$out/deps" virtio_pci virtio_net virtio_console af_packet ipv6 ipip sit fou fou6 ip6_tunnel)
extra=()
[ -z "$specs" ] || mapfile -t extra <<<"$specs"
cmdline="tungro.mode=$mode tungro.mib=$mib"
# The demo reports softirq time per wire segment only where the kernel measures IRQ time (not tick samples).
if grep -qx 'CONFIG_IRQ_TIME_ACCOUNTING=y' "$kdir/.config" 2>/dev/null; then cmdline+=" tungro.irqtime=1"; fi
# The demo's CPU figures need a TSC clocksource and IRQ time accounting (lib.sh, guest_tsc_args).
if [ "$mode" = demo ]; then
  tsc=$(guest_tsc_args "$arch")
  [ -z "$tsc" ] || cmdline+=" $tsc"
fi
if [ "$mode" = test ] || [ "$mode" = race ]; then
  # K06: insmod/rmmod cycles under traffic, 50 in make test (issue 10; 18 s on x86_64, 20 s on m68k, 41 to 47 s
  # on Debian's kernels beside the host steps); make soak runs 1000, make test-full 200 on Debian's kernels. The
  # lockdep kernels (debug: KASAN; kcsan) take 5 to 20 s a cycle under K06's traffic, most of it the kernel's own
  # unload (8 RCU grace periods with lockdep, README's K06): 20 there, at the agent's slower pace.
  case "${TUNGRO_VARIANT:-}" in debug|kcsan) cycles=${TUNGRO_CYCLES:-20} ;; *) cycles=${TUNGRO_CYCLES:-50} ;; esac
fi
if [ "$mode" = soak ]; then
  # make soak: 1000 insmod/rmmod cycles (K06) and 1000 attach/detach cycles, each in 20 windows followed by one of
  # the kernel's GRO alone as long
  cycles=${TUNGRO_CYCLES:-1000}
  loop_cycles=${TUNGRO_LOOP_CYCLES:-1000}
  case "$loop_cycles" in ''|*[!0-9]*) die "TUNGRO_LOOP_CYCLES must be a whole number, got '$loop_cycles'" ;; esac
  (( loop_cycles % 20 == 0 && loop_cycles > 0 )) || die "TUNGRO_LOOP_CYCLES must be a multiple of 20, got $loop_cycles"
  cmdline+=" tungro.loop_cycles=$loop_cycles"
fi
if [ "$mode" = test ] || [ "$mode" = race ] || [ "$mode" = soak ]; then
  case "$cycles" in ''|*[!0-9]*) die "TUNGRO_CYCLES must be a whole number, got '$cycles'" ;; esac
  cmdline+=" tungro.cycles=$cycles"
fi
if [ "$mode" = test ]; then
  [ -z "${TUNGRO_ONLY:-}" ] || cmdline+=" tungro.only=$TUNGRO_ONLY"
  # K07: the stacking test fixture, and tungro_kunit.ko as a second installer of tungro's offloads. Both are
  # built only where the kernel has KUnit (the test kernels); on Debian's kernel the agent says K07 is skipped.
  for m in tungro_stacker.ko tungro_kunit.ko; do
    if [ -f "$mods/$m" ]; then
      extra+=("$mods/$m")
    elif [ "$(tungro_kernel)" = tungro ]; then
      die "$m was not built for $arch (CONFIG_KUNIT off in the test kernel?)"
    fi
  done
fi
if [ "$mode" = conform ]; then
  # The peer suite runs the kernel's own gro.c selftest in the guest. A failed build still boots: the agent
  # finds the reason instead of the binary and reports failing peer lines that name it.
  gro="$here/build/$arch/gro"
  mkdir -p "$(dirname "$gro")"
  if "$here/qemu/build-gro.sh" "$arch" "$(kernel_src)" "$gro" 2>"$gro.build.log"; then
    extra+=("$gro:/bin/gro")
    # a patched build says so in the guest, and every peer line carries it
    if [ -f "$gro.patched" ]; then extra+=("$gro.patched:/bin/gro.patched"); fi
  else
    log "gro.c did not build for $arch (log: $gro.build.log)"
    rm -f "$gro"
    { printf 'gro.c build for %s failed: ' "$arch"; grep -m1 -e 'error' "$gro.build.log" || tail -n 1 "$gro.build.log"; } \
      | tr -s ' \t' ' ' >"$gro.build-error"
    extra+=("$gro.build-error:/bin/gro.build-error")
  fi
fi
"$here/qemu/mkinitramfs.sh" "$out/initramfs.cpio" "$out/agent" "$ko" "${extra[@]}"
# Timeout scales with the traffic: TCG moves a few hundred Mbit/s; boots take ~10 s (x86_64) to ~60 s (m68k).
# conform also runs gro.c's peer suite twice, whose sender sleeps ~30 s per engine by itself (24 s of it direct,
# 6 s over ip6ip6).
timeout_s=$(( 300 + mib * 20 ))
[ "$mode" = conform ] && timeout_s=600
case "$mode" in test|race) timeout_s=$(( timeout_s + cycles * 2 )) ;; esac
# A hang guard, not a speed gate: Debian 6.1's 50-cycle run, 223 s beside the other lane of make test, reached
# its 432 s deadline in the engine checks with three other guests and two builds on the 2-core host; the other
# checks cost as much as on the test kernel, so no test run gets less time than its 200-cycle run.
[ "$mode" = test ] && [ "$timeout_s" -lt $(( 300 + mib * 20 + 400 )) ] && timeout_s=$(( 300 + mib * 20 + 400 ))
# soak: a K06 cycle with its window without tungro took 2.7 to 4.3 s of wall time on a loaded host (the first full
# soak, 1000 cycles in 2790 s of guest time, outlived 3 s a cycle); attach/detach cycles 0.2-0.4 s with theirs
[ "$mode" = soak ] && timeout_s=$(( timeout_s + cycles * 5 + loop_cycles ))
# The sanitizer kernels run everything several times slower: the debug one's (KASAN, lockdep, UBSAN) first guest
# run with 2 vCPUs hit the deadline at 432 s in the engine checks; kcsan (KCSAN, lockdep) likewise. Their K06 cycles
# take up to 20 s each (x3 below).
case "${TUNGRO_VARIANT:-}" in
  debug|kcsan) [ "$mode" = soak ] || timeout_s=$(( timeout_s + cycles * 5 )); timeout_s=$(( timeout_s * 3 )) ;;
esac
log "guest $arch ($mode, $mib MiB per stream): booting $(basename "$kimg") with tungro.ko, timeout ${timeout_s}s"
start=$SECONDS
rc=0
"$here/qemu/boot.sh" "$arch" "$kimg" "$out/initramfs.cpio" "$out" "$timeout_s" "$cmdline" || rc=$?
if [ "$mode" = demo ]; then
  # the demo's table as text and as a chart, next to each other (the chart from the RESULT lines)
  grep -v -e '^RESULT ' -e '^CHECK ' "$out/results.txt" >"$out/demo.txt" || true
  "$here/scripts/demo-chart.sh" "$out/results.txt" "$out/demo.png" || log "demo chart not drawn (see above)"
  log "demo table: $out/demo.txt, chart: $out/demo.png"
fi
[ "$rc" -eq 0 ] || exit "$rc"
log "guest $arch ($mode): passed in $((SECONDS - start)) s"
