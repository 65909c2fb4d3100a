#!/usr/bin/env python3
"""Summarises the BENCH lines of KUnit suite tungro_bench (kunit/bench_kunit.c) from a KTAP file.

usage: scripts/kunit-bench.py KTAP RAN_ON
  KTAP    the module's KTAP block (scripts/kunit.sh writes build/ARCH/kunit/ktap.txt)
  RAN_ON  "arch=... kernel=..." of the guest, printed in the heading

Prints, per train and path, ns per wire segment (mean over reps, 95% t interval) and the ratio to the kernel's
GRO in the same rep (mean of per-rep ratios, 95% interval). engine+rx is the engine's own run plus the device's
receive path with GRO off (gro_off): what an attached device pays per wire segment in all. Engine runs that were
left to ksoftirqd are not timed and are left out (counted). Exit 1 when there are no BENCH lines; timing is never
a gate here.
"""
import math
import re
import statistics
import sys
from collections import defaultdict

# two-sided 95% Student t quantiles by degrees of freedom (1..30); 1.96 beyond
T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
       2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]
PATHS = ["kernel", "offloads", "engine", "gro_off", "engine+rx"]
LINE = re.compile(r"BENCH train=(\S+) path=(\S+) rep=(\d+) ns=(\d+) segs=(\d+) pkts=(\d+) deferred=(\d)")


def mean_ci(xs):
    """Mean and half-width of its 95% interval (0 for fewer than 2 values)."""
    m = statistics.fmean(xs)
    if len(xs) < 2:
        return m, 0.0
    t = T95[len(xs) - 2] if len(xs) - 1 <= len(T95) else 1.96
    return m, t * statistics.stdev(xs) / math.sqrt(len(xs))


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    path, ran_on = argv[1], argv[2]
    runs = defaultdict(dict)   # (train, rep) -> path -> (ns per segment, segments per GRO packet)
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
    print(f"tungro_bench on {ran_on}: ns per wire segment, mean [95% CI] over reps; ratio = path / kernel in the"
          " same rep, mean [95% CI]; under emulation these are reported, never a gate")
    print(f"{'train':<12} {'path':<10} {'reps':>4} {'ns/seg':>9} {'[95% CI]':<19} {'ratio':>6} {'[95% CI]':<15}"
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
            m, h = mean_ci(ns)
            rm, rh = mean_ci(ratios) if ratios else (float("nan"), 0.0)
            print(f"{train:<12} {p:<10} {len(ns):>4} {m:>9.1f} [{m - h:>7.1f},{m + h:>8.1f}]  {rm:>6.3f}"
                  f" [{rm - rh:.3f},{rm + rh:.3f}] {spg:>8.2f}")
            print(f"KBENCH {ran_on} train={train} path={p} reps={len(ns)} ns_per_seg={m:.1f} ci={h:.1f}"
                  f" ratio={rm:.4f} ratio_ci={rh:.4f} segs_per_gro={spg:.2f}")
        if deferred[train]:
            print(f"{train:<12} (engine runs left to ksoftirqd, not timed: {deferred[train]})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
