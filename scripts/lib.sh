# Shared shell helpers for tungro scripts (sourced, not run).

log() { printf '[tungro %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }
die() { printf '[tungro] error: %s\n' "$*" >&2; exit 1; }

tungro_cache() { echo "${TUNGRO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tungro}"; }

# fuzz_trains_run KTAP: how many skb-shape fuzzer trains a KUnit run's KTAP output reports (its "batch B: N
# trains" lines added up; 0 when it ran none).
fuzz_trains_run() {
  { grep -ohE 'batch [0-9]+: [0-9]+ trains' "$1" || true; } | awk '{ t += $3 } END { print t + 0 }'
}

# host_ccache: puts ccache in front of the host builds of the core (tests, bench, fuzz), its cache beside the
# kernels: a fresh clone rebuilds the same objects each make test, about 2 minutes of the 2-core CI machine. Sets
# HOST_CMAKE_CACHE to the CMake arguments (empty when ccache is absent). Paths below the checkout are hashed
# relative to it and the build directory is not hashed, so clones in other folders share the entries.
host_ccache() {
  HOST_CMAKE_CACHE=()
  command -v ccache >/dev/null || return 0
  ccache_env
  CCACHE_BASEDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  export CCACHE_BASEDIR
  HOST_CMAKE_CACHE=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
}

# ccache_env: the cache shared by host_ccache and kbuild_ccache, beside the kernels.
ccache_env() {
  export CCACHE_DIR="$(tungro_cache)/ccache" CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=2G
}

# kbuild_ccache CROSS: the same cache for a Kbuild of tungro against a kernel tree configured here (the test
# kernels, the build matrix' prepared trees), whose compiler is ${CROSS}gcc: sets KBUILD_CCACHE to the make
# arguments that put ccache in front of gcc and of the core's g++ (TUNGRO_CXX), empty without ccache. A clone's
# module builds (make test: 9 arches, 4 guests) then take seconds, not 8 to 15 s each, from the second make test
# in the same folder on (CI's). No base directory here: the dependency lists keep absolute paths, which
# check-cxx-objects.sh reads. Not for Debian's kernels: their Makefile names its own compiler, and those builds
# stay as a user's would run.
kbuild_ccache() {
  KBUILD_CCACHE=()
  command -v ccache >/dev/null || return 0
  ccache_env
  unset CCACHE_BASEDIR   # a host_ccache before it in the same script set one
  KBUILD_CCACHE=(CC="ccache ${1}gcc" TUNGRO_CXX="ccache ${1}g++")
}

# Refreshes apt's package lists at most once a day (an old or empty list makes installs and downloads fail);
# --force refreshes now. Needs root. The stamp is shared by every script that calls this.
apt_refresh_daily() {
  local stamp=/var/lib/apt/periodic/tungro-update-stamp
  if [ "${1:-}" = --force ] || [ ! -f "$stamp" ] ||
    [ -n "$(find "$stamp" -mmin +1440 2>/dev/null)" ]; then
    DEBIAN_FRONTEND=noninteractive apt-get update -qq || return 1
    mkdir -p "$(dirname "$stamp")" && touch "$stamp"
  fi
}

# Debian package version of the kernel source, e.g. 6.12.117-1~deb12u1
kernel_pkg_version() { dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || die "linux-source-6.12 not installed (run scripts/setup-host.sh)"; }
kernel_version() { kernel_pkg_version | sed 's/-.*//'; }
kernel_cache() { echo "$(tungro_cache)/linux-$(kernel_pkg_version)"; }

# Unpacks /usr/src/linux-source-6.12.tar.xz once into the cache; prints the source dir.
kernel_src() {
  local base; base=$(kernel_cache)
  local src="$base/src/linux-source-6.12"
  if [ ! -f "$base/src/.tungro-unpacked" ]; then
    mkdir -p "$base/src"
    ( flock 8
      if [ ! -f "$base/src/.tungro-unpacked" ]; then
        log "unpacking /usr/src/linux-source-6.12.tar.xz into $base/src"
        rm -rf "$src"
        tar -C "$base/src" -xf /usr/src/linux-source-6.12.tar.xz
        touch "$base/src/.tungro-unpacked"
      fi ) 8>"$base/src/.lock"
  fi
  echo "$src"
}

# run_with_progress LABEL LOGFILE CMD...: runs CMD with output to LOGFILE, printing LABEL and the elapsed time
# every 30 s; on failure shows the log's tail and exits.
run_with_progress() {
  local label=$1 logf=$2; shift 2
  local start=$SECONDS
  log "$label (log: $logf)"
  "$@" >"$logf" 2>&1 &
  local pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    sleep 1
    if (( (SECONDS - start) % 30 == 0 )) && kill -0 "$pid" 2>/dev/null; then
      log "$label: $((SECONDS - start)) s, $(wc -l <"$logf") log lines"
    fi
  done
  if ! wait "$pid"; then tail -30 "$logf" >&2; die "$label failed after $((SECONDS - start)) s"; fi
  log "$label: done in $((SECONDS - start)) s"
}

# Copies what Kbuild needs into DEST so an arch builds there without touching objects of another arch in the tree.
copy_module_sources() {
  local top=$1 dest=$2
  mkdir -p "$dest"
  rsync -a --delete --include='Kbuild' --include='module/***' --include='kunit/***' --include='cxxcore/' \
    --include='cxxcore/include/***' --include='cxxcore/src/***' --include='qemu/' --include='qemu/modules/***' \
    --exclude='*' "$top/" "$dest/"
}

# Kernel ARCH and cross prefix for a tungro arch name.
karch_of() { case "$1" in x86_64) echo x86 ;; *) echo "$1" ;; esac; }
cross_of() { case "$1" in x86_64) echo "" ;; m68k) echo m68k-linux-gnu- ;; *) die "no cross prefix known for $1" ;; esac; }

