#!/usr/bin/env bash
# make test's DKMS step: tungro built by `dkms build` from dkms.conf, as `make dkms-install` would on a
# Debian 12 machine running Debian's 6.12 kernel, against that kernel's headers unpacked in the cache
# (scripts/debian-kernel.sh). dkms works in a private tree under the cache (--sourcetree, --dkmstree), removed
# afterwards: /usr/src, /var/lib/dkms and /lib/modules stay as they were (checked).
# Checks: the build succeeds; tungro.ko's vermagic names the headers' release and it holds the C++ core; a kernel outside BUILD_EXCLUSIVE_KERNEL is refused (dkms exit 77).
# usage: scripts/dkms-test.sh
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/lib.sh"
command -v dkms >/dev/null || die "dkms is not installed (run scripts/setup-host.sh)"
kdir=$(TUNGRO_KERNEL=debian kernel_tree x86_64)
release=${kdir##*/linux-headers-}
tmp=$(mktemp -d "$(tungro_cache)/dkms-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src" "$tmp/tree"

# What dkms may touch on this machine, before and after.
system_state() { { find /usr/src /var/lib/dkms "/lib/modules/$release" -maxdepth 3 2>/dev/null || true; } | sort | md5sum; }
before=$(system_state)

version=$(dkms_stage "$here" "$tmp/src")
# sign_file: dkms would sign with a MOK key it creates in /var/lib/dkms where it finds the kernel's sign-file;
# the test builds unsigned (dkms reads this variable from the environment too).
export sign_file=/nonexistent/tungro-dkms-test/sign-file
private=(--sourcetree "$tmp/src" --dkmstree "$tmp/tree" --kernelsourcedir "$kdir")
t0=$SECONDS
run_with_progress "dkms: build tungro $version for $release (private tree $tmp)" "$tmp/dkms.log" \
  dkms build -m tungro -v "$version" -k "$release" "${private[@]}"
secs=$((SECONDS - t0))
ko="$tmp/tree/tungro/$version/$release/x86_64/module/tungro.ko"
[ -f "$ko" ] || die "dkms build: no $ko (log: $(cat "$tmp/dkms.log"))"
vermagic=$(modinfo -F vermagic "$ko")
[ "${vermagic%% *}" = "$release" ] || die "dkms build: vermagic '$vermagic' is not $release"
# The C++ core is linked in (dkms cleans its build directory, so the per-object checks of `make` are not
# repeated here: it is the same Kbuild).
# (grep reads all of nm's output: with pipefail, an early grep -q exit would fail nm with SIGPIPE.)
nm "$ko" | grep -c ' T tgc_engine_receive$' >/dev/null || die "dkms build: $ko has no C++ core (tgc_engine_receive)"

# BUILD_EXCLUSIVE_KERNEL: an unsupported release is refused before any compiler runs (dkms exit 77).
rc=0
dkms build -m tungro -v "$version" -k 6.6.0-99-amd64 "${private[@]}" >"$tmp/exclusive.log" 2>&1 || rc=$?
if [ "$rc" -ne 77 ] || ! grep -q BUILD_EXCLUSIVE "$tmp/exclusive.log"; then
  die "dkms build for 6.6.0-99-amd64: expected a BUILD_EXCLUSIVE refusal (exit 77), got exit $rc: $(cat "$tmp/exclusive.log")"
fi

[ "$(system_state)" = "$before" ] || die "dkms test changed /usr/src, /var/lib/dkms or /lib/modules/$release"
log "dkms: tungro $version built by dkms for $release in $secs s ($(stat -c %s "$ko") bytes, vermagic $vermagic);" \
  "6.6.0-99-amd64 refused by BUILD_EXCLUSIVE_KERNEL; system dkms state untouched"
