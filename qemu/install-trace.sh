#!/bin/bash
# tungro's tracepoints from perf, trace-cmd and bpftrace, in the fresh Debian 12 guest of make test-install:
# qemu/install-check.sh runs it (from the check disk, as trace.sh) after modprobe tungro, one subcommand per
# step. The traffic is one TCP transfer through an IPIP tunnel between two network namespaces joined by a veth
# pair whose receiving end does GRO (veth's NAPI: GRO requested on an up veth; TSO off on the sender, or
# veth_xmit hands the frames to netif_rx, whose backlog runs no GRO), so the kernel's GRO calls tungro's IPIP
# offload slot for every segment. Each tool records tungro:tungro_flush around that transfer and must see
# events; per reason, what it saw must not exceed the increase of debugfs' flush_<reason> (tungro/stats) read
# before and after the tool ran (the events are emitted exactly where the counter counts).
# Lines starting with "TRACE " are the ones the check copies to its results.
# usage: trace.sh setup|traffic|counters|perf-stat|perf-record|trace-cmd|bpftrace
set -uo pipefail
tx=tungro-tx rx=tungro-rx       # the namespaces: the sender and the GRO receiver
port=5201 bytes=${TUNGRO_TRACE_BYTES:-2M}
work=/root/tungro-trace
stats=/sys/kernel/debug/tungro/stats
me=$(readlink -f "$0")

say() { echo "TRACE $*"; }
die() { say "FAILED: $*"; exit 1; }
# run COMMAND...: prints the command as typed (to stderr: the console), then runs it
run() { echo "+ $*" >&2; "$@"; }

# val KEY FILE: KEY's value in a saved copy of debugfs' stats (0 when absent)
val() { awk -v k="$1" '$1 == k { v = $2 } END { print v + 0 }' "$2"; }

# check TOOL COUNTS: COUNTS has "reason count" lines of what TOOL saw between the stats copies s0 and s1;
# prints them beside the counters' increase and fails on no events or a reason above its counter's increase.
check() {
  local tool=$1 counts=$2 total=0 bad=0 reason n d
  while read -r reason n; do
    [ -n "$reason" ] || continue
    d=$(( $(val "flush_$reason" "$work/s1") - $(val "flush_$reason" "$work/s0") ))
    say "$tool: reason $reason: $n events, debugfs flush_$reason +$d"
    total=$((total + n))
    (( n <= d )) || { say "$tool: $reason: more events ($n) than debugfs counted (+$d)"; bad=1; }
  done <"$counts"
  say "$tool: $total events; debugfs over the same run: seen +$(( $(val seen "$work/s1") - $(val seen "$work/s0") ))," \
    "merged +$(( $(val merged "$work/s1") - $(val merged "$work/s0") ))"
  (( total > 0 )) || die "$tool: no tungro_flush events"
  (( bad == 0 )) || die "$tool: events and debugfs disagree"
  say "$tool: ok"
}

# reasons FILE: "reason count" lines from the reason=<name> fields of perf script's or trace-cmd report's lines
reasons() { grep -o 'reason=[a-z0-9_]*' "$1" | cut -d= -f2 | sort | uniq -c | awk '{ print $2, $1 }'; }

setup() {
  mkdir -p "$work"
  mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug || die "mount debugfs"
  mountpoint -q /sys/kernel/tracing || mount -t tracefs tracefs /sys/kernel/tracing || die "mount tracefs"
  [ -r "$stats" ] || die "no $stats (tungro not loaded?)"
  [ -r /sys/kernel/tracing/events/tungro/tungro_flush/format ] || die "no events/tungro/tungro_flush in tracefs"
  run ip netns add "$tx" || die "ip netns add $tx"
  run ip netns add "$rx" || die "ip netns add $rx"
  run ip link add veth-tx type veth peer name veth-rx || die "ip link add veth"
  run ip link set veth-tx netns "$tx" || die "veth-tx into $tx"
  run ip link set veth-rx netns "$rx" || die "veth-rx into $rx"
  local ns dev me_ip peer_ip me_in peer_in
  for ns in "$tx" "$rx"; do
    if [ "$ns" = "$tx" ]; then dev=veth-tx me_ip=10.200.0.1 peer_ip=10.200.0.2 me_in=10.201.0.1 peer_in=10.201.0.2
    else dev=veth-rx me_ip=10.200.0.2 peer_ip=10.200.0.1 me_in=10.201.0.2 peer_in=10.201.0.1; fi
    run ip -n "$ns" link set lo up || die "lo up in $ns"
    run ip -n "$ns" addr add "$me_ip/24" dev "$dev" || die "address of $dev"
    run ip -n "$ns" link set "$dev" up || die "$dev up"
    # on an up veth, GRO on enables its NAPI (6.1's veth_set_features); TSO off keeps the frames eligible
    run ip netns exec "$ns" ethtool -K "$dev" gro on tso off || die "ethtool -K $dev"
    run ip -n "$ns" link add tun0 type ipip local "$me_ip" remote "$peer_ip" dev "$dev" || die "ipip tunnel in $ns"
    run ip -n "$ns" addr add "$me_in" peer "$peer_in/32" dev tun0 || die "address of tun0 in $ns"
    run ip -n "$ns" link set tun0 up || die "tun0 up in $ns"
  done
  ip netns exec "$rx" ethtool -k veth-rx | grep -E '^(generic-receive-offload|tcp-segmentation-offload):'
  ip netns exec "$tx" ethtool -k veth-tx | grep -E '^tcp-segmentation-offload:'
  # how the format file names encap's values: enum names (TGC_ENCAP_IPIP) are left for user space to resolve
  say "setup: format: $(grep -o 'REC->encap, { [^}]*}' /sys/kernel/tracing/events/tungro/tungro_flush/format)"
  ip -n "$rx" -d link show tun0 | sed -n 's/^ *\(ipip .*\)/\1/p' | head -n 1 | sed 's/^/TRACE setup: rx tun0: /'
  say "setup: namespaces $tx, $rx; veth-tx/veth-rx 10.200.0.0/24 (veth-rx: GRO on), IPIP tun0 10.201.0.1 -> 10.201.0.2"
}

