#!/usr/bin/env bash
# make test-install: what a new user does on a fresh Debian 12 machine with headers for its running kernel,
# in a QEMU guest that is one (the build machine's own kernel has no headers). The guest boots Debian 12's
# own 6.1 kernel and initrd from its image (scripts/debian-rootfs.sh, cached) and runs qemu/install-check.sh:
# git clone, make, make install, modprobe tungro, make dkms-install, dkms status, modprobe -r, a load of the
# DKMS build, make dkms-remove. The image is used with snapshot=on (every run starts from the fresh machine);
# the commit tested (HEAD, as a git bundle) and the check script travel on a small second disk.
# Output in build/install-test/: console.log (every command's output and the kernel's), results.txt (the
# check's steps, from a virtio-serial port), qemu.log. Passes only when the check's last line is "success".
# usage: scripts/install-test.sh     TUNGRO_INSTALL_TIMEOUT=<s> (default 3600: the guest builds tungro twice
# under TCG)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$here/scripts/lib.sh"
[ $# -eq 0 ] || die "usage: scripts/install-test.sh"
[ "$(id -u)" -eq 0 ] || die "install test: making the Debian image needs root (debootstrap, chroot)"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 not installed (scripts/setup-host.sh)"
timeout_s=${TUNGRO_INSTALL_TIMEOUT:-3600}
case "$timeout_s" in ''|*[!0-9]*) die "TUNGRO_INSTALL_TIMEOUT must be whole seconds, got '$timeout_s'" ;; esac

t0=$SECONDS
img=$("$here/scripts/debian-rootfs.sh")
rootfs_s=$((SECONDS - t0))
release=$(cat "$img/release")

out="$here/build/install-test"
rm -rf "$out"
mkdir -p "$out/disk"
# What a clone gives: the commit's whole history (scripts/version.sh counts it for the DKMS version).
git -C "$here" bundle create "$out/disk/tungro.bundle" HEAD 2>"$out/bundle.log" || die "git bundle failed: $(cat "$out/bundle.log")"
version=$("$here/scripts/version.sh")
if [ "${version%.dirty}" != "$version" ]; then
  log "install test: uncommitted changes are not tested: the guest clones HEAD ($(git -C "$here" log --oneline -1))"
  version=${version%.dirty}
fi
echo "$version" >"$out/disk/version"
install -m 0755 "$here/qemu/install-check.sh" "$out/disk/check.sh"
install -m 0755 "$here/qemu/install-trace.sh" "$out/disk/trace.sh"
truncate -s 16M "$out/check.ext4"
mkfs.ext4 -F -q -L TUNGRO-CHECK -d "$out/disk" "$out/check.ext4" || die "mkfs.ext4 of the check disk failed"

console=$out/console.log results=$out/results.txt
: >"$results"
cmdline="console=ttyS0 root=/dev/vda rw init=$(cat "$img/init") panic_on_warn=1 oops=panic panic=-1"
tsc=$(guest_tsc_args x86_64)
[ -z "$tsc" ] || cmdline+=" $tsc"
# 2 vCPUs, as the other x86_64 guests; 2 GiB: g++ builds the core at -j2. No NIC: nothing here needs a network.
# QEMU options are comma lists:
# shellcheck disable=SC2054
args=(-nodefaults -display none -no-reboot -accel tcg -M pc,dump-guest-core=off -smp 2 -m 2048M
  -kernel "$img/vmlinuz" -initrd "$img/initrd.img" -append "$cmdline"
  -serial "file:$console"
  -drive "file=$img/rootfs.ext4,format=raw,if=virtio,snapshot=on"
  -drive "file=$out/check.ext4,format=raw,if=virtio,readonly=on"
  -chardev "file,id=results,path=$results"
  -device virtio-serial-pci,id=vser -device virtserialport,bus=vser.0,chardev=results,name=tungro.results)

log "install test: booting Debian 12's $release (image $img) to build, install and load tungro $version;" \
  "timeout ${timeout_s}s"
start=$SECONDS
# shellcheck source=qemu/judge.sh
. "$here/qemu/judge.sh"
qemu_run_judged "$timeout_s" "$out/qemu.log" "$results" "$console" qemu-system-x86_64 "${args[@]}"
boot_s=$((SECONDS - start))
reason=$QEMU_REASON
# "STEP make ok 66 s" -> "make 66 s", "STEP make FAILED (exit 2) 66 s" -> "make FAILED 66 s"
steps=$(sed -nE 's/^STEP ([^ ]+) (ok|FAILED)( \(exit [0-9]+\))? ([0-9]+) s$/\1 \2 \4 s/p' "$results" |
  sed 's/ ok / /' | paste -sd, - | sed 's/,/, /g')
log "install test: image ready in $rootfs_s s, boot and check $boot_s s (guest steps: ${steps:-none})"
if [ -n "$reason" ]; then
  echo "---- last 40 lines of $console ----" >&2
  tail -n 40 "$console" >&2 || true
  die "install test on Debian 12's $release FAILED after $boot_s s: $reason (logs: $out)"
fi
log "install test: passed on Debian 12's $release (logs: $out)"
