#!/usr/bin/env bash
# Builds the kernel's own GRO selftest program (tools/testing/selftests/net/gro.c) statically for the guest.
# usage: qemu/build-gro.sh ARCH KERNEL_SRC OUTFILE     ARCH: x86_64 | m68k
# Compiler output goes to stderr; the caller decides what a failed build means.
set -euo pipefail
die() { printf 'build-gro.sh: error: %s\n' "$*" >&2; exit 1; }
[ $# -eq 3 ] || die "usage: qemu/build-gro.sh ARCH KERNEL_SRC OUTFILE (ARCH: x86_64, m68k)"
arch=$1 ksrc=$2 out=$3
case "$arch" in
  x86_64) cc=${CC:-gcc} ;;
  m68k)   cc=${CC:-m68k-linux-gnu-gcc} ;;
  *) die "unknown arch '$arch' (x86_64, m68k)" ;;
esac
src=$ksrc/tools/testing/selftests/net/gro.c
[ -f "$src" ] || die "no $src in the kernel source"
command -v "$cc" >/dev/null || die "compiler '$cc' for $arch not found"
mkdir -p "$(dirname "$out")"
rm -f "$out.patched"
# gro.c includes ../kselftest.h relative to itself, so it compiles in place; the toolchain's uapi headers serve.
build=$src
if [ "$arch" = m68k ]; then
  # Big-endian only: gro.c's checksum_nofold adds an odd trailing byte as the low byte of a host-order word,
  # which is right on little-endian hosts only. On m68k every odd-length segment it sends (the large test's
  # 919/899-byte remainders) carries a bad TCP checksum, GRO rightly refuses to merge it and the test fails
  # for both engines. The byte is put into the first byte of a zeroed word instead, correct on either order.
  pat='sum += ((char *)data)[len - 1];'
  rep='{ uint16_t w = 0; memcpy(&w, (char *)data + len - 1, 1); sum += w; } /* tungro: big-endian odd byte */'
  n=$(grep -cF "$pat" "$src" || true)
  [ "$n" = 1 ] || die "gro.c: expected the odd-byte checksum line once, found ${n:-0}: review the big-endian patch"
  text=$(<"$src")
  build=$(dirname "$out")/gro-be.c
  printf '%s\n' "${text/"$pat"/"$rep"}" >"$build"
  echo "big-endian odd-byte TCP checksum fix in checksum_nofold (gro.c adds the byte unshifted)" >"$out.patched"
fi
"$cc" -static -O2 -Wall -I "$(dirname "$src")" -o "$out.tmp" "$build"
mv -f "$out.tmp" "$out"
