#!/usr/bin/env bash
# Build check of the C++ objects linked into tungro.ko: fails when one of them
#  - included a kernel header (its fixdep dependency list names a file outside cxxcore/),
#  - uses std:: (the core is freestanding: no C++ library),
#  - needs an undefined symbol outside the allow-list (nm -u): only what the compiler emits on its own,
#  - has .init_array/.ctors (global constructors) or .eh_frame (unwind tables: exceptions) sections.
# The sanitizers of a debug kernel are learned per object from its own compile line (the .cmd file): only an
# object compiled with -fsanitize=kernel-address (KASAN), -fsanitize=thread (KCSAN) or a UBSAN check may call that
# runtime and carry that runtime's constructor; a C++ dynamic initializer is refused whatever the kernel.
# usage: scripts/check-cxx-objects.sh [NM] [OBJDUMP] [--root DIR]   (DIR: the tree that was built; default here)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
nm=${1:-nm}; objdump=${2:-objdump}
if [ "${3:-}" = --root ]; then here=$(cd "${4:?--root needs a directory}" && pwd); fi
core="$here/cxxcore"
fail=0
bad() { echo "check-cxx-objects: FAIL: $*" >&2; fail=1; }

# Compiler-emitted helpers: mem* for struct copies, arch return/indirect thunks, profiling entry, libgcc integer
# helpers the kernel provides, powerpc32's out-of-line register save/restore (crtsavres.o); and the core's own tgc_*.
allow='memcpy|memset|memmove|memcmp|__x86_return_thunk|__x86_indirect_thunk_.*|__x86_indirect_call_thunk_.*|__fentry__|_mcount|__stack_chk_fail|__stack_chk_guard|__mulsi3|__udivsi3|__umodsi3|_restgpr_[0-9]+_x|_savegpr_[0-9]+|_restgpr0_[0-9]+|_savegpr0_[0-9]+|tgc_.*'

# The sanitizers of the debug kernels, one row each: the flag that turns it on in an object's compile line (the
# kernel's CFLAGS_KASAN, CFLAGS_KCSAN, CFLAGS_UBSAN, reaching g++ through the derived $(c_flags) as they reach the
# C objects), the runtime symbols the instrumentation calls, and the runtime call of the constructor it adds
# (none: UBSAN adds none). KASAN's registers the object's globals (.init_array, unregistered from .fini_array);
# KCSAN's -fsanitize=thread calls __tsan_init from a priority constructor (.init_array.00099).
sanitizers=(
  '-fsanitize=kernel-address __asan_.* __asan_register_globals'
  '-fsanitize=thread __tsan_.* __tsan_init'
  '-fsanitize=(alignment|bounds|bounds-strict|array-bounds|local-bounds|shift|integer-divide-by-zero|unreachable|bool|enum|signed-integer-overflow) __ubsan_handle_.*'
)

objs=("$core"/src/*.o)
[ -e "${objs[0]}" ] || { echo "check-cxx-objects: no C++ objects under $core/src (build first)" >&2; exit 1; }
for o in "${objs[@]}"; do
  name=${o#"$here"/}
  cmd="$(dirname "$o")/.$(basename "$o").cmd"
  [ -f "$cmd" ] || bad "$name: no Kbuild .cmd file (not built by the Kbuild C++ rule?)"
  if [ -f "$cmd" ]; then
    # Dependency lines are indented paths; every one must be inside cxxcore/.
    outside=$(sed -n '/^deps_/,/^$/p' "$cmd" | grep -oE '/[^ \\]+' | grep -v "^$core/" || true)
    [ -z "$outside" ] || bad "$name includes headers outside cxxcore/: $(echo "$outside" | head -3 | tr '\n' ' ')"
  fi
  # this object's sanitizers: their runtime symbols join the allow-list, their constructor calls are noted
  flags=""
  [ ! -f "$cmd" ] || flags=$(sed -n 1p "$cmd")
  obj_allow=$allow san_ctor=""
  for row in "${sanitizers[@]}"; do
    read -r flag syms ctor <<<"$row"
    echo "$flags" | grep -qE -- "(^| )$flag( |$)" || continue
    obj_allow+="|$syms"
    [ -z "$ctor" ] || san_ctor+="${san_ctor:+|}$ctor"
  done
  undef=$("$nm" -u "$o" | awk '{print $2}' | grep -vxE "($obj_allow)" || true)
  [ -z "$undef" ] || bad "$name needs symbols outside the allow-list: $(echo "$undef" | tr '\n' ' ')"
  secs=$("$objdump" -h "$o" | awk '{print $2}' | grep -E '^\.(init_array|ctors|eh_frame|fini_array|dtors|gcc_except_table)' || true)
  # A sanitizer's constructor (.init_array, its priority form .init_array.NNNNN, and KASAN's .fini_array) is
  # allowed in an object compiled with that sanitizer and calling its runtime; a C++ dynamic initializer
  # (_GLOBAL__sub_I_*, __static_initialization_*) never is (checked below by symbol, whatever the sections).
  if [ -n "$secs" ] && [ -n "$san_ctor" ] && "$nm" "$o" | grep -qE " U ($san_ctor)\$" &&
     ! echo "$secs" | grep -qvE '^\.(init_array|fini_array)(\.[0-9]+)?$'; then
    secs=""
  fi
  cxx_init=$("$nm" "$o" | grep -E '_GLOBAL__sub_I_|__static_initialization' || true)
  [ -z "$cxx_init" ] || bad "$name has C++ global constructors: $cxx_init"
  [ -z "$secs" ] || bad "$name has forbidden sections: $(echo "$secs" | tr '\n' ' ')"
done
stdref=$(grep -rnE '\bstd::' "$core/src" "$core/include" || true)
[ -z "$stdref" ] || bad "core sources use std:: : $(echo "$stdref" | head -3)"
kinc=$(grep -rnE '#[[:space:]]*include[[:space:]]*[<"](linux|asm|net|uapi|generated)/' "$core/src" "$core/include" || true)
[ -z "$kinc" ] || bad "core sources include kernel headers: $(echo "$kinc" | head -3)"
[ "$fail" -eq 0 ] && echo "check-cxx-objects: ${#objs[@]} C++ objects clean (no kernel headers, no std::, allowed symbols only, no ctors/eh_frame)"
exit "$fail"
