#!/usr/bin/env bash
# Runs tungro's KUnit suites in QEMU on ARCH and parses their KTAP output with the kernel's own
# tools/testing/kunit/kunit.py parse. Fails on any failed, crashed or missing suite.
# usage: scripts/kunit.sh ARCH [SUITE]   (SUITE: only that one, through kunit.filter_glob)
# TUNGRO_FUZZ_TRAINS=N: random trains of the skb-shape fuzzer (tungro_skb_fuzz; default the module's 10,000).
# TUNGRO_ICOUNT=1: QEMU counts instructions (qemu/boot.sh), so tungro_bench reports guest instructions per segment.
# TUNGRO_PROFILE=FILE: QEMU's TCG plugin counts them per block into FILE (qemu/boot.sh; scripts/guest-profile.sh).
# TUNGRO_FUZZ_SEED=N: its seed (batch b uses N + b; default the module's). TUNGRO_KUNIT_TAG=T: output in
# build/ARCH[-VARIANT]/kunit-T, so that runs side by side keep apart (scripts/skb-fuzz.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/lib.sh"
arch=${1:?usage: scripts/kunit.sh ARCH [SUITE]}
[ "$(tungro_kernel)" = tungro ] || die "KUnit runs on the test kernels only (Debian's has no CONFIG_KUNIT)"
suites=(tungro_ipip tungro_sit tungro_flush tungro_tcp tungro_complete tungro_malformed tungro_layout tungro_hardening
	tungro_engine tungro_ip6 tungro_options tungro_udp tungro_skb_fuzz tungro_bench)
extra="tungro.mode=kunit"
# tungro_bench times with ktime: a TSC clocksource, not jiffies (lib.sh, guest_tsc_args). Under TUNGRO_ICOUNT=1
# (qemu/boot.sh) the TSC counts guest instructions, one per virtual ns: a 1 GHz TSC (the kernel's own PIT
# calibration, left to run, finds 999.998 MHz there).
unit=ns
if [ "${TUNGRO_ICOUNT:-0}" = 1 ]; then
  tsc=""
  [ "$arch" != x86_64 ] || tsc="tsc_early_khz=1000000 tsc=reliable"
  unit=instructions
else
  tsc=$(guest_tsc_args "$arch")
fi
[ -z "$tsc" ] || extra+=" $tsc"
if [ -n "${2:-}" ]; then
  suites=("$2")
  extra+=" kunit.filter_glob=$2"
fi
# The skb-shape fuzzer's 10,000 trains take 20-60 s on the x86_64 and m68k test kernels (emulated, busy host);
# under KASAN 500 take 30-70 s of guest time, so make test's KASAN run keeps 500 (make fuzz runs 100,000 there).
# KCSAN sees nothing in it (one thread, no race): 500 there too. tungro_bench's timing means nothing under a
# sanitizer: those kernels run 3 reps of it, for what it delivers.
case "${TUNGRO_VARIANT:-}" in
  debug|kcsan) : "${TUNGRO_FUZZ_TRAINS:=500}"; extra+=" tungro.bench_reps=3" ;;
esac
if [ -n "${TUNGRO_FUZZ_TRAINS:-}" ]; then extra+=" tungro.fuzz_trains=$TUNGRO_FUZZ_TRAINS"; fi
if [ -n "${TUNGRO_FUZZ_SEED:-}" ]; then extra+=" tungro.fuzz_seed=$TUNGRO_FUZZ_SEED"; fi
# TUNGRO_KUNIT_ARGS: more module parameters (scripts/guest-profile.sh: tungro.bench_train=, tungro.bench_paths=).
if [ -n "${TUNGRO_KUNIT_ARGS:-}" ]; then extra+=" $TUNGRO_KUNIT_ARGS"; fi
# A hang guard, not a speed gate: the KASAN kernel's suites and kmemleak scan took 700 s on a busy 2-core host.
timeout_s=$((900 + ${TUNGRO_FUZZ_TRAINS:-0} / 10))   # up to 100 ms a train (KASAN, emulation)

kdir=$("$here/scripts/kernel.sh" "$arch")
kimg=$(kernel_image "$arch" "$kdir")
mods=$("$here/scripts/build-module.sh" "$arch")
[ -f "$mods/tungro_kunit.ko" ] || die "tungro_kunit.ko was not built for $arch (CONFIG_KUNIT off in the test kernel?)"
out="$here/build/$arch${TUNGRO_VARIANT:+-$TUNGRO_VARIANT}/kunit${TUNGRO_KUNIT_TAG:+-$TUNGRO_KUNIT_TAG}"
mkdir -p "$out"
"$here/qemu/build-agent.sh" "$arch" "$out/agent"
"$here/qemu/mkinitramfs.sh" "$out/initramfs.cpio" "$out/agent" "$mods/tungro_kunit.ko"
log "kunit $arch: booting with tungro_kunit.ko ($extra)"
start=$SECONDS
"$here/qemu/boot.sh" "$arch" "$kimg" "$out/initramfs.cpio" "$out" "$timeout_s" "$extra" >"$out/boot.out" 2>&1 || {
  grep -v '^ *\(ok\|#\|KTAP\|1\.\.\)' "$out/boot.out" | tail -30 >&2; die "kunit $arch: guest run failed"; }

# The module's own KTAP block, as the agent copied it from /dev/kmsg (the boot's empty block is not in it).
sed -n '/^KTAP-BEGIN$/,/^KTAP-END$/p' "$out/results.txt" | sed '1d;$d' >"$out/ktap.txt"
[ -s "$out/ktap.txt" ] || die "kunit $arch: no KTAP output in $out/results.txt"
src=$(kernel_src)
set +e
python3 "$src/tools/testing/kunit/kunit.py" parse "$out/ktap.txt" >"$out/parse.txt" 2>&1
prc=$?
set -e
sed 's/\x1b\[[0-9;]*m//g' "$out/parse.txt" >"$out/parse.plain.txt"
ran_on=$(grep -m1 -o 'arch=[^ ]* kernel=[^ ]*' "$out/results.txt" || echo "arch=$arch kernel=?")
missing=()
for s in "${suites[@]}"; do grep -qE "=+ \[PASSED\] $s =+" "$out/parse.plain.txt" || missing+=("$s"); done
summary=$(grep -m1 'Testing complete' "$out/parse.plain.txt" || echo "no summary")
fuzzed=$(fuzz_trains_run "$out/ktap.txt")
[ "$fuzzed" -eq 0 ] || log "kunit $arch: skb-shape fuzzer: $fuzzed random trains in random skb layouts"
echo "kunit $ran_on: $(grep -c '^# Subtest\|^    # Subtest' "$out/ktap.txt" || true) suites, ${summary#*Testing complete. } ($((SECONDS - start)) s)"
# issue 12's kernel-side figures (tungro_bench): reported, never a gate
if grep -q 'BENCH train=' "$out/ktap.txt"; then
  python3 "$here/scripts/kunit-bench.py" --unit "$unit" "$out/ktap.txt" \
    "$ran_on${TUNGRO_VARIANT:+ variant=$TUNGRO_VARIANT}" \
    | tee "$out/bench.txt" | grep -v '^KBENCH'
fi
if [ $prc -ne 0 ] || [ ${#missing[@]} -gt 0 ]; then
  grep -E '\[(FAILED|CRASHED)\]|Expected|ASSERTION|EXPECTATION|# .*: (FAIL|fail)' "$out/parse.plain.txt" | head -40 >&2 || true
  die "kunit $arch: kunit.py parse exit $prc; suites not passed: ${missing[*]:-none}"
fi
