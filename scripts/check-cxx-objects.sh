#!/usr/bin/env bash
# Build check of the C++ objects linked into tungro.ko: fails when one of them
#  - included a kernel header (its fixdep dependency list names a file outside cxxcore/),
#  - uses std:: (the core is freestanding: no C++ library),
#  - needs an undefined symbol outside the allow-list (nm -u): only what the compiler emits on its own,
#  - has .init_array/.ctors (global constructors) or .eh_frame (unwind tables: exceptions) sections.
# usage: scripts/check-cxx-objects.sh [NM] [OBJDUMP] [--root DIR]   (DIR: the tree that was built; default here)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
nm=${1:-nm}; objdump=${2:-objdump}
if [ "${3:-}" = --root ]; then here=$(cd "${4:?--root needs a directory}" && pwd); fi
core="$here/cxxcore"
fail=0
bad() { echo "check-cxx-objects: FAIL: $*" >&2; fail=1; }

# Compiler-emitted helpers: mem* for struct copies, arch return/indirect thunks, profiling entry, libgcc integer
# helpers the kernel provides, powerpc32's out-of-line register save/restore (crtsavres.o), the sanitizer hooks of
# the debug kernels (KASAN's shadow checks, UBSAN's handlers, KCSAN's __tsan_* accesses: the C++ objects are
# instrumented like the C ones, from the same derived flags); and the core's own tgc_*.
allow='^(memcpy|memset|memmove|memcmp|__x86_return_thunk|__x86_indirect_thunk_.*|__x86_indirect_call_thunk_.*|__fentry__|_mcount|__stack_chk_fail|__stack_chk_guard|__mulsi3|__udivsi3|__umodsi3|_restgpr_[0-9]+_x|_savegpr_[0-9]+|_restgpr0_[0-9]+|_savegpr0_[0-9]+|__asan_.*|__ubsan_handle_.*|__tsan_.*|__kcsan_.*|tgc_.*)$'

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
  undef=$("$nm" -u "$o" | awk '{print $2}' | grep -vE "$allow" || true)
  [ -z "$undef" ] || bad "$name needs symbols outside the allow-list: $(echo "$undef" | tr '\n' ' ')"
  secs=$("$objdump" -h "$o" | awk '{print $2}' | grep -E '^\.(init_array|ctors|eh_frame|fini_array|dtors|gcc_except_table)' || true)
  # KASAN and KCSAN kernels register instrumented globals or initialise their runtime from a compiler-made
  # constructor: that one is allowed; a C++ dynamic initializer (_GLOBAL__sub_I_*, __static_initialization_*)
  # never is (checked below by symbol).
  if [ -n "$secs" ] && "$nm" "$o" | grep -qE ' U (__asan_register_globals|__tsan_init)$' &&
     ! echo "$secs" | grep -qvE '^\.(init_array|fini_array)$'; then
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