# The kernel that builds and guest runs use: TUNGRO_KERNEL=debian is Debian's own 6.12 amd64 kernel,
# debian-6.1 Debian 12's own 6.1 (scripts/debian-kernel.sh: x86_64, no KUnit); unset (or "tungro") the
# test kernel of scripts/kernel.sh.
tungro_kernel() {
  case "${TUNGRO_KERNEL:-}" in
    ""|tungro) echo tungro ;;
    debian|debian-6.1) echo "$TUNGRO_KERNEL" ;;
    *) die "unknown TUNGRO_KERNEL '$TUNGRO_KERNEL' (debian, debian-6.1, or unset for the tungro test kernel)" ;;
  esac
}

# Debian kernel series of TUNGRO_KERNEL (6.12 or 6.1; the argument of scripts/debian-kernel.sh), empty
# for the test kernel.
debian_series() {
  case "$(tungro_kernel)" in
    debian) echo 6.12 ;;
    debian-6.1) echo 6.1 ;;
  esac
}

# Name of ARCH's output directory under build/: x86_64, x86_64-debug (TUNGRO_VARIANT), x86_64-debian,
# x86_64-debian-6.1, x86_64-proof-late-gro (TUNGRO_PROOF). A bad setting stops the caller (the || exit: a die
# inside a command substitution would only end that subshell).
build_tag() {
  local k p
  k=$(tungro_kernel) || exit 1
  p=$(proof_suffix) || exit 1
  if [ "$k" != tungro ]; then
    [ "$1" = x86_64 ] || die "TUNGRO_KERNEL=$k: Debian's amd64 kernel is x86_64 only, not $1"
    [ -z "${TUNGRO_VARIANT:-}" ] ||
      die "TUNGRO_VARIANT=$TUNGRO_VARIANT is a test kernel variant, not for TUNGRO_KERNEL=$k"
    [ -z "${TUNGRO_PROOF:-}" ] || die "TUNGRO_PROOF=$TUNGRO_PROOF builds for the test kernels, not for TUNGRO_KERNEL=$k"
    echo "$1-$k"
  else
    echo "$1${TUNGRO_VARIANT:+-$TUNGRO_VARIANT}$p"
  fi
}

# TUNGRO_PROOF=late-gro (scripts/gate-proof.sh): tungro.ko built with the detach-order bug, in a build directory
# of its own; prints the build tag's suffix, or nothing
proof_suffix() {
  case "${TUNGRO_PROOF:-}" in
    "") ;;
    late-gro) echo -proof-late-gro ;;
    *) die "unknown TUNGRO_PROOF '$TUNGRO_PROOF' (late-gro, or unset)" ;;
  esac
}

# Kernel tree tungro.ko builds against (KDIR) for ARCH, built or fetched on first use: kernel_tree ARCH
kernel_tree() {
  local scripts; scripts=$(dirname "${BASH_SOURCE[0]}")
  build_tag "$1" >/dev/null
  case "$(tungro_kernel)" in
    tungro) "$scripts/kernel.sh" "$1" ;;
    *) "$scripts/debian-kernel.sh" "$(debian_series)" ;;
  esac
}