# One TCP transfer of $bytes through the tunnel: a listener in $rx, bash's /dev/tcp in $tx. The tools run this.
traffic() {
  local l
  ip netns exec "$rx" timeout 120 nc -d -l 10.201.0.2 "$port" >/dev/null &
  l=$!
  for _ in $(seq 100); do
    ip netns exec "$rx" ss -Hltn "sport = :$port" | grep -q . && break
    sleep 0.1
  done
  ip netns exec "$tx" timeout 120 bash -c "head -c $bytes /dev/zero >/dev/tcp/10.201.0.2/$port" ||
    { kill "$l" 2>/dev/null; echo "traffic: the transfer failed" >&2; return 1; }
  wait "$l"
}

snap() { cat "$stats" >"$work/$1"; }

counters() {
  snap s0
  run "$me" traffic || die "traffic"
  snap s1
  local k d seen
  seen=$(( $(val seen "$work/s1") - $(val seen "$work/s0") ))
  for k in seen held merged passed completed; do
    say "debugfs: $k +$(( $(val $k "$work/s1") - $(val $k "$work/s0") ))"
  done
  awk '$1 ~ /^flush_/ { print $1 }' "$work/s1" | while read -r k; do
    d=$(( $(val "$k" "$work/s1") - $(val "$k" "$work/s0") ))
    (( d == 0 )) || say "debugfs: $k +$d"
  done
  (( seen > 0 )) || die "tungro saw no segment of the transfer (debugfs seen +0): no GRO on veth-rx?"
  say "counters: ok ($bytes bytes through the tunnel, tungro saw $seen segments)"
}

perf_stat() {
  local n v
  # bookworm's linux-perf 6.1.* installs the binary as /usr/bin/perf itself, diverting linux-base's perf
  # wrapper (which would look for perf_<version>) to perf.linux-base
  v=$(perf version) || die "perf version failed"
  say "perf stat: $v ($(command -v perf) of $(dpkg -S /usr/bin/perf | grep -v '^diversion' | cut -d: -f1);" \
    "$(dpkg-divert --list /usr/bin/perf)); kernel $(uname -r)"
  [[ $v == "perf version 6.1."* ]] || die "perf is not 6.1's ($v) on $(uname -r)"
  snap s0
  run perf stat -e tungro:tungro_flush -a -- "$me" traffic 2>"$work/perf-stat.txt" || { cat "$work/perf-stat.txt"; die "perf stat failed"; }
  snap s1
  cat "$work/perf-stat.txt"
  grep 'tungro:tungro_flush' "$work/perf-stat.txt" | sed 's/^ */TRACE perf stat: /; s/ *$//'
  n=$(awk '$2 == "tungro:tungro_flush" { gsub(/[,.]/, "", $1); print $1 }' "$work/perf-stat.txt")
  [ -n "$n" ] || die "perf stat printed no count for tungro:tungro_flush"
  # perf stat counts, it has no reasons: its total against the sum of the flush counters' increases
  local sum
  sum=$(awk 'NR == FNR { if ($1 ~ /^flush_/) a[$1] = $2; next } $1 ~ /^flush_/ { s += $2 - a[$1] } END { print s + 0 }' \
    "$work/s0" "$work/s1")
  say "perf stat: $n events; debugfs flush_* over the same run +$sum"
  (( n > 0 )) || die "perf stat: no tungro_flush events"
  (( n <= sum )) || die "perf stat: more events ($n) than debugfs counted (+$sum)"
  say "perf stat: ok"
}

