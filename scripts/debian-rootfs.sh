#!/usr/bin/env bash
# Makes (or reuses) a fresh Debian 12 (bookworm) amd64 machine as a disk image, for make test-install
# (scripts/install-test.sh): debootstrap, then with apt inside it what a developer has for building kernel
# modules, Debian's 6.1 kernel with its headers included; then an ext4 image of it (mkfs.ext4 -d: no loop
# mounts). Prints the cache directory holding the image, its kernel and initrd:
#   rootfs.ext4   the root file system (/dev/vda of the guest; boot it with snapshot=on, it stays as made)
#   vmlinuz initrd.img release   the image's own kernel, its initramfs-tools initrd (virtio_blk in it), uname -r
#   init          the path to boot with init= (a stub that runs the check disk's check.sh, then powers off)
#   packages.txt  every package installed and its version (dpkg-query)
# The mirror is this machine's: the URIs apt is configured with for bookworm, bookworm-updates and
# bookworm-security (/etc/apt/sources.list, sources.list.d/*.list and *.sources), read at run time and
# written only into the image's own sources.list. TUNGRO_DEBIAN_MIRROR overrides the bookworm one.
#
# Cache: ${TUNGRO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tungro}/debian12-rootfs-<kernel version>-<key>/,
# <key> a hash of the suite, the package list and the initrd's modules: later runs with the same list and the
# same linux-image-amd64 version in apt's lists reuse it. root/ is the debootstrapped tree (kept, so a new
# init stub only remakes the image); .rootfs-done and .image-done mark finished steps. Needs root.
# usage: scripts/debian-rootfs.sh
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 0 ] || { echo "usage: scripts/debian-rootfs.sh" >&2; exit 1; }
# shellcheck source=scripts/lib.sh
. "$here/scripts/lib.sh"
[ "$(id -u)" -eq 0 ] || die "debian rootfs: debootstrap, chroot and the image's root-owned files need root"

suite=bookworm
# What a developer building kernel modules has on a fresh Debian 12, besides the base system (minbase):
# Debian's kernel and its headers (the metapackages, as the installer puts them), the compiler, make, kmod,
# dkms, git to clone tungro with, and sudo (the check builds as a user, as README's commands do). apt installs
# their Recommends too, as it does by default.
# Then what a kernel developer traces tungro's tracepoints with: perf (linux-perf: bookworm's perf_6.1, what
# linux-base's perf wrapper runs on a 6.1 kernel), trace-cmd and bpftrace; and for traffic through an IPIP
# tunnel between two network namespaces: iproute2 (ip netns, ip link), ethtool (GRO on, TSO off on the veths)
# and netcat-openbsd (a TCP listener).
pkgs=(linux-image-amd64 linux-headers-amd64 build-essential g++ make kmod dkms git sudo
  linux-perf trace-cmd bpftrace iproute2 ethtool netcat-openbsd)
# The initrd must find /dev/vda: initramfs-tools' MODULES=most takes block drivers anyway; listed so that it
# does not depend on that.
initrd_mods=(virtio_pci virtio_blk ext4)
# The image's init= (the kernel runs it as PID 1 after the initrd mounted /dev/vda): mounts the check disk
# that scripts/install-test.sh makes for each run (label TUNGRO-CHECK) and runs its check.sh; powers off
# after it, whatever it did.
init_path=/usr/local/sbin/tungro-check-init
init_stub='#!/bin/bash
# init= of the tungro install check image (scripts/debian-rootfs.sh): the check itself is on the check disk.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8
mountpoint -q /proc || mount -t proc proc /proc
mountpoint -q /sys || mount -t sysfs sysfs /sys
mountpoint -q /dev || mount -t devtmpfs devtmpfs /dev
mkdir -p /mnt/tungro-check
if mount -o ro LABEL=TUNGRO-CHECK /mnt/tungro-check; then
  /bin/bash /mnt/tungro-check/check.sh
else
  echo "tungro-check-init: no check disk (label TUNGRO-CHECK)"
fi
sync
echo o >/proc/sysrq-trigger
sleep 600'

