#!/usr/bin/env bash
# Builds tungro.ko (and the KUnit module) for ARCH against its cached test kernel, in build/ARCH/src, with the
# C++ object checks; prints the directory holding the .ko files. Used by the guest runs, so a run never depends
# on (or leaves) objects of another arch in the checkout.
# TUNGRO_KERNEL=debian (6.12) or debian-6.1 builds against Debian's own kernel instead (scripts/debian-kernel.sh),
# in build/x86_64-debian[-6.1]/src; TUNGRO_VARIANT=debug against the debug test kernel, in build/x86_64-debug/src;
# TUNGRO_PROOF=late-gro with the detach-order bug (scripts/gate-proof.sh), in build/ARCH-proof-late-gro/src.
# usage: scripts/build-module.sh ARCH
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/lib.sh"
arch=${1:?usage: scripts/build-module.sh ARCH}
kdir=$(kernel_tree "$arch")
tag=$(build_tag "$arch")
dest="$here/build/$tag/src"
# One build of a tree at a time: runs side by side (make fuzz's guests, make test's lanes) share it.
mkdir -p "$here/build/$tag"
exec 9>"$here/build/$tag/build.lock"
flock 9
copy_module_sources "$here" "$dest"
cross=$(cross_of "$arch")
KBUILD_CCACHE=()
[ "$(tungro_kernel)" != tungro ] || kbuild_ccache "$cross"
proof=()
[ "${TUNGRO_PROOF:-}" != late-gro ] || proof=(TUNGRO_PROOF_LATE_GRO=1)
logf="$here/build/$tag/module.log"
if ! make -C "$kdir" M="$dest" ARCH="$(karch_of "$arch")" CROSS_COMPILE="$cross" "${KBUILD_CCACHE[@]}" "${proof[@]}" \
     -j"$(nproc)" modules >"$logf" 2>&1; then
  tail -30 "$logf" >&2; die "tungro.ko build for $arch failed"
fi
! grep -q "valid for C/ObjC but not for C++" "$logf" || die "a kernel C-only flag reached g++ ($arch)"
"$here/scripts/check-cxx-objects.sh" "${cross}nm" "${cross}objdump" --root "$dest" >&2
# modinfo describes every parameter (KUnit and fixture modules too, where built).
"$here/scripts/check-modinfo.sh" "$dest"/*.ko >&2

# The kernel refuses a module whose vermagic names another release. UTS_RELEASE is what vermagic and
# uname say (Debian's 6.1 headers carry the upstream version, 6.1.<n>, in include/config/kernel.release).
release=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' "$kdir/include/generated/utsrelease.h")
[ -n "$release" ] || die "no UTS_RELEASE in $kdir/include/generated/utsrelease.h"
vermagic=$(modinfo -F vermagic "$dest/tungro.ko")
[ "${vermagic%% *}" = "$release" ] || die "tungro.ko vermagic '$vermagic' does not match kernel $release"
# The C++ rule derives its flags from the kernel's C flags, which suit the GCC release that built the
# kernel: say so when g++ is another one (the kernel's Makefile may name its own gcc, as Debian's does).
kcc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\(.*\)"$/\1/p' "$kdir/.config")
# The .cmd file's first line: savedcmd_<object> := [ccache] <compiler> ... (cmd_<object> before 6.3, as on 6.1)
cxx=$(sed -n '1s/^\(saved\)\{0,1\}cmd_[^ ]* := \(ccache \)\{0,1\}\([^ ]*\) .*/\3/p' "$dest/cxxcore/src/.parse.o.cmd")
[ -n "$cxx" ] || die "no compiler named in $dest/cxxcore/src/.parse.o.cmd"
cxx_version=$("$cxx" --version | head -n 1)
[ "${kcc#* }" = "${cxx_version#* }" ] || log "warning: kernel built by '$kcc', C++ objects by '$cxx_version'"
echo "$dest"
