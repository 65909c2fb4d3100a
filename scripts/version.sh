#!/usr/bin/env bash
# Prints tungro's version, from git: the newest tag vX.Y... without the v when the checkout has one
# (git describe: v1.2, or v1.2-3-gabcdef0 past it), else 0.0.<commits>+g<abbreviated commit>; ".dirty" is
# appended when tracked files differ from the commit. Used as the DKMS package version (dkms.conf).
# usage: scripts/version.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if v=$(git describe --tags --match 'v[0-9]*' 2>/dev/null); then
  v=${v#v}
else
  v="0.0.$(git rev-list --count HEAD)+g$(git rev-parse --short=12 HEAD)"
fi
git diff --quiet HEAD -- 2>/dev/null || v="$v.dirty"
echo "$v"
