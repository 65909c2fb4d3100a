#!/usr/bin/env python3
"""Names the guest instructions QEMU's tb-count plugin counted (qemu/profile/tb-count.c) by function, for two
boots that differ in one tungro_bench path only, and prints the instructions per wire segment each function ran in
each boot and their difference: where one path spends more than the other (scripts/guest-profile.sh).

usage: guest-profile.py --map System.map --ko tungro_kunit.ko --segs N A.dir:NAME B.dir:NAME ...
Each dir holds tb-count.txt and ktap.txt (its BENCHTEXT line gives where the kernel and the module were loaded).
"""
import argparse
import bisect
import os
import re
import subprocess
import sys
from collections import defaultdict


def kernel_symbols(path):
    syms = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3 and parts[1] in "tTwW":
                syms.append((int(parts[0], 16), parts[2]))
    syms.sort()
    return syms


def module_symbols(ko):
    """The module's .text functions: (offset, size, name), from objdump -t."""
    objdump = os.environ.get("OBJDUMP", "objdump")  # the cross one for m68k (guest-profile.sh)
    out = subprocess.run([objdump, "-t", ko], check=True, capture_output=True, text=True).stdout
    syms = []
    for line in out.splitlines():
        m = re.match(r"^([0-9a-f]+)\s.*\s(\.text)\s+([0-9a-f]+)\s+(\S+)$", line)
        if m and " F " in line:
            syms.append((int(m.group(1), 16), int(m.group(3), 16), m.group(4)))
    syms.sort()
    return syms


def anchors(ktap):
    with open(ktap) as f:
        for line in f:
            m = re.search(r"BENCHTEXT module=(\w+):([0-9a-f]+) kernel=(\w+):([0-9a-f]+)", line)
            if m:
                return m.group(1), int(m.group(2), 16), m.group(3), int(m.group(4), 16)
    sys.exit(f"guest-profile.py: no BENCHTEXT line in {ktap}")


def profile(run_dir, ksyms, kaddrs, msyms):
    mname, maddr, kname, kaddr = anchors(f"{run_dir}/ktap.txt")
    kdelta = kaddr - dict((n, a) for a, n in ksyms)[kname]
    mbase = maddr - next(o for o, _, n in msyms if n == mname)
    mend = mbase + max(o + s for o, s, _ in msyms)
    moffs = [o for o, _, _ in msyms]
    per = defaultdict(int)
    with open(f"{run_dir}/tb-count.txt") as f:
        for line in f:
            va, insns, execs = line.split()
            va, n = int(va, 16), int(insns) * int(execs)
            if mbase <= va < mend:
                i = bisect.bisect_right(moffs, va - mbase) - 1
                name = "[tungro] " + msyms[i][2] if i >= 0 else "[tungro] ?"
            else:
                i = bisect.bisect_right(kaddrs, va - kdelta) - 1
                name = ksyms[i][1] if 0 <= i < len(ksyms) and va >= kdelta else "[user]"
            per[name] += n
    return per


def blocks(run_dir, msyms, func, segs):
    """Per-block counts of one module function: where inside it the instructions go."""
    mname, maddr, _, _ = anchors(f"{run_dir}/ktap.txt")
    mbase = maddr - next(o for o, _, n in msyms if n == mname)
    match = [(o, s, n) for o, s, n in msyms if n == func] or [(o, s, n) for o, s, n in msyms if func in n]
    if len(match) != 1:
        sys.exit(f"guest-profile.py: {len(match)} module functions match '{func}'")
    off, size, name = match[0]
    print(f"blocks of {name} (offset, instructions, runs per segment, instructions per segment)")
    rows = []
    with open(f"{run_dir}/tb-count.txt") as f:
        for line in f:
            va, insns, execs = line.split()
            o = int(va, 16) - mbase - off
            if 0 <= o < size:
                rows.append((o, int(insns), int(execs)))
    for o, n, e in sorted(rows):
        print(f"  +{o:#06x} {n:4d} {e / segs:8.2f} {n * e / segs:8.1f}")
    print(f"  total {sum(n * e for _, n, e in rows) / segs:.1f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--map", required=True)
    ap.add_argument("--ko", required=True)
    ap.add_argument("--segs", type=int, required=True, help="wire segments each path ran in its boot")
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--blocks", metavar="FUNC", help="instead: the blocks of this module function in the other "
                    "boot, by offset (instructions, runs and instructions per segment)")
    ap.add_argument("runs", nargs=2, help="DIR:NAME of the base boot, then the other")
    a = ap.parse_args()
    ksyms = kernel_symbols(a.map)
    kaddrs = [x for x, _ in ksyms]
    msyms = module_symbols(a.ko)
    if a.blocks:
        blocks(a.runs[1].split(":", 1)[0], msyms, a.blocks, a.segs)
        return
    (da, na), (db, nb) = (r.split(":", 1) for r in a.runs)
    pa, pb = profile(da, ksyms, kaddrs, msyms), profile(db, ksyms, kaddrs, msyms)
    names = set(pa) | set(pb)
    rows = sorted(names, key=lambda n: -abs(pb.get(n, 0) - pa.get(n, 0)))
    s = a.segs
    print(f"guest instructions per wire segment, by function: {nb} against {na} "
          f"({s} segments each; the rest of the boot differs by its noise)")
    print(f"{'function':48} {na:>10} {nb:>10} {'diff':>9}")
    for n in rows[:a.top]:
        x, y = pa.get(n, 0) / s, pb.get(n, 0) / s
        print(f"{n[:48]:48} {x:10.1f} {y:10.1f} {y - x:+9.1f}")
    tot_a, tot_b = sum(pa.values()) / s, sum(pb.values()) / s
    print(f"{'whole boot':48} {tot_a:10.1f} {tot_b:10.1f} {tot_b - tot_a:+9.1f}")
    tung = sum(v for k, v in pb.items() if k.startswith("[tungro]")) - \
        sum(v for k, v in pa.items() if k.startswith("[tungro]"))
    print(f"{'tungro module, all functions':48} {'':10} {'':10} {tung / s:+9.1f}")


if __name__ == "__main__":
    main()
