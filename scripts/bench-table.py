#!/usr/bin/env python3
"""One table from make bench's two measurements: Google Benchmark's JSON (ns per segment, segments per second) and
the callgrind dumps of bench_gro --callgrind (instructions per segment, and tungro's cost per stage from
callgrind_annotate's inclusive counts).

usage: bench-table.py BENCH_JSON CALLGRIND_DIR
"""
import glob
import json
import os
import re
import subprocess
import sys

# tungro's stages. The receive path is inlined into tgc_engine_receive (the predicted stage) and receive_slow (the
# rest: one loop, receive.hpp), so per-function inclusive counts cannot split it: each instruction's source line
# (callgrind's line positions, inlined code included) is mapped to the function of the core that line belongs to,
# and that function to a stage. Lines of the
# byte-load helpers (be.hpp, headers.hpp) that the compiler kept apart count to the loop.
STAGE_OF = {
    "parse": "parse", "parse_ip": "parse", "set_extent": "parse", "is_ipv6_ext": "parse", "is_tunnel_proto": "parse",
    "ipv4_hdr_sum": "parse",
    "mix": "hash", "mix_l3": "hash", "tgc_flow_hash": "hash",
    "is_flow_of": "lookup", "rx_find": "lookup", "same_flow": "lookup", "same_l3": "lookup",
    "decide": "decide", "merge_flush": "decide", "l3_flush": "decide", "short_of_mss": "decide",
    "rx_append": "append", "bench_append": "append",
    "complete": "complete", "flush_bucket": "complete", "tgc_engine_flush": "complete", "bench_complete": "complete",
    "tgc_finish": "complete", "tgc_complete": "complete", "tgc_fix_ipv4": "complete", "pseudo_sum": "complete",
    "csum_add_bytes": "complete", "csum_fold": "complete",
    "fix_ipv4": "complete", "complete_inner": "complete",
    "hold": "hold", "slot_for": "hold",
    # the receive loop's fast stage (fastpath.hpp) and the engine's candidates for it (EngineOps::expected, fast;
    # the recent-flow index)
    "fast_shape": "fast", "template_match": "fast", "ip_template_diff": "fast", "ipv4_sum_kept": "fast",
    "ip_fields_ok": "fast", "fast_merge": "fast", "expected": "fast", "fast": "fast", "recent_key": "fast",
    "remember": "fast", "predicted_flow": "fast", "predicted": "fast", "predict_start": "fast",
    "predict_next": "fast", "predict_id": "fast", "predict_step": "fast", "step_id": "fast", "ip_len_is": "fast",
    "predicted_of": "fast", "pred_shape": "fast", "pred_candidate": "fast", "pred_diff": "fast",
    "pred_shape_of": "fast", "pred_ports": "fast", "pred_fits": "fast", "start_prediction": "fast",
    "pred_off": "fast", "pred_on": "fast",
    "ip_id_rule": "decide", "merge_verdict": "decide", "held_of": "lookup",
    "append_stage": "append", "full_receive": "loop",
    # names since perf9 flattened the slow path: the rules' inline copy, the inline flush, the IPv4 header sum in
    # host order (only the parse calls it on the receive path; tgc_finish's own copy counts to complete)
    "decide_inline": "decide", "layers_flush": "decide", "udp_merge_flush": "decide", "tgc_pkt_is_udp": "decide",
    "complete_flow": "complete", "ipv4_set_check": "complete", "finish_tcp4": "complete",
    "mask_field": "fast", "mask_ipv4": "fast", "pred_ipv4_diff": "fast",
    "ipv4_hdr_ok": "parse", "ipv4_hdr_sum_raw": "parse", "fold_words": "parse", "tunnel_of": "parse",
    "store32": "loads", "store_raw16": "loads",
    # the same stages before the loop was inlined (for a "before" table of an older core)
    "tgc_parse": "parse", "tgc_same_flow": "lookup", "tgc_decide": "decide", "tgc_receive": "loop",
    "load16": "loads", "load32": "loads", "ip_version": "loads", "words_equal": "loads", "store16": "loads",
}
# Helpers several stages call: counted to the stage of the function they run in.
HELPERS = {"csum_add_bytes", "csum_fold", "pseudo_sum", "load16", "load32", "ip_version", "words_equal", "store16",
           "raw16", "raw32", "raw64", "words_diff", "ipv4_hdr_sum_raw", "fold_words", "store32", "store_raw16",
           "raw_of_be16", "ipv4_sum_with_len"}
STAGES = ["fast", "parse", "hash", "lookup", "decide", "append", "hold", "complete", "loop"]
DEF = re.compile(r"^(?:template <[^>]*> )?(?:__attribute__\(\([^)]*\)\) )?(?:static |extern \"C\" |inline |constexpr )*"
                 r"[A-Za-z_][\w:<>*& ]*?\b([A-Za-z_]\w*)\(")
_enclosing = {}
DEBUG = False


TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def source(path):
    """This checkout's copy of a source file the debug info names. ccache (CCACHE_NOHASHDIR, a shared cache) hands
    a fresh clone objects compiled in another checkout, whose debug info names that checkout's paths (gone, or
    another version): a core file is taken from this tree by its path from cxxcore/ on (ccache's hit means the
    same source bytes). None for files outside the core (libc, DPDK)."""
    cut = path.rfind("/cxxcore/")
    if cut >= 0:
        mine = os.path.join(TOP, path[cut + 1:])
        if not os.path.exists(mine):
            sys.exit(f"bench-table: {path}: no {mine} in this checkout to map its lines to functions")
        return mine
    return path if os.path.exists(path) else None


