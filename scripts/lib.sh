# Shared shell helpers for tungro scripts (sourced, not run).

log() { printf '[tungro %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }
die() { printf '[tungro] error: %s\n' "$*" >&2; exit 1; }

tungro_cache() { echo "${TUNGRO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tungro}"; }

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

# Bootable image of a test kernel build: kernel_image ARCH BUILD_DIR
kernel_image() {
  case "$1" in
    x86_64) echo "$2/arch/x86/boot/bzImage" ;;
    m68k)   echo "$2/vmlinux" ;;
    *) die "unknown arch '$1' (x86_64, m68k)" ;;
  esac
}
