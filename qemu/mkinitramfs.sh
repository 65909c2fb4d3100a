#!/usr/bin/env bash
# Packs the guest initramfs: /init = the agent, extra files (tungro.ko) under /lib/modules/.
# usage: qemu/mkinitramfs.sh OUT.cpio AGENT [FILES...]
# newc cpio built from a temp dir with cpio -R 0:0: no root, no device nodes (the agent mounts devtmpfs).
set -euo pipefail
die() { printf 'mkinitramfs.sh: error: %s\n' "$*" >&2; exit 1; }
[ $# -ge 2 ] || die "usage: qemu/mkinitramfs.sh OUT.cpio AGENT [FILES...]"
out=$1 agent=$2; shift 2
if [ ! -f "$agent" ] || [ ! -x "$agent" ]; then die "agent '$agent' is not an executable file"; fi
for f in "$@"; do [ -f "$f" ] || die "extra file '$f' not found"; done
command -v cpio >/dev/null || die "cpio not installed"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"/{proc,sys,dev,tmp,lib/modules}
install -m 0755 "$agent" "$tmp/init"
for f in "$@"; do install -m 0644 "$f" "$tmp/lib/modules/$(basename "$f")"; done
mkdir -p "$(dirname "$out")"
out_abs=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
# sorted names for a reproducible archive
(cd "$tmp" && find . -mindepth 1 | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0 >"$out_abs")