def enclosing(path, line):
    """The function whose definition a source line belongs to (the last definition above it: at column 0, or a
    member function of a class, one tab in, whose body's brace opens the next line)."""
    if path not in _enclosing:
        names, cur = [], None
        mine = source(path)
        lines = open(mine, errors="replace").read().split("\n") if mine else []
        for i, text in enumerate(lines):
            m = DEF.match(text)
            if m and not text.rstrip().endswith(";") and not text.startswith(("return", "if", "else")):
                cur = m.group(1)
            elif (text.startswith("\t") and not text.startswith("\t\t") and i + 1 < len(lines) and
                  lines[i + 1] == "\t{"):
                m = DEF.match(text[1:])
                if m and m.group(1) not in ("if", "for", "while", "switch", "return"):
                    cur = m.group(1)
            names.append(cur)
        _enclosing[path] = names
    names = _enclosing[path]
    return names[line - 1] if 0 < line <= len(names) else None


def stages(path):
    """Instructions per stage of one callgrind dump (self costs by source line; call costs skipped)."""
    names = {"fl": {}, "fn": {}}
    out = {}
    fn = fl = cur = None
    line = 0
    skip = False
    for raw in open(path, errors="replace"):
        raw = raw.rstrip("\n")
        m = re.match(r"^(fl|fi|fe|fn|cfi|cfl|cfn|cob|ob)=\((\d+)\)(?: (.*))?$", raw)
        if m:
            kind, ident, name = m.group(1), m.group(2), m.group(3)
            # One table of file names for fl, fi, fe, cfi and cfl (callgrind numbers files once for all of
            # them: an inlined stretch "fe=(N)" names a file first given as "fl=(N) path"), one for functions.
            table = {"fi": "fl", "fe": "fl", "cfi": "fl", "cfl": "fl", "cfn": "fn"}.get(kind, kind)
            if table in names:
                if name is not None:
                    names[table][ident] = name
                name = names[table].get(ident)
            if kind == "fl":
                fl = cur = name
            elif kind in ("fi", "fe"):
                cur = name
            elif kind == "fn":
                fn, cur = name, fl
            continue
        if raw.startswith("calls="):
            skip = True
            continue
        m = re.match(r"^([+-]?\d+|\*) (\d+)$", raw)
        if not m:
            continue
        pos = m.group(1)
        line = line + int(pos) if pos[0] in "+-" else (line if pos == "*" else int(pos))
        if skip:
            skip = False
            continue
        cost = int(m.group(2))
        base = re.sub(r"\(.*", "", (fn or "").replace("(anonymous namespace)::", "")).split("::")[-1]
        src = enclosing(cur, line) if cur else None
        if base in ("tgc_engine_receive", "tgc_engine_receive_burst", "receive_slow") or (base == "tungro_run" and src != "tungro_run"):
            # The inlined receive path: the line's own function says the stage (a helper inlined there: the one
            # stage that calls it in the loop, ipv4_hdr_sum's parse, else the loop).
            stage = STAGE_OF.get(src, "loop")
            if stage in ("loads", "complete") and src in HELPERS:
                stage = "loop"
        elif base == "tungro_run":
            stage = "bench"
        elif src in HELPERS or src is None:
            # A helper in a function of its own: that function's stage.
            stage = STAGE_OF.get(base) or STAGE_OF.get(src) or "other"
        else:
            stage = STAGE_OF.get(src) or STAGE_OF.get(base) or "other"
        if stage == "other" and DEBUG:
            print("other:", base, cur, line, src, cost)
        out[stage] = out.get(stage, 0) + cost
    return out


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


def main():
    bench = json.load(open(sys.argv[1]))
    cg = dumps(sys.argv[2])
    rows = {}
    for b in bench["benchmarks"]:
        if b.get("error_occurred"):
            sys.exit(f"bench: {b['name']}: {b.get('error_message')}")
        scen, eng = b["name"].split("/")[:2]
        rows.setdefault(scen, {})[eng] = (1e9 / b["items_per_second"], b["items_per_second"])
    # bench_gro's own order of scenarios (its callgrind run takes them in turn, one dump each, numbered in
    # order); Google Benchmark's JSON has them in the random order of the interleaved repetitions.
    def part(path):
        return int(path.rsplit(".", 1)[1])
    first = {}
    for (scen, _), (_, _, path) in cg.items():
        first[scen] = min(first.get(scen, part(path)), part(path))
    order = sorted(dict.fromkeys(b["name"].split("/")[0] for b in bench["benchmarks"]),
                   key=lambda scen: (first.get(scen, 1 << 30), scen))

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
    print("tungro per stage, instructions per segment (callgrind, each source line to its function of the core: "
          "fast = the fast stage (header template, its rules, the engine's candidates), "
          "parse, hash, lookup = flow table walk + same_flow, decide = the rules, append, hold = new flow, complete ="
          " completion and flush incl. the bench's op and tgc_finish, loop = the receive"
          " loop and engine bookkeeping, byte loads inlined anywhere included):")
    labels = STAGES + ["other", "total"]
    print(f"{'scenario':<19}" + "".join(f"{l:>9}" for l in labels))
    for scen in order:
        c = cg.get((scen, "tungro"))
        if not c:
            continue
        st = stages(c[2])
        segs = c[1]
        other = sum(v for k, v in st.items() if k not in STAGES)
        vals = [st.get(k, 0) for k in STAGES] + [other, sum(st.values())]
        print(f"{scen:<19}" + "".join(f"{v / segs:>9.1f}" for v in vals))


if __name__ == "__main__":
    main()
