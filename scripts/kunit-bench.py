#!/usr/bin/env python3
"""Summarises the BENCH lines of KUnit suite tungro_bench (kunit/bench_kunit.c) from a KTAP file.

usage: scripts/kunit-bench.py [--unit ns|instructions] KTAP RAN_ON
  --unit  what the suite's ktime deltas count: ns (default), or guest instructions when QEMU ran with
          -icount shift=0 (TUNGRO_ICOUNT=1: one virtual ns per instruction)
  KTAP    the module's KTAP block (scripts/kunit.sh writes build/ARCH/kunit/ktap.txt)
  RAN_ON  "arch=... kernel=..." of the guest, printed in the heading

Prints, per train and path, ns per wire segment and its ratio to the kernel's GRO in the same rep, each as the
median over reps with a distribution-free 95% interval (order statistics of the binomial): a vCPU descheduled
by a busy host makes a few reps many times slower, which would swing a mean and its t interval. engine+rx is the engine's own run plus the device's
receive path with GRO off (gro_off): what an attached device pays per wire segment in all. Engine runs that were
left to ksoftirqd are not timed and are left out (counted). Exit 1 when there are no BENCH lines; timing is never
a gate here.
"""
import math
import re
import statistics
import sys
from collections import defaultdict

PATHS = ["kernel", "offloads", "engine", "gro_off", "engine+rx"]
LINE = re.compile(r"BENCH train=(\S+) path=(\S+) rep=(\d+) ns=(\d+) segs=(\d+) pkts=(\d+) deferred=(\d)")


def median_ci(xs):
    """Median and the bounds of its 95% interval: the order statistics x(k) and x(n+1-k) for the largest k with
    P(Binomial(n, 1/2) < k) <= 2.5%; the whole range when n is too small for one (n < 6)."""
    xs = sorted(xs)
    n = len(xs)
    k, below = 0, 0.0
    while True:
        below_next = below + math.comb(n, k) / 2 ** n
        if below_next > 0.025:
            break
        below, k = below_next, k + 1
    lo, hi = (xs[k - 1], xs[n - k]) if k >= 1 else (xs[0], xs[-1])
    return statistics.median(xs), lo, hi


def main(argv):
    unit = "ns"
    if len(argv) >= 3 and argv[1] == "--unit":
        unit = argv[2]
        argv = argv[:1] + argv[3:]
    if len(argv) != 3 or unit not in ("ns", "instructions"):
        sys.stderr.write(__doc__)
        return 2
    path, ran_on = argv[1], argv[2]
    short = "ns/seg" if unit == "ns" else "insn/seg"
    runs = defaultdict(dict)   # (train, rep) -> path -> (ns or instructions per segment, segments per GRO packet)
    deferred = defaultdict(int)
    order = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = LINE.search(line)
            if not m:
                continue
            train, p, rep, ns, segs, pkts, dfr = m.groups()
            if train not in order:
                order.append(train)
            if dfr == "1":
                deferred[train] += 1
                continue
            runs[(train, int(rep))][p] = (int(ns) / int(segs), int(segs) / int(pkts))
    if not runs:
        print(f"kunit-bench: no BENCH lines in {path}", file=sys.stderr)
        return 1
    for key, r in runs.items():
        if "engine" in r and "gro_off" in r:
            r["engine+rx"] = (r["engine"][0] + r["gro_off"][0], r["engine"][1])
    print(f"tungro_bench on {ran_on}: {unit} per wire segment, median [95% CI] over reps; ratio = path / kernel in the"
          " same rep, median [95% CI]; under emulation these are reported, never a gate")
    print(f"{'train':<12} {'path':<10} {'reps':>4} {short:>9} {'[95% CI]':<19} {'ratio':>6} {'[95% CI]':<15}"
          f" {'segs/GRO':>8}")
    for train in order:
        reps = sorted(rep for (t, rep) in runs if t == train)
        for p in PATHS:
            ns = [runs[(train, rep)][p][0] for rep in reps if p in runs[(train, rep)]]
            if not ns:
                continue
            spg = statistics.fmean(runs[(train, rep)][p][1] for rep in reps if p in runs[(train, rep)])
            ratios = [runs[(train, rep)][p][0] / runs[(train, rep)]["kernel"][0] for rep in reps
                      if p in runs[(train, rep)] and "kernel" in runs[(train, rep)]]
            m, lo, hi = median_ci(ns)
            rm, rlo, rhi = median_ci(ratios) if ratios else (float("nan"),) * 3
            print(f"{train:<12} {p:<10} {len(ns):>4} {m:>9.1f} [{lo:>7.1f},{hi:>8.1f}]  {rm:>6.3f}"
                  f" [{rlo:.3f},{rhi:.3f}] {spg:>8.2f}")
            print(f"KBENCH {ran_on} train={train} path={p} reps={len(ns)} unit={unit} per_seg={m:.1f} ci_lo={lo:.1f}"
                  f" ci_hi={hi:.1f} ratio={rm:.4f} ratio_lo={rlo:.4f} ratio_hi={rhi:.4f} segs_per_gro={spg:.2f}")
        if deferred[train]:
            print(f"{train:<12} (engine runs left to ksoftirqd, not timed: {deferred[train]})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