perf_record() {
  snap s0
  run perf record -e tungro:tungro_flush -a -o "$work/perf.data" -- "$me" traffic || die "perf record failed"
  snap s1
  run perf script -i "$work/perf.data" >"$work/perf-script.txt" 2>"$work/perf-script.err" ||
    { cat "$work/perf-script.err"; die "perf script failed"; }
  say "perf script: $(wc -l <"$work/perf-script.txt") lines, first and last:"
  sed -n '1p;$p' "$work/perf-script.txt" | sed 's/^ */TRACE perf script| /'
  grep -q 'tungro:tungro_flush:.*reason=.* layer=.* encap=.* hash=0x.* segs=.* bytes=.* ends=' "$work/perf-script.txt" ||
    die "perf script: no tungro_flush line with its fields"
  reasons "$work/perf-script.txt" >"$work/perf-reasons.txt"
  check "perf record" "$work/perf-reasons.txt"
}

trace_cmd() {
  trace-cmd version 2>/dev/null | grep -m1 version
  snap s0
  run trace-cmd record -o "$work/trace.dat" -e tungro:tungro_flush "$me" traffic || die "trace-cmd record failed"
  snap s1
  run trace-cmd report -i "$work/trace.dat" >"$work/trace-report.txt" 2>"$work/trace-report.err" ||
    { cat "$work/trace-report.err"; die "trace-cmd report failed"; }
  say "trace-cmd report: $(grep -c 'tungro_flush:' "$work/trace-report.txt") tungro_flush lines, first and last:"
  grep 'tungro_flush:' "$work/trace-report.txt" | sed -n '1p;$p' | sed 's/^ */TRACE trace-cmd report| /'
  grep -q 'tungro_flush:.*reason=.* layer=.* encap=.* hash=0x.* segs=.* bytes=.* ends=' "$work/trace-report.txt" ||
    die "trace-cmd report: no tungro_flush line with its fields"
  reasons "$work/trace-report.txt" >"$work/trace-cmd-reasons.txt"
  check trace-cmd "$work/trace-cmd-reasons.txt"
}

bpf_trace() {
  bpftrace --version
  # the fields bpftrace finds for the event (from tracefs' format file: no BTF for an out-of-tree module)
  bpftrace -lv 'tracepoint:tungro:tungro_flush' 2>&1 | sed 's/^/TRACE bpftrace -lv| /'
  snap s0
  # -c takes an ELF executable (bpftrace 0.17 checks with bcc_elf_is_exe): a script runs through bash.
  # reason_name is a char[16], a string to bpftrace already: str() of it is an error in 0.17 ("str() expects
  # an integer or a pointer type as first argument (string[16] provided)").
  # shellcheck disable=SC2016
  run bpftrace -e 'tracepoint:tungro:tungro_flush { @[args->reason_name] = count(); }' \
    -c "/bin/bash $me traffic" >"$work/bpftrace.txt" || { cat "$work/bpftrace.txt"; die "bpftrace failed"; }
  snap s1
  cat "$work/bpftrace.txt"
  grep '^@' "$work/bpftrace.txt" | sed 's/^/TRACE bpftrace| /'
  # One reason can print as several keys: the map key is all 16 bytes of reason_name, and what follows its
  # NUL is whatever the ring buffer held there before (strscpy() does not pad). Summed per name.
  sed -nE 's/^@\[([a-z0-9_]+)\]: ([0-9]+)$/\1 \2/p' "$work/bpftrace.txt" |
    awk '{ n[$1] += $2; k[$1]++ } END { for (r in n) print r, n[r], k[r] }' | sort >"$work/bpftrace-keys.txt"
  awk '$3 > 1 { print "TRACE bpftrace: reason " $1 ": " $3 " map keys (bytes after the NUL differ), summed" }' \
    "$work/bpftrace-keys.txt"
  cut -d' ' -f1,2 "$work/bpftrace-keys.txt" >"$work/bpftrace-reasons.txt"
  check bpftrace "$work/bpftrace-reasons.txt"
}

[ $# -eq 1 ] || { echo "usage: trace.sh setup|traffic|counters|perf-stat|perf-record|trace-cmd|bpftrace" >&2; exit 1; }
mkdir -p "$work"
case "$1" in
  setup) setup ;;
  traffic) traffic ;;
  counters) counters ;;
  perf-stat) perf_stat ;;
  perf-record) perf_record ;;
  trace-cmd) trace_cmd ;;
  bpftrace) bpf_trace ;;
  *) echo "trace.sh: unknown step $1" >&2; exit 1 ;;
esac
