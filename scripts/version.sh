#!/usr/bin/env bash
# Prints tungro's version, from git: the newest tag vX.Y... without the v when the checkout has one
# (git describe: v1.2, or v1.2-3-gabcdef0 past it), else 0.0.<commits>+g<abbreviated commit>; ".dirty" is
# appended when tracked files differ from the commit. Used as the DKMS package version (dkms.conf).
# usage: scripts/version.sh
set -euo pipefail
cd "$(dirname "$0")/.."
# A source tree without git (a tarball or zip download, or no git installed): a VERSION file if the tree has one,
# else 0.0.0+nogit, so that make dkms-install still has a version to give DKMS.
if ! git rev-parse --git-dir >/dev/null 2>&1; then
  if [ -s VERSION ]; then head -n1 VERSION; else echo "0.0.0+nogit"; fi
  exit 0
fi
if v=$(git describe --tags --match 'v[0-9]*' 2>/dev/null); then
  v=${v#v}
else
  v="0.0.$(git rev-list --count HEAD)+g$(git rev-parse --short=12 HEAD)"
fi
git diff --quiet HEAD -- 2>/dev/null || v="$v.dirty"
echo "$v"
