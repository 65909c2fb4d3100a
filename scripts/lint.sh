#!/usr/bin/env bash
# make lint: the checks netdev reviewers run on a kernel module, plus clang-tidy on the C++ core.
#  1. checkpatch.pl --strict from the unpacked 6.12 source on every C file and header that goes into a module:
#     module/ (with module/compat/), kunit/ and qemu/modules/ (if present);
#  2. pr_fmt: every kernel C file that prints defines pr_fmt before its first #include;
#  3. sparse through Kbuild (make C=2 CHECK=sparse) against the cached x86_64 test kernel, whose KUnit makes
#     the suites part of the build, and against Debian's 6.1 (module/compat/'s backports), each in a copy of
#     the sources (build/lint/NAME), as scripts/build-module.sh does;
#  4. clang-tidy-14 on cxxcore/src/*.cpp with cxxcore/.clang-tidy, compiled as the host build compiles them;
#  5. kernel-doc: the kernel's scripts/kernel-doc -none -Wall on the kernel C (malformed comments, missing
#     parameters or Return:), and every non-static function of the glue (module/*.c) carries a kernel-doc
#     comment naming it.
# Every tool runs; each prints what it found and one summary line. Exits non-zero if any tool found anything.
# usage: scripts/lint.sh
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/lib.sh"
out="$here/build/lint"
mkdir -p "$out"
start=$SECONDS
summary=() failed=()

# Prints a tool's findings with the checkout's path prefix removed, so they read as repository paths.
show() { sed "s#$here/##g"; }

# --- 1. checkpatch -------------------------------------------------------------------------------------------
# Reviewers' options: --strict adds the CHECK level netdev asks for; --no-tree drops what only makes sense
# inside a kernel tree (MAINTAINERS, the tree's compat and spelling lists); --file takes whole files, not
# patches; 100 columns is the kernel's (and tungro's) line limit. No message type is ignored for every file.
# The C++ sources are clang-tidy's (4.): checkpatch reads C, and C++ comments, namespaces and casts are not.
src=$(kernel_src)
checkpatch="$src/scripts/checkpatch.pl"
[ -f "$checkpatch" ] || die "no checkpatch.pl in $src"
cp_opts=(--strict --no-tree --file --max-line-length=100 --show-types --color=never)

# Per-file ignores, each narrow and with its reason.
cp_ignores() {
  case "$1" in
    *) ;;
  esac
}