# Bootable image of a kernel tree: kernel_image ARCH KDIR. Debian's is beside its unpacked headers
# (<root>/usr/src/linux-headers-<release> and <root>/boot/vmlinuz-<release>).
kernel_image() {
  if [ "$(tungro_kernel)" != tungro ]; then
    echo "${2%/usr/src/*}/boot/vmlinuz-${2##*/linux-headers-}"
    return
  fi
  case "$1" in
    x86_64) echo "$2/arch/x86/boot/bzImage" ;;
    m68k)   echo "$2/vmlinux" ;;
    *) die "unknown arch '$1' (x86_64, m68k)" ;;
  esac
}

# guest_modules KDIR OUTDIR MODULE...: stages the kernel modules the guest needs before anything runs,
# dependencies first, as OUTDIR/NN-name.ko, and prints one initramfs spec per module,
# FILE:/lib/modules/deps/NN-name.ko (the agent loads that directory in name order). Test kernels build
# them all in: nothing to stage. Debian's kernels: modprobe resolves the order from the modules.dep that
# scripts/debian-kernel.sh made, builtin ones are skipped, and Debian's .ko.xz are decompressed here
# (its kernel could take them compressed, test kernels could not: the agent loads plain files only).
guest_modules() {
  local kdir=$1 out=$2; shift 2
  rm -rf "$out"
  [ "$(tungro_kernel)" != tungro ] || return 0
  local root=${kdir%/usr/src/*} release=${kdir##*/linux-headers-} m plan kind path name dst n=0
  local -A seen=()
  mkdir -p "$out"
  for m in "$@"; do
    # -C /dev/null: the host's modprobe.d (blacklists, install commands) has no say over the guest
    plan=$(modprobe -C /dev/null -d "$root" -S "$release" --show-depends "$m") ||
      die "module $m: not in $release (modules.dep of $root)"
    while read -r kind path _; do
      [ "$kind" = insmod ] || continue   # "builtin NAME"
      name=${path##*/}; name=${name%%.ko*}
      [ -z "${seen[$name]:-}" ] || continue
      seen[$name]=1
      n=$((n + 1))
      dst=$(printf '%s/%02d-%s.ko' "$out" "$n" "$name")
      case "$path" in
        *.ko.xz) xz -dc "$path" >"$dst" || die "xz -d $path failed" ;;
        *.ko)    cp "$path" "$dst" || die "cp $path failed" ;;
        *) die "module $name: no decompressor here for $path" ;;
      esac
      echo "$dst:/lib/modules/deps/${dst##*/}"
    done <<<"$plan"
  done
}

# dkms_stage TOP SOURCETREE: a DKMS source directory SOURCETREE/tungro-<version> (the module sources and
# dkms.conf with its version filled in, from scripts/version.sh); prints the version. The same paths as
# copy_module_sources, by cp: make dkms-install runs on users' machines, where build-essential and dkms bring
# no rsync.
dkms_stage() {
  local top=$1 tree=$2 version dest
  version=$("$top/scripts/version.sh")
  dest="$tree/tungro-$version"
  rm -rf "$dest"
  mkdir -p "$dest"
  (cd "$top" && cp -a --parents Kbuild module kunit cxxcore/include cxxcore/src qemu/modules "$dest/") ||
    die "copying tungro's module sources to $dest failed"
  sed "s/@VERSION@/$version/" "$top/dkms.conf" >"$dest/dkms.conf"
  echo "$version"
}

# Kernel command-line words that give an x86_64 guest under TCG a usable TSC (nothing elsewhere): the host's rate
# (qemu/tsc-khz.c), because the guest's PIT calibration of it fails on a busy host, and tsc=reliable, because the
# emulated CPU has no constant-TSC flag, so with 2 vCPUs the kernel calls the TSCs unsynchronized and keeps time
# with jiffies (4 ms steps at HZ 250, no IRQ time accounting), and because its watchdog, jiffies, lags under load.
# Under TCG every vCPU reads the host's invariant TSC. Prints nothing when the rate cannot be measured.
guest_tsc_args() {
  [ "$1" = x86_64 ] && [ "$(uname -m)" = x86_64 ] || return 0
  local here khz
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  mkdir -p "$here/build"
  if gcc -O2 -Wall -Wextra -Werror -o "$here/build/tsc-khz" "$here/qemu/tsc-khz.c" && khz=$("$here/build/tsc-khz"); then
    echo "tsc_early_khz=$khz tsc=reliable"
  else
    log "host TSC rate not measured: the guest calibrates its TSC itself"
  fi
}
