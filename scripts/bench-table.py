#!/usr/bin/env python3
"""One table from make bench's two measurements: Google Benchmark's JSON (ns per segment, segments per second) and
the callgrind dumps of bench_gro --callgrind (instructions per segment, and tungro's cost per stage from
callgrind_annotate's inclusive counts).

usage: bench-table.py BENCH_JSON CALLGRIND_DIR
"""
import glob
import json
import re
import subprocess
import sys

# tungro's stages: (label, demangled-name pattern). Inclusive counts; the stages below do not call one another,
# so they add up, and "engine" is what is left of the receive loop (table walk, stats, ops dispatch).
STAGES = [
    ("parse", r"\btgc_parse\b"),
    ("hash", r"\btgc_flow_hash\b"),
    ("compare", r"\btgc_same_flow\b"),
    ("decide", r"\btgc_decide\b"),
    ("append", r"rx_append\b"),
    ("complete", r"bench_complete\("),
]
RUN = r"tungro_run\("


def dumps(cgdir):
    """{(scenario, engine): (instructions, segments, path)} from the dumps' trigger names."""
    out = {}
    for path in glob.glob(f"{cgdir}/cg.out.*.*"):
        with open(path, errors="replace") as f:
            text = f.read(4096)
        m = re.search(r"^desc: Trigger: Client Request: (\S+)/(\S+)/(\d+)$", text, re.M)
        t = re.search(r"^(?:summary|totals): (\d+)$", open(path, errors="replace").read(), re.M)
        if m and t:
            out[(m.group(1), m.group(2))] = (int(t.group(1)), int(m.group(3)), path)
    return out


def inclusive(path):
    """{function name: inclusive Ir} of one dump."""
    res = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", path],
                         capture_output=True, text=True, check=True).stdout
    out = {}
    for line in res.splitlines():
        m = re.match(r"\s*([\d,]+) \([^)]*\)\s+\S*?:(.*) \[", line)
        if m:
            out[m.group(2)] = out.get(m.group(2), 0) + int(m.group(1).replace(",", ""))
    return out


def main():
    bench = json.load(open(sys.argv[1]))
    cg = dumps(sys.argv[2])
    rows = {}
    for b in bench["benchmarks"]:
        if b.get("error_occurred"):
            sys.exit(f"bench: {b['name']}: {b.get('error_message')}")
        scen, eng = b["name"].split("/")[:2]
        rows.setdefault(scen, {})[eng] = (1e9 / b["items_per_second"], b["items_per_second"])
    order = list(dict.fromkeys(b["name"].split("/")[0] for b in bench["benchmarks"]))

    def ipseg(scen, eng):
        c = cg.get((scen, eng))
        return c[0] / c[1] if c else None

    fmt = lambda v, spec: format(v, spec) if v is not None else "-"
    print()
    print("ns/seg: wall clock (Google Benchmark, manual timing of the GRO calls); instr/seg: callgrind Ir;")
    print("ratio: tungro / DPDK (burst = rte_gro_reassemble_burst, heavy = rte_gro_reassemble + timeout flush)")
    hdr = (f"{'scenario':<19}{'engine':<11}{'ns/seg':>8}{'Mseg/s':>8}{'instr/seg':>10}"
           f"{'ns ratio':>10}{'instr ratio':>12}")
    print(hdr)
    print("-" * len(hdr))
    for scen in order:
        tg_ns = rows[scen]["tungro"][0]
        tg_ip = ipseg(scen, "tungro")
        for eng in ("tungro", "dpdk_burst", "dpdk_heavy"):
            if eng not in rows[scen]:
                continue
            ns, rate = rows[scen][eng]
            ip = ipseg(scen, eng)
            ns_r = ip_r = ""
            if eng != "tungro":
                ns_r = f"{tg_ns / ns:.2f}x"
                ip_r = f"{tg_ip / ip:.2f}x" if ip and tg_ip else "-"
            print(f"{scen:<19}{eng:<11}{ns:>8.1f}{rate / 1e6:>8.1f}{fmt(ip, '.0f'):>10}{ns_r:>10}{ip_r:>12}")
    print()
    print("tungro per stage, instructions per segment (callgrind inclusive counts of the core's functions):")
    labels = [s[0] for s in STAGES] + ["engine", "total"]
    print(f"{'scenario':<19}" + "".join(f"{l:>9}" for l in labels))
    for scen in order:
        c = cg.get((scen, "tungro"))
        if not c:
            continue
        inc = inclusive(c[2])
        segs = c[1]
        vals = []
        for _, pat in STAGES:
            vals.append(sum(v for k, v in inc.items() if re.search(pat, k)))
        run = sum(v for k, v in inc.items() if re.search(RUN, k))
        rest = run - sum(vals)
        print(f"{scen:<19}" + "".join(f"{v / segs:>9.1f}" for v in vals + [rest, run]))


if __name__ == "__main__":
    main()
