#!/usr/bin/env bash
# Build check: every parameter of each module has a description (MODULE_PARM_DESC) that states its default,
# so `modinfo MODULE.ko` documents it. modinfo's parmtype lists every module_param; parm only those with a
# description.
# usage: scripts/check-modinfo.sh MODULE.ko...
set -euo pipefail
fail=0 total=0
for ko in "$@"; do
  declare -A desc=()
  while IFS= read -r line; do
    [ -n "$line" ] && desc[${line%%:*}]=${line#*:}
  done < <(modinfo -F parm "$ko")
  while IFS= read -r line; do
    [ -n "$line" ] || continue
    name=${line%%:*} total=$((total + 1))
    if [ -z "${desc[$name]:-}" ]; then
      echo "check-modinfo: FAIL: ${ko##*/}: parameter $name has no MODULE_PARM_DESC" >&2; fail=1
    elif ! grep -q 'default' <<<"${desc[$name]}"; then
      echo "check-modinfo: FAIL: ${ko##*/}: the description of $name does not state its default" >&2; fail=1
    fi
  done < <(modinfo -F parmtype "$ko")
  unset desc
done
[ "$fail" -eq 0 ] && echo "check-modinfo: $total parameters in $# modules, each described with its default"
exit "$fail"
