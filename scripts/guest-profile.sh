#!/usr/bin/env bash
# Where a tungro_bench path spends its guest instructions, function by function, against another path on the same
# train: two KUnit boots of the test kernel that run only that train (tungro.bench_train) and one path each
# (tungro.bench_paths), each under QEMU's TCG plugin qemu/profile/tb-count.c (built here), then
# scripts/guest-profile.py names the counted blocks and prints instructions per wire segment per function.
# usage: scripts/guest-profile.sh ARCH TRAIN [BASE_PATH OTHER_PATH [REPS]]
#   TRAIN: a tungro_bench train (plain4-1x64, ipip-1x64, sit-1x64, ipip-16x16); paths: kernel, offloads, engine,
#   gro_off (default kernel offloads); REPS: runs of the path per boot (default 100).
# A development tool, reported, never a gate: not part of make test.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/lib.sh"
usage="usage: scripts/guest-profile.sh ARCH TRAIN [BASE_PATH OTHER_PATH [REPS]]"
arch=${1:?$usage}
train=${2:?$usage}
base=${3:-kernel}
other=${4:-offloads}
reps=${5:-100}
case "$train" in plain4-1x64|ipip-1x64|sit-1x64) segs=64 ;; ipip-16x16) segs=256 ;;
  *) die "unknown train '$train' (plain4-1x64, ipip-1x64, sit-1x64, ipip-16x16)" ;; esac
mask_of() {
  case "$1" in kernel) echo 1 ;; offloads) echo 2 ;; engine) echo 4 ;; gro_off) echo 8 ;;
    *) die "unknown path '$1' (kernel, offloads, engine, gro_off)" ;; esac
}
[[ "$reps" =~ ^[0-9]+$ ]] && [ "$reps" -ge 1 ] && [ "$reps" -le 1000 ] || die "REPS must be 1..1000, got '$reps'"
command -v gcc >/dev/null || die "gcc not installed (make setup)"

out="$here/build/$arch/profile"
mkdir -p "$out"
gcc -O2 -shared -fPIC -Wall -Wextra -Werror -o "$out/tb-count.so" "$here/qemu/profile/tb-count.c" -lpthread
for path in "$base" "$other"; do
  log "guest profile $arch: $train, path $path, $reps reps, under the tb-count plugin"
  # the counts go beside that boot's ktap.txt (kunit.sh makes the directory before it boots)
  TUNGRO_PROFILE="$here/build/$arch/kunit-profile-$path/tb-count.txt" TUNGRO_PROFILE_PLUGIN="$out/tb-count.so" TUNGRO_KUNIT_TAG="profile-$path" \
    TUNGRO_KUNIT_ARGS="tungro.bench_train=$train tungro.bench_paths=$(mask_of "$path") tungro.bench_reps=$reps" \
    "$here/scripts/kunit.sh" "$arch" tungro_bench >"$out/kunit-$path.log" 2>&1 \
    || { tail -20 "$out/kunit-$path.log" >&2; die "guest profile: the $path boot failed"; }
done
kdir=$("$here/scripts/kernel.sh" "$arch")
mods=$("$here/scripts/build-module.sh" "$arch")
[ "$arch" != m68k ] || export OBJDUMP=m68k-linux-gnu-objdump
python3 "$here/scripts/guest-profile.py" --map "$kdir/System.map" --ko "$mods/tungro_kunit.ko" \
  --segs $((segs * reps)) "$here/build/$arch/kunit-profile-$base:$base" "$here/build/$arch/kunit-profile-$other:$other" \
  | tee "$out/$train-$base-$other.txt"
