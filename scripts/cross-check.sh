#!/usr/bin/env bash
# Cross-arch build matrix: builds tungro.ko (warnings are errors) against a modules_prepare'd 6.12 tree of every
# arch Debian has a cross compiler for, runs the C++ object checks with that arch's binutils, and prints one table
# (arch, word size, endianness, alignment of u32/u64, result). Prepared trees are cached like the test kernels.
#
# usage: scripts/cross-check.sh [--selftest]
#   --selftest  build x86_64 and m68k with TUNGRO_LAYOUT_SELFTEST=1 (the 2024 m68k layout mistake on purpose): exits 0 only if
#               the m68k build fails with a layout assert that names the tungro_gro_cb field, and x86_64 passes.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/lib.sh"
selftest=0
case "${1:-}" in "") ;; --selftest) selftest=1 ;; *) die "usage: scripts/cross-check.sh [--selftest]" ;; esac

# arch | kernel ARCH | cross prefix | Debian package of the C++ cross compiler | extra config (space-separated)
matrix=(
  "x86_64|x86||g++|CONFIG_64BIT=y"
  "i386|i386|i686-linux-gnu-|g++-i686-linux-gnu|CONFIG_64BIT=n"
  "m68k|m68k|m68k-linux-gnu-|g++-m68k-linux-gnu|CONFIG_MMU=y"
  "arm|arm|arm-linux-gnueabihf-|g++-arm-linux-gnueabihf|CONFIG_MMU=y"
  "arm64|arm64|aarch64-linux-gnu-|g++-aarch64-linux-gnu|"
  "powerpc|powerpc|powerpc-linux-gnu-|g++-powerpc-linux-gnu|CONFIG_PPC32=y"
  "riscv64|riscv|riscv64-linux-gnu-|g++-riscv64-linux-gnu|CONFIG_64BIT=y"
  "s390x|s390|s390x-linux-gnu-|g++-s390x-linux-gnu|"
  "mips|mips|mips-linux-gnu-|g++-mips-linux-gnu|CONFIG_CPU_BIG_ENDIAN=y"
)

src=$(kernel_src)
base="$(kernel_cache)/prepared"
work="$here/build/cross"
mkdir -p "$base" "$work"
frag="$here/qemu/config/module-build.config"