# apt_source_uri SUITE: the URI of this machine's first enabled deb source for SUITE with component main
# (one-line .list format and deb822 .sources), empty when it has none.
apt_source_uri() {
  local suite=$1 f
  {
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
      [ -f "$f" ] || continue
      # deb [options] URI SUITE COMPONENT...
      awk -v s="$suite" '$1 == "deb" {
          i = 2
          if ($2 ~ /^\[/) { while (i < NF && $i !~ /\]$/) i++; i++ }
          if ($(i + 1) == s) for (c = i + 2; c <= NF; c++) if ($c == "main") { print $i; exit }
        }' "$f"
    done
    for f in /etc/apt/sources.list.d/*.sources; do
      [ -f "$f" ] || continue
      # stanzas of "Key: value" lines (value lists space-separated), blank-line separated
      awk -v s="$suite" 'BEGIN { RS = ""; FS = "\n" }
        function has(list, w,   n, a, k) { n = split(list, a, /[ \t]+/); for (k = 1; k <= n; k++) if (a[k] == w) return 1; return 0 }
        {
          delete v; key = ""
          for (l = 1; l <= NF; l++) {
            if ($l ~ /^#/) continue
            if ($l ~ /^[ \t]/ && key != "") { v[key] = v[key] " " $l; continue }
            p = index($l, ":"); if (p == 0) continue
            key = tolower(substr($l, 1, p - 1)); v[key] = substr($l, p + 1)
          }
          if (tolower(v["enabled"]) ~ /no/) next
          if (has(v["types"], "deb") && has(v["suites"], s) && has(v["components"], "main")) {
            split(v["uris"], u, /[ \t]+/); for (k = 1; k in u; k++) if (u[k] != "") { print u[k]; exit }
          }
        }' "$f"
    done
  } | head -n 1
}

mirror=${TUNGRO_DEBIAN_MIRROR:-$(apt_source_uri "$suite")}
[ -n "$mirror" ] ||
  die "no apt source for $suite (main) in /etc/apt/sources.list*: set TUNGRO_DEBIAN_MIRROR to a Debian mirror URI"
updates_uri=$(apt_source_uri "$suite-updates")
security_uri=$(apt_source_uri "$suite-security")

# The kernel the image gets: apt's candidate of linux-image-amd64 here (its lists are this machine's view of the
# same archive), pinned in the image so that the cache key says what is inside.
apt_refresh_daily || log "debian rootfs: apt-get update failed, using the package lists at hand"
kver=$(apt-cache policy linux-image-amd64 2>/dev/null | sed -n 's/^ *Candidate: //p' | grep -v '^(none)$' || true)
[ -n "$kver" ] || die "apt has no candidate for linux-image-amd64 (apt-get update as root?)"

key=$(printf '%s\n' "suite=$suite variant=minbase" "initrd=${initrd_mods[*]}" "${pkgs[@]}" | sha256sum | cut -c1-12)
base="$(tungro_cache)/debian12-rootfs-$kver-$key"
root="$base/root"
image_recipe=$(printf '%s\n' "$init_path" "$init_stub" | sha256sum | cut -c1-12)
if [ -f "$base/.image-done" ] && [ "$(cat "$base/.image-done")" = "$image_recipe" ]; then echo "$base"; exit 0; fi

mkdir -p "$base"
exec 9>"$base/.lock"
flock 9
if [ -f "$base/.image-done" ] && [ "$(cat "$base/.image-done")" = "$image_recipe" ]; then echo "$base"; exit 0; fi

# Nothing may be mounted under the tree when it is written or removed (a run killed inside the chroot
# leaves its /proc there).
unmount_tree() {
  local m
  awk -v r="$1/" 'index($2, r) == 1 { print $2 }' /proc/mounts | sort -r | while read -r m; do
    umount "$m" 2>/dev/null || umount -l "$m"
  done
}
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
  DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8 "$@"; }

if [ ! -f "$base/.rootfs-done" ]; then
  command -v debootstrap >/dev/null || {
    log "debian rootfs: installing debootstrap"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
  }
  unmount_tree "$root"
  rm -rf "$root"
  t0=$SECONDS
  run_with_progress "debian rootfs: debootstrap $suite (minbase) into $root" "$base/debootstrap.log" \
    debootstrap --variant=minbase --arch=amd64 "$suite" "$root" "$mirror"
  log "debian rootfs: debootstrap took $((SECONDS - t0)) s"

  # A fresh installation's apt sources: the release, its updates and security, as this machine has them.
  {
    echo "deb $mirror $suite main"
    [ -z "$updates_uri" ] || echo "deb $updates_uri $suite-updates main"
    [ -z "$security_uri" ] || echo "deb $security_uri $suite-security main"
  } >"$root/etc/apt/sources.list"
  echo tungro-deb12 >"$root/etc/hostname"
  echo '/dev/vda / ext4 defaults 0 1' >"$root/etc/fstab"

  trap 'unmount_tree "$root"' EXIT
  mount -t proc proc "$root/proc"
  t0=$SECONDS
  run_with_progress "debian rootfs: apt-get update in the image" "$base/apt.log" in_root apt-get -q update
  # initramfs-tools first, so that the kernel's own initrd (made when linux-image installs) has the modules
  run_with_progress "debian rootfs: installing initramfs-tools" "$base/apt-initramfs.log" \
    in_root apt-get -q -y install initramfs-tools
  printf '%s\n' "${initrd_mods[@]}" >>"$root/etc/initramfs-tools/modules"
  install_pkgs=()
  for p in "${pkgs[@]}"; do
    case "$p" in linux-image-amd64|linux-headers-amd64) install_pkgs+=("$p=$kver") ;; *) install_pkgs+=("$p") ;; esac
  done
  run_with_progress "debian rootfs: installing ${pkgs[*]} (kernel $kver)" "$base/apt-install.log" \
    in_root apt-get -q -y install "${install_pkgs[@]}"
  in_root apt-get -q clean
  log "debian rootfs: packages took $((SECONDS - t0)) s"
  unmount_tree "$root"
  trap - EXIT

  mapfile -t kernels < <(cd "$root/boot" && ls vmlinuz-* 2>/dev/null)
  [ "${#kernels[@]}" -eq 1 ] || die "expected one kernel in $root/boot, found: ${kernels[*]:-none}"
  release=${kernels[0]#vmlinuz-}
  [ -f "$root/boot/initrd.img-$release" ] || die "no initrd.img-$release in $root/boot"
  in_root test -f "/lib/modules/$release/build/Makefile" || die "no headers for $release in the image (/lib/modules/$release/build)"
  listing=$(in_root lsinitramfs "/boot/initrd.img-$release")
  for m in "${initrd_mods[@]}"; do
    grep -qE "/$m\.ko(\.[a-z]+)?\$" <<<"$listing" || grep -qE "^$m\$" "$root/lib/modules/$release/modules.builtin" ||
      die "$m is not in initrd.img-$release"
  done
  # shellcheck disable=SC2016
  in_root dpkg-query -W -f '${Package} ${Version}\n' >"$base/packages.txt"
  echo "$release" >"$base/release"
  cp "$root/boot/vmlinuz-$release" "$base/vmlinuz"
  cp "$root/boot/initrd.img-$release" "$base/initrd.img"
  touch "$base/.rootfs-done"
  log "debian rootfs: kernel $release, $(wc -l <"$base/packages.txt") packages, $(du -sh "$root" | cut -f1)"
fi

# The image: the tree plus the init stub, with room for builds (tungro, dkms' copy) and what make install writes.
rm -f "$base/.image-done"
printf '%s\n' "$init_stub" >"$root$init_path"
chmod 0755 "$root$init_path"
mb=$(( $(du -sm "$root" | cut -f1) + 1536 ))
rm -f "$base/rootfs.ext4"
truncate -s "${mb}M" "$base/rootfs.ext4.tmp"
run_with_progress "debian rootfs: ext4 image of $mb MiB (mkfs.ext4 -d)" "$base/mkfs.log" \
  mkfs.ext4 -F -q -L tungro-deb12 -d "$root" "$base/rootfs.ext4.tmp"
mv "$base/rootfs.ext4.tmp" "$base/rootfs.ext4"
echo "$init_path" >"$base/init"
echo "$image_recipe" >"$base/.image-done"
echo "$base"
