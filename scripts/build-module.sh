#!/usr/bin/env bash
# Builds tungro.ko (and the KUnit module) for ARCH against its cached test kernel, in build/ARCH/src, with the
# C++ object checks; prints the directory holding the .ko files. Used by the guest runs, so a run never depends
# on (or leaves) objects of another arch in the checkout.
# usage: scripts/build-module.sh ARCH
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/lib.sh"
arch=${1:?usage: scripts/build-module.sh ARCH}
kdir=$("$here/scripts/kernel.sh" "$arch")
dest="$here/build/$arch${TUNGRO_VARIANT:+-$TUNGRO_VARIANT}/src"
copy_module_sources "$here" "$dest"
cross=$(cross_of "$arch")
logf="$here/build/$arch${TUNGRO_VARIANT:+-$TUNGRO_VARIANT}/module.log"
if ! make -C "$kdir" M="$dest" ARCH="$(karch_of "$arch")" CROSS_COMPILE="$cross" -j"$(nproc)" modules >"$logf" 2>&1; then
  tail -30 "$logf" >&2; die "tungro.ko build for $arch failed"
fi
! grep -q "valid for C/ObjC but not for C++" "$logf" || die "a kernel C-only flag reached g++ ($arch)"
"$here/scripts/check-cxx-objects.sh" "${cross}nm" "${cross}objdump" --root "$dest" >&2
echo "$dest"
