#!/usr/bin/env bash
# Builds (or reuses) a tungro test kernel for one arch and prints its build directory.
#
# usage: scripts/kernel.sh ARCH
#   ARCH          x86_64 | m68k
# TUNGRO_VARIANT=debug adds qemu/config/debug.config (KASAN, kmemleak, UBSAN, lockdep); TUNGRO_VARIANT=kcsan adds
# qemu/config/kcsan.config (KCSAN, lockdep); TUNGRO_VARIANT=soak adds qemu/config/soak.config (kmemleak only, for
# make soak).
#
# Cache: ${TUNGRO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tungro}/linux-<version>/
#   src/                       the unpacked linux-source-6.12 tree (shared by all arches, kept clean: builds use O=)
#   <arch>-<config hash>/      one build per arch and fragment set; "<dir>/.tungro-built" marks a finished build
# The key is the Debian package version of linux-source-6.12 plus a hash of the config fragments, so a changed
# fragment gives a new build and an unchanged one is reused by later runs and CI on the same machine.
# Progress goes to stderr; the only stdout line is the build directory.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
arch=${1:?usage: scripts/kernel.sh ARCH}

# shellcheck source=scripts/lib.sh
. "$here/scripts/lib.sh"

case "$arch" in
  x86_64) karch=x86; cross=""; image=arch/x86/boot/bzImage ;;
  m68k)   karch=m68k; cross=m68k-linux-gnu-; image=vmlinux ;;
  *) die "unknown arch '$arch' (x86_64, m68k)" ;;
esac
frags=("$here/qemu/config/base.config" "$here/qemu/config/$arch.config")
case "${TUNGRO_VARIANT:-}" in
  "") ;;
  debug|kcsan|soak) frags+=("$here/qemu/config/$TUNGRO_VARIANT.config") ;;
  *) die "unknown TUNGRO_VARIANT '$TUNGRO_VARIANT' (debug, kcsan, soak, or unset)" ;;
esac
for f in "${frags[@]}"; do [ -f "$f" ] || die "missing config fragment $f"; done

src=$(kernel_src)
key=$(cat "${frags[@]}" | sha256sum | cut -c1-12)
out="$(kernel_cache)/$arch${TUNGRO_VARIANT:+-$TUNGRO_VARIANT}-$key"
done_mark="$out/.tungro-built"
if [ -f "$done_mark" ]; then echo "$out"; exit 0; fi

mkdir -p "$out"
lock="$out/.lock"
exec 9>"$lock"
flock 9
if [ -f "$done_mark" ]; then echo "$out"; exit 0; fi

kmake=(make -C "$src" O="$out" ARCH="$karch" CROSS_COMPILE="$cross" -j"$(nproc)")
log "kernel $arch: configuring (tinyconfig + ${frags[*]##*/})"
"${kmake[@]}" tinyconfig >"$out/config.log" 2>&1 || { tail -20 "$out/config.log" >&2; die "tinyconfig failed"; }
(cd "$out" && ARCH=$karch CROSS_COMPILE=$cross "$src/scripts/kconfig/merge_config.sh" -m -O "$out" .config "${frags[@]}") \
  >>"$out/config.log" 2>&1 || { tail -20 "$out/config.log" >&2; die "merge_config.sh failed"; }
"${kmake[@]}" olddefconfig >>"$out/config.log" 2>&1 || die "olddefconfig failed"
# A requested option that did not survive olddefconfig is a broken fragment, not a warning to scroll past.
bad=""
for f in "${frags[@]}"; do
  while IFS= read -r line; do
    case "$line" in CONFIG_*=n|"#"*|"") continue ;; esac
    grep -qxF "$line" "$out/.config" || bad+=" $line"
  done <"$f"
done
[ -z "$bad" ] || die "kernel $arch: fragment options not in the final .config:$bad"

run_with_progress "kernel $arch: building $(kernel_version) ($image)" "$out/build.log" "${kmake[@]}" all
[ -f "$out/$image" ] || die "kernel $arch: $image missing after build"
touch "$done_mark"
echo "$out"