# Prints "bits endian align_u32 align_u64" for a cross compiler, read from the object it compiles.
target_facts() {
  local cc=$1 tmp; tmp=$(mktemp -d)
  printf 'char a32[__alignof__(unsigned int)];\nchar a64[__alignof__(unsigned long long)];\nchar ptr[sizeof(void *)];\n' \
    >"$tmp/f.c"
  "$cc" -c -fno-common -o "$tmp/f.o" "$tmp/f.c"
  local macros endian=little; macros=$("$cc" -dM -E - </dev/null)
  [[ "$macros" == *"__BYTE_ORDER__ __ORDER_BIG_ENDIAN__"* ]] && endian=big
  local nm=${cc%gcc}nm
  declare -A sz
  while read -r _ size _ name; do sz[$name]=$((16#$size)); done < <("$nm" -S "$tmp/f.o" | grep -E ' (a32|a64|ptr)$')
  rm -rf "$tmp"
  echo "$(( ${sz[ptr]} * 8 )) $endian ${sz[a32]} ${sz[a64]}"
}

prepare_tree() {
  local arch=$1 karch=$2 cross=$3 extra=$4
  local key; key=$(printf '%s\n%s\n' "$(cat "$frag")" "$extra" | sha256sum | cut -c1-12)
  local out="$base/$arch-$key"
  if [ ! -f "$out/.tungro-prepared" ]; then
    mkdir -p "$out"
    local k=(make -C "$src" O="$out" ARCH="$karch" CROSS_COMPILE="$cross" -j"$(nproc)")
    { "${k[@]}" tinyconfig &&
      { [ -z "$extra" ] || echo "$extra" | tr ' ' '\n' >"$out/arch.config"; touch "$out/arch.config"; } &&
      (cd "$out" && ARCH=$karch CROSS_COMPILE=$cross "$src/scripts/kconfig/merge_config.sh" -m -O "$out" .config "$frag" "$out/arch.config") &&
      "${k[@]}" olddefconfig; } >"$out/config.log" 2>&1 || { echo "config failed: $(tail -3 "$out/config.log")" >&2; return 1; }
    for opt in CONFIG_MODULES=y CONFIG_NET_IPIP=y CONFIG_IPV6_SIT=y; do
      grep -qx "$opt" "$out/.config" || { echo "$opt missing after olddefconfig" >&2; return 1; }
    done
    run_with_progress "cross-check $arch: modules_prepare" "$out/prepare.log" "${k[@]}" modules_prepare >&2 || return 1
    # 32-bit powerpc links every module with crtsavres.o, which modules_prepare does not build in 6.12.
    if [ "$karch" = powerpc ]; then "${k[@]}" arch/powerpc/lib/crtsavres.o >>"$out/prepare.log" 2>&1 || return 1; fi
    touch "$out/.tungro-prepared"
  fi
  echo "$out"
}

extra_make=()
[ $selftest = 1 ] && extra_make+=(TUNGRO_LAYOUT_SELFTEST=1)
rows=() passed=0 failed=0 missing=0 selftest_ok=1 m68k_msg=""
for entry in "${matrix[@]}"; do
  IFS='|' read -r arch karch cross pkg extra <<<"$entry"
  # the proof's verdict reads x86_64 and m68k only; building the other seven again took 2 of make test's minutes
  [ $selftest = 0 ] || [ "$arch" = x86_64 ] || [ "$arch" = m68k ] || continue
  if ! command -v "${cross}g++" >/dev/null || ! command -v "${cross}gcc" >/dev/null; then
    rows+=("$arch|-|-|-|-|NO COMPILER (Debian package $pkg not installed)")
    missing=$((missing + 1)); continue
  fi
  read -r bits endian a32 a64 < <(target_facts "${cross}gcc")
  result="pass"
  # stderr kept for the failure's last line and shown as it comes: a cold cache prepares nine trees, minutes
  # each, and their progress lines are all that shows meanwhile
  if ! tree=$(prepare_tree "$arch" "$karch" "$cross" "$extra" 2> >(tee "$work/$arch.prepare.err" >&2)); then
    result="FAIL (modules_prepare: $(tail -1 "$work/$arch.prepare.err"))"
  else
    # Each arch builds in its own copy of the sources: Kbuild writes objects next to them.
    copy="$work/$arch/src"
    copy_module_sources "$here" "$copy"
    log="$work/$arch.build.log"
    kbuild_ccache "$cross"
    # A prepared tree has no Module.symvers: modpost may only warn about the kernel symbols tungro uses.
    if make -C "$tree" M="$copy" ARCH="$karch" CROSS_COMPILE="$cross" "${KBUILD_CCACHE[@]}" -j"$(nproc)" KBUILD_MODPOST_WARN=1 \
         "${extra_make[@]}" modules >"$log" 2>&1; then
      if grep -q "valid for C/ObjC but not for C++" "$log"; then
        result="FAIL (C-only flag reached g++)"
      elif ! "$here/scripts/check-cxx-objects.sh" "${cross}nm" "${cross}objdump" --root "$copy" >"$work/$arch.check.log" 2>&1; then
        result="FAIL ($(grep -m1 FAIL "$work/$arch.check.log"))"
      fi
    else
      # A BUILD_BUG_ON_MSG shows as "...declared with attribute error: <message>": keep the message.
      msg=$(sed -n 's/.*attribute error: //p' "$log" | head -1)
      [ -n "$msg" ] || msg=$(grep -m1 -E 'error|Error' "$log" | cut -c1-120 || true)
      result="FAIL ($msg)"
    fi
  fi
  case "$result" in pass) passed=$((passed + 1)) ;; *) failed=$((failed + 1)) ;; esac
  [ "$arch" = m68k ] && m68k_msg=$result
  [ "$arch" = x86_64 ] && [ "$result" != pass ] && [ $selftest = 1 ] && selftest_ok=0
  rows+=("$arch|$bits-bit|$endian|$a32|$a64|$result")
done

title="cross-arch build matrix (Linux $(kernel_version), tungro.ko, -Werror)"
[ $selftest = 1 ] && title="$title with TUNGRO_LAYOUT_SELFTEST=1"
echo "$title"
printf '%-8s %-7s %-7s %-9s %-9s %s\n' arch word endian align_u32 align_u64 result
for r in "${rows[@]}"; do IFS='|' read -r a w e x y res <<<"$r"; printf '%-8s %-7s %-7s %-9s %-9s %s\n' "$a" "$w" "$e" "$x" "$y" "$res"; done
echo "passed $passed, failed $failed, no compiler $missing"

if [ $selftest = 1 ]; then
  if [ $selftest_ok = 1 ] && [[ "$m68k_msg" == FAIL*tungro_gro_cb* ]]; then
    echo "negative proof: the 2024 layout mistake passes on x86_64 and fails on m68k with: ${m68k_msg#FAIL (}"
    exit 0
  fi
  echo "negative proof FAILED: m68k result was '$m68k_msg' (expected a layout assert naming tungro_gro_cb)" >&2
  exit 1
fi
[ "$passed" -ge 7 ] && [ "$failed" -eq 0 ] || die "cross-check: $passed arches passed (need >= 7), $failed failed"