shopt -s nullglob
cd "$here"
# The kernel C: glue, KUnit suites, test modules. The core's interface header (cxxcore/include/tungro_core.h)
# belongs to the C++ core and keeps its layout (120 columns, aligned field comments, __UINT*_TYPE__ typedefs,
# _Static_assert: it includes nothing, for kernel C, freestanding C++ and host tools alike); sparse still reads
# it through every glue file that includes it, and clang-tidy with the core.
cfiles=(module/*.[ch] module/compat/*.[ch] kunit/*.[ch] qemu/modules/*.[ch])
modc=(module/*.c module/compat/*.c kunit/*.c qemu/modules/*.c)
shopt -u nullglob
log "lint: checkpatch --strict on ${#cfiles[@]} files ($checkpatch)"
nerr=0 nwarn=0 nchk=0
# checkpatch writes a CamelCase cache into its working directory when that is a git checkout: run it in
# build/lint, on absolute paths.
for f in "${cfiles[@]}"; do
  # shellcheck disable=SC2046 # cp_ignores prints zero or one option
  res=$(cd "$out" && perl "$checkpatch" "${cp_opts[@]}" $(cp_ignores "$f") "$here/$f" 2>&1) || true
  e=$(grep -c '^ERROR:' <<<"$res" || true)
  w=$(grep -c '^WARNING:' <<<"$res" || true)
  c=$(grep -c '^CHECK:' <<<"$res" || true)
  if [ $((e + w + c)) -gt 0 ]; then
    sed -n '/^\(ERROR\|WARNING\|CHECK\):/,/^$/p' <<<"$res" | show
    echo "checkpatch: $f: $e errors, $w warnings, $c checks"
  fi
  nerr=$((nerr + e)) nwarn=$((nwarn + w)) nchk=$((nchk + c))
done
summary+=("checkpatch: ${#cfiles[@]} files, $nerr errors, $nwarn warnings, $nchk checks")
[ $((nerr + nwarn + nchk)) -eq 0 ] || failed+=(checkpatch)

# --- 2. pr_fmt -----------------------------------------------------------------------------------------------
# One log prefix for everything tungro prints: pr_fmt must be defined before the first #include, or the
# kernel's printk.h defines its own default first.
nprint=0 nbad=0
for f in "${modc[@]}"; do
  grep -qE '\<(pr_(emerg|alert|crit|err|warn|warning|notice|info|cont|debug|devel)(_once|_ratelimited)?|printk)[[:space:]]*\(' "$f" ||
    continue
  nprint=$((nprint + 1))
  first=$(awk '/^#[[:space:]]*define[[:space:]]+pr_fmt[[:space:]]*\(/ { print "pr_fmt"; exit }
               /^#[[:space:]]*include/ { print "include"; exit }' "$f")
  if [ "$first" != pr_fmt ]; then
    echo "$f: prints, but does not define pr_fmt before its first #include"
    nbad=$((nbad + 1))
  fi
done
summary+=("pr_fmt: ${#modc[@]} C files, $nprint print, $nbad without pr_fmt before their includes")
[ "$nbad" -eq 0 ] || failed+=(pr_fmt)

# --- 3. sparse -----------------------------------------------------------------------------------------------
command -v sparse >/dev/null || die "sparse not installed (run scripts/setup-host.sh, or apt-get install sparse)"
# sparse_run NAME KDIR: sparse through Kbuild against KDIR, in a copy of the sources (build/lint/NAME).
sparse_run() {
  local name=$1 kdir=$2 dest="$out/$1" slog="$out/$1-sparse.log" t0=$SECONDS findings nchecked serr swarn
  copy_module_sources "$here" "$dest"
  log "lint: sparse through Kbuild (make C=2) against $kdir (log: $slog)"
  # MAKEFLAGS cleared: a silent parent (make -s) would hide the CHECK lines counted below.
  if MAKEFLAGS='' make -C "$kdir" M="$dest" ARCH=x86 C=2 CHECK=sparse -j"$(nproc)" modules >"$slog" 2>&1; then
    # path:line:col: warning|error: ..., and the indented lines sparse adds (expected/got types). Paths are
    # made canonical (a header is reached as module/../cxxcore/...) and findings in a header, reported once
    # per file that includes it, are shown once. Only tungro's files count (the copy in build/lint/NAME).
    findings=$(grep -E '^/[^:]+:[0-9]+:[0-9]+: ' "$slog" | while IFS= read -r line; do
                 path=${line%%:*}
                 echo "$(realpath -m "$path")${line#"$path"}"
               done | grep "^$dest/" | awk '!seen[$0]++' | sed "s#^$dest/##" || true)
    nchecked=$(grep -c '^  CHECK ' "$slog" || true)
    serr=$(grep -cE '^[^ ]+: error: ' <<<"$findings" || true)
    swarn=$(grep -cE '^[^ ]+: warning: ' <<<"$findings" || true)
    [ -z "$findings" ] || echo "$findings"
    if [ "$serr" -gt 0 ]; then
      echo "sparse: after an error sparse reports no warnings for the rest of that file: files including" \
        "a file with an error were not fully checked"
    fi
    summary+=("sparse ($name): $nchecked files, $serr errors, $swarn warnings")
    [ $((serr + swarn)) -eq 0 ] || failed+=("sparse ($name)")
  else
    tail -30 "$slog" | show
    summary+=("sparse ($name): the module build failed (log: build/lint/$name-sparse.log)")
    failed+=("sparse ($name)")
  fi
  log "lint: sparse ($name) done in $((SECONDS - t0)) s"
}
# The test kernel, whatever KERNEL= or TUNGRO_VARIANT= the caller set: its KUnit makes the suites part of
# the build. Then Debian's 6.1, where module/compat/ stands in for the 6.12 interfaces (its other branches).
sparse_run test-kernel "$(TUNGRO_VARIANT='' "$here/scripts/kernel.sh" x86_64)"
sparse_run debian-6.1 "$("$here/scripts/debian-kernel.sh" 6.1)"

# --- 4. clang-tidy -------------------------------------------------------------------------------------------
tidy=$(command -v clang-tidy-14 || true)
[ -n "$tidy" ] || die "clang-tidy-14 not installed (run scripts/setup-host.sh, or apt-get install clang-tidy-14)"
# The host build's flags for the core (cxxcore/CMakeLists.txt), without -Werror: the config makes every
# finding an error, and -Wall -Wextra findings come out as clang-diagnostic-*.
tidy_flags=(-std=gnu++17 -ffreestanding -fno-exceptions -fno-rtti -fno-threadsafe-statics -Wall -Wextra
  -I"$here/cxxcore/include")
cxx=("$here"/cxxcore/src/*.cpp)
tlog="$out/clang-tidy.log"
log "lint: clang-tidy on ${#cxx[@]} files of cxxcore/src (config cxxcore/.clang-tidy, log: $tlog)"
: >"$tlog"
for f in "${cxx[@]}"; do
  "$tidy" --quiet --config-file="$here/cxxcore/.clang-tidy" "$f" -- "${tidy_flags[@]}" >>"$tlog" 2>&1 || true
done
# A finding in a header is reported once per file that includes it: count and show it once. Notes and code
# excerpts follow their finding in the log.
tfind=$(grep -E '^/[^:]+:[0-9]+:[0-9]+: (warning|error): ' "$tlog" | awk '!seen[$0]++' || true)
ntidy=$(grep -c . <<<"$tfind" || true)
[ -z "$tfind" ] || show <<<"$tfind"
summary+=("clang-tidy: ${#cxx[@]} files, $ntidy warnings")
[ "$ntidy" -eq 0 ] || failed+=(clang-tidy)

# --- 5. kernel-doc -----------------------------------------------------------------------------------------
kdoc="$src/scripts/kernel-doc"
[ -f "$kdoc" ] || die "no scripts/kernel-doc in $src"
log "lint: kernel-doc -none -Wall on ${#cfiles[@]} files, kernel-doc on every non-static function of module/"
kres=$(perl "$kdoc" -none -Wall "${cfiles[@]}" 2>&1 || true)
# A function definition at column 0 that is not static must follow right after a /** comment whose first line
# is " * NAME() - ...".
undoc=$(awk '
  FNR == 1 { indoc = 0; last = ""; lastline = 0 }
  /^\/\*\*/ { indoc = 1; docname = ""; next }
  indoc && docname == "" && /^ \* [A-Za-z_0-9]+\(\) -/ {
    match($0, /[A-Za-z_0-9]+\(\)/); docname = substr($0, RSTART, RLENGTH - 2) }
  indoc && /\*\// { indoc = 0; last = docname; lastline = FNR; next }
  /^[a-z_][a-z0-9_ *]*[ *][a-z_0-9]+\(/ && !/^(static|typedef)/ && !/;[[:space:]]*$/ {
    match($0, /[a-z_0-9]+\(/); name = substr($0, RSTART, RLENGTH - 1)
    if (!(last == name && lastline == FNR - 1))
      print FILENAME ":" FNR ": " name "() is not static and has no kernel-doc comment" }
  ' module/*.c)
nkdoc=$(grep -c . <<<"$kres" || true)
nundoc=$(grep -c . <<<"$undoc" || true)
[ -z "$kres" ] || show <<<"$kres"
[ -z "$undoc" ] || echo "$undoc"
summary+=("kernel-doc: ${#cfiles[@]} files, $nkdoc warnings, $nundoc non-static functions without kernel-doc")
[ $((nkdoc + nundoc)) -eq 0 ] || failed+=(kernel-doc)

printf '%s\n' "${summary[@]}"
log "lint: done in $((SECONDS - start)) s"
[ ${#failed[@]} -eq 0 ] || die "make lint: findings from ${failed[*]} (see above)"
