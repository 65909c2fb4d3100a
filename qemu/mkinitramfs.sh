#!/usr/bin/env bash
# Packs the guest initramfs: /init = the agent, extra files under /lib/modules/ or at a chosen path.
# usage: qemu/mkinitramfs.sh OUT.cpio AGENT [FILE[:DEST]...]
#   FILE alone goes to /lib/modules/<basename> (tungro.ko); FILE:DEST puts it at DEST, an absolute path in the
#   archive (FILE must then not contain ':'). Executable files keep mode 0755, others get 0644.
# newc cpio built from a temp dir with cpio -R 0:0: no root, no device nodes (the agent mounts devtmpfs).
set -euo pipefail
die() { printf 'mkinitramfs.sh: error: %s\n' "$*" >&2; exit 1; }
[ $# -ge 2 ] || die "usage: qemu/mkinitramfs.sh OUT.cpio AGENT [FILE[:DEST]...]"
out=$1 agent=$2; shift 2
if [ ! -f "$agent" ] || [ ! -x "$agent" ]; then die "agent '$agent' is not an executable file"; fi
srcs=() dests=()
for spec in "$@"; do
  if [[ $spec == *:* ]]; then
    src=${spec%%:*} dest=${spec#*:}
    [[ $dest == /* && $dest != */ && $dest != *..* ]] || die "destination '$dest' of '$src' must be an absolute file path"
  else
    src=$spec dest=/lib/modules/$(basename "$spec")
  fi
  [ -f "$src" ] || die "extra file '$src' not found"
  srcs+=("$src") dests+=("$dest")
done
command -v cpio >/dev/null || die "cpio not installed"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"/{proc,sys,dev,tmp,lib/modules}
install -m 0755 "$agent" "$tmp/init"
for i in "${!srcs[@]}"; do
  mode=0644
  [ -x "${srcs[i]}" ] && mode=0755
  install -D -m "$mode" "${srcs[i]}" "$tmp${dests[i]}"
done
mkdir -p "$(dirname "$out")"
out_abs=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
# sorted names for a reproducible archive
(cd "$tmp" && find . -mindepth 1 | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0 >"$out_abs")
