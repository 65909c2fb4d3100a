#!/usr/bin/env bash
# Checks that a kernel build tree exists before `make` hands it to Kbuild, and says what to do if it does not.
# usage: scripts/check-kdir.sh KDIR running|KDIR
#   running: KDIR is /lib/modules/$(uname -r)/build (the default); KDIR: the user gave it.
# Never installs anything: plain `make` only builds (issue 11); set-up is make setup/demo/test's job.
set -euo pipefail
kdir=${1:?usage: scripts/check-kdir.sh KDIR running|KDIR} how=${2:-KDIR}
if [ -f "$kdir/Makefile" ] && { [ -f "$kdir/include/generated/autoconf.h" ] || [ -f "$kdir/.config" ]; }; then
  exit 0
fi
{
  if [ "$how" = running ]; then
    rel=$(uname -r)
    echo "[tungro] error: no build tree for the running kernel $rel: $kdir is missing or not prepared."
    # A Debian kernel says so in /proc/version; its headers package is named after the release.
    if grep -q 'Debian' /proc/version 2>/dev/null; then
      echo "[tungro]   this is a Debian kernel: apt-get install linux-headers-$rel"
    fi
    echo "[tungro]   or build against another prepared tree: make KDIR=/path/to/linux-build"
    echo "[tungro]   or against tungro's own test kernel (built and cached on first use): make module-test"
  else
    echo "[tungro] error: KDIR=$kdir is not a prepared kernel build tree (no Makefile plus .config or"
    echo "[tungro]   include/generated/autoconf.h there: run 'make modules_prepare' in it first)"
  fi
} >&2
exit 1
