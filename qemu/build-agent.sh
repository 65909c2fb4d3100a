#!/usr/bin/env bash
# Builds the guest agent (/init of the test initramfs) as a static binary.
# usage: qemu/build-agent.sh ARCH OUTFILE     ARCH: x86_64 | m68k
set -euo pipefail
die() { printf 'build-agent.sh: error: %s\n' "$*" >&2; exit 1; }
[ $# -eq 2 ] || die "usage: qemu/build-agent.sh ARCH OUTFILE (ARCH: x86_64, m68k)"
arch=$1 out=$2
case "$arch" in
  x86_64) cc=${CC:-gcc} ;;
  m68k)   cc=${CC:-m68k-linux-gnu-gcc} ;;
  *) die "unknown arch '$arch' (x86_64, m68k)" ;;
esac
command -v "$cc" >/dev/null || die "compiler '$cc' for $arch not found"
src=$(cd "$(dirname "$0")/agent" && pwd)
mkdir -p "$(dirname "$out")"
"$cc" -static -O2 -Wall -Wextra -Werror -pthread -o "$out" "$src"/*.c -lm
