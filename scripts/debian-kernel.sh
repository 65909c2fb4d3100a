#!/usr/bin/env bash
# Fetches (or reuses) one of Debian 12's own amd64 kernels, unpacked into the cache, never installed,
# and prints the directory of its headers: the KDIR tungro.ko builds against
# (make KDIR=$(scripts/debian-kernel.sh 6.1)). The kernel image and modules are beside it (lib.sh).
#
# usage: scripts/debian-kernel.sh [SERIES]
#   SERIES  6.12 (default): the newest linux-image-6.12.<n>+deb12-amd64-unsigned (the 6.12 LTS kernel
#           Debian 12 also carries);
#           6.1: the newest linux-image-6.1.0-<abi>-amd64-unsigned (Debian 12's own kernel).
# Not rt, not cloud; only releases apt has a candidate for (the lists also name superseded ABIs whose
# packages are gone), with linux-headers-<release> and what those need to build modules.
#
# Cache: ${TUNGRO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tungro}/debian-<package version>/
#   debs/   the packages, from apt-get download (apt checks their hashes against the signed lists)
#   root/   the packages unpacked with dpkg-deb -x: boot/vmlinuz-<release>, lib/modules/<release>/
#           (plus the modules.dep the package leaves to its postinst: depmod -b here),
#           usr/src/linux-headers-<release>/ (the printed directory), its -common sibling, usr/lib/
#           linux-kbuild-<version>/ (fixdep, modpost ...)
#   .tungro-unpacked marks a finished run: later runs with the same package lists need no network.
# The headers' Makefile includes the common headers by absolute path (/usr/src/...) and two symlinks of
# lib/modules/<release> point into /usr/src: the cached copy points inside root/ instead, so nothing
# under /usr is read or written. Progress goes to stderr; the only stdout line is the headers directory.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
[ $# -le 1 ] || { echo "usage: scripts/debian-kernel.sh [6.12|6.1]" >&2; exit 1; }
series=${1:-6.12}

# shellcheck source=scripts/lib.sh
. "$here/scripts/lib.sh"

# The release names of a series: apt-cache pkgnames prefix, and the release as an extended regex.
case "$series" in
  6.12) prefix=linux-image-6.12. release_re='6\.12\.[0-9]+\+deb12-amd64' ;;
  6.1)  prefix=linux-image-6.1.0- release_re='6\.1\.0-[0-9]+-amd64' ;;
  *) die "unknown Debian kernel series '$series' (6.12, 6.1)" ;;
esac

# Newest release of the series that apt can download and its package version, e.g.
# "6.1.0-57-amd64 6.1.192-3"; empty if the lists know none.
newest_release() {
  local r v
  apt-cache pkgnames "$prefix" 2>/dev/null |
    sed -nE "s/^linux-image-($release_re)-unsigned\$/\1/p" | sort -V -r |
    while read -r r; do
      v=$(candidate_version "linux-image-$r-unsigned")
      if [ -n "$v" ]; then echo "$r $v"; break; fi
    done
}

# apt's candidate version of package $1, empty when it has none.
candidate_version() {
  apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: //p' | grep -v '^(none)$' || true
}

# A stale list only means an older kernel: offline (or not root), the lists at hand still decide.
apt_refresh_daily || log "debian kernel: apt-get update failed, using the package lists at hand"
newest=$(newest_release)
if [ -z "$newest" ]; then
  # lists emptied since the last refresh (a fresh image keeps the stamp but not the lists)
  apt_refresh_daily --force || true
  newest=$(newest_release)
fi
[ -n "$newest" ] ||
  die "no ${prefix}*-amd64-unsigned with a candidate in apt's package lists (apt-get update as root?)"
read -r release version <<<"$newest"
image_pkg=linux-image-$release-unsigned

base="$(tungro_cache)/debian-$version"
root="$base/root"
headers="$root/usr/src/linux-headers-$release"
done_mark="$base/.tungro-unpacked"
if [ -f "$done_mark" ]; then echo "$headers"; exit 0; fi

mkdir -p "$base"
exec 9>"$base/.lock"
flock 9
if [ -f "$done_mark" ]; then echo "$headers"; exit 0; fi

# The headers package depends on the image package (6.12) or on a compiler metapackage (6.1), so it is
# never installed: what it needs to build modules is taken by name from its dependencies, the common
# headers (Makefile, include/, arch/) and kbuild (scripts/, tools/).
needs=$(apt-cache depends "linux-headers-$release" |
  sed -nE 's/^ +Depends: (linux-(headers-[^ ]+-common|kbuild-[^ ]+))$/\1/p')
[ "$(wc -l <<<"$needs")" -eq 2 ] ||
  die "linux-headers-$release: expected a -common and a kbuild dependency, got: $needs"
pkgs=("$image_pkg" "linux-headers-$release")
mapfile -t -O 2 pkgs <<<"$needs"

rm -rf "$base/debs" "$root"
mkdir -p "$base/debs"
cd "$base/debs"   # apt-get download writes into the current directory
# apt downloads as user _apt, who cannot write into root's cache: as root, download as root.
sandbox=()
[ "$(id -u)" -ne 0 ] || sandbox=(-o APT::Sandbox::User=root)
run_with_progress "debian kernel: downloading $release, ${#pkgs[@]} packages ($version)" "$base/download.log" \
  apt-get -q "${sandbox[@]}" download "${pkgs[@]/%/=$version}"
log "debian kernel: $(du -sh "$base/debs" | cut -f1) of packages in $base/debs"

unpack() { for deb in "$base"/debs/*.deb; do dpkg-deb -x "$deb" "$root" || return 1; done; }
run_with_progress "debian kernel: unpacking into $root" "$base/unpack.log" unpack
[ -f "$headers/Makefile" ] || die "no $headers/Makefile after unpacking"
# Its only line naming another tree is the first; any other include would be news worth stopping for.
sed -i -E "1s|^include /usr/src/|include $root/usr/src/|" "$headers/Makefile"
included=$(sed -n 's/^include //p' "$headers/Makefile")
if [ "$(wc -l <<<"$included")" -ne 1 ] || [ ! -f "$included" ]; then
  die "unexpected includes in $headers/Makefile: $included"
fi
# Absolute symlinks (lib/modules/<release>/build and source) become relative ones inside root/.
while IFS= read -r link; do
  target=$(readlink "$link")
  [ -e "$root$target" ] || continue
  ln -sfn "$(realpath -s --relative-to="$(dirname "$link")" "$root$target")" "$link"
done < <(find "$root" -type l -lname '/*')
# depmod reads every module (4000+, xz-compressed): seconds, not instant
run_with_progress "debian kernel: depmod $release" "$base/depmod.log" depmod -b "$root" "$release"
# 6.12's headers carry vmlinux (the BTF base of modules); 6.1's do not, and its Kbuild then skips
# module BTF with a notice.
needed=("$root/boot/vmlinuz-$release" "$headers/Module.symvers" "$root/lib/modules/$release/modules.dep")
[ "$series" = 6.1 ] || needed+=("$headers/vmlinux")
for f in "${needed[@]}"; do
  [ -f "$f" ] || die "missing $f after unpacking"
done
touch "$done_mark"
echo "$headers"
