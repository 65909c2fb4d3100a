#!/usr/bin/env bash
# make dkms-install / make dkms-remove: tungro under DKMS, so every kernel the package manager installs
# gets its tungro.ko (AUTOINSTALL in dkms.conf), as with any other DKMS module.
#   install [RELEASE]  copies the sources to /usr/src/tungro-<version> (version from scripts/version.sh),
#                      dkms add, build and install for RELEASE (default: the running kernel), which needs
#                      its headers (/lib/modules/RELEASE/build); then modprobe tungro loads it
#   remove             dkms remove of every tungro version, for every kernel, and their /usr/src copies
# Needs root and dkms (apt-get install dkms). Signing: dkms signs with its MOK key where the kernel's
# sign-file is installed (README, Troubleshooting).
# usage: scripts/dkms.sh install [RELEASE] | remove
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/lib.sh"
cmd=${1:-}
command -v dkms >/dev/null || die "dkms is not installed (apt-get install dkms)"
[ "$(id -u)" -eq 0 ] || die "dkms $cmd writes /usr/src, /var/lib/dkms and /lib/modules: run as root"

case "$cmd" in
  install)
    release=${2:-$(uname -r)}
    if [ "$release" = "$(uname -r)" ]; then
      "$here/scripts/check-kdir.sh" "/lib/modules/$release/build" running
    else
      [ -d "/lib/modules/$release/build" ] || die "no headers for kernel $release (/lib/modules/$release/build)"
    fi
    version=$("$here/scripts/version.sh")
    # The same version again (sources changed without a commit) replaces the registered one.
    if dkms status -m tungro -v "$version" | grep -q .; then
      dkms remove -m tungro -v "$version" --all
    fi
    dkms_stage "$here" /usr/src >/dev/null
    dkms add -m tungro -v "$version"
    dkms build -m tungro -v "$version" -k "$release"
    # A tungro.ko that make install put there (updates/; extra/ on 6.1 before it named updates) is one dkms
    # finds and cannot compare (tungro.ko has no version): it prints "DKMS will not replace this module",
    # installs nothing and exits 0, dkms status says installed, and modprobe keeps loading that copy, for this
    # and every later version. DKMS owns tungro for this kernel from here: that copy goes.
    for f in "/lib/modules/$release"/{updates,extra}/tungro.ko*; do
      [ -f "$f" ] || continue
      log "dkms: removing $f (make install's copy): DKMS installs tungro for $release instead"
      rm -f "$f"
    done
    dkms install -m tungro -v "$version" -k "$release"
    log "dkms: tungro $version installed for $release: modprobe tungro"
    ;;
  remove)
    versions=$(dkms status -m tungro | sed -nE 's#^tungro/([^,:]+)[,:].*#\1#p' | sort -u)
    for v in $versions; do
      dkms remove -m tungro -v "$v" --all
      rm -rf "/usr/src/tungro-$v"
    done
    log "dkms: removed tungro ${versions:-(none registered)}"
    ;;
  *) die "usage: scripts/dkms.sh install [RELEASE] | remove" ;;
esac
