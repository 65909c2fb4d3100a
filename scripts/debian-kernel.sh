#!/usr/bin/env bash
# Fetches (or reuses) Debian's own 6.12 amd64 kernel, unpacked into the cache, never installed, and
# prints the directory of its headers: the KDIR tungro.ko builds against
# (make KDIR=$(scripts/debian-kernel.sh)). The kernel image and modules are beside it (lib.sh).
#
# usage: scripts/debian-kernel.sh
# The kernel is the newest linux-image-6.12.<n>+deb12-amd64-unsigned in apt's package lists (not rt,
# not cloud), with its linux-headers-<release> and what those need to build modules.
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
[ $# -eq 0 ] || { echo "usage: scripts/debian-kernel.sh" >&2; exit 1; }

# shellcheck source=scripts/lib.sh
. "$here/scripts/lib.sh"

# Newest release in the package lists, e.g. 6.12.117+deb12-amd64; empty if the lists know none.
newest_release() {
  apt-cache pkgnames linux-image-6.12. 2>/dev/null |
    sed -nE 's/^linux-image-(6\.12\.[0-9]+\+deb12-amd64)-unsigned$/\1/p' | sort -V | tail -n 1
}

# A stale list only means an older kernel: offline (or not root), the lists at hand still decide.
apt_refresh_daily || log "debian kernel: apt-get update failed, using the package lists at hand"
release=$(newest_release)
if [ -z "$release" ]; then
  # lists emptied since the last refresh (a fresh image keeps the stamp but not the lists)
  apt_refresh_daily --force || true
  release=$(newest_release)
fi
[ -n "$release" ] ||
  die "no linux-image-6.12.*+deb12-amd64-unsigned in apt's package lists (apt-get update as root?)"
image_pkg=linux-image-$release-unsigned
version=$(apt-cache show --no-all-versions "$image_pkg" | sed -n 's/^Version: //p' | head -n 1)
[ -n "$version" ] || die "no candidate version of $image_pkg"

base="$(tungro_cache)/debian-$version"
root="$base/root"
headers="$root/usr/src/linux-headers-$release"
done_mark="$base/.tungro-unpacked"
if [ -f "$done_mark" ]; then echo "$headers"; exit 0; fi

mkdir -p "$base"
exec 9>"$base/.lock"
flock 9
if [ -f "$done_mark" ]; then echo "$headers"; exit 0; fi

# The headers package depends on the image package, so it is never installed: what it needs to build
# modules is taken by name from its dependencies, the common headers (Makefile, include/, arch/) and
# kbuild (scripts/, tools/).
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
for f in "$root/boot/vmlinuz-$release" "$headers/Module.symvers" "$headers/vmlinux" \
  "$root/lib/modules/$release/modules.dep"; do
  [ -f "$f" ] || die "missing $f after unpacking"
done
touch "$done_mark"
echo "$headers"
