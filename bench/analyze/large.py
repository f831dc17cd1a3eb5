#!/usr/bin/env python3
# large.py [--mb 4,16,48] [--repeat 3] [--dir /tmp] - the one reader (core/read.c) on one
# large turn: `xperf validate FILE` (read, scan, parse, shape and rules) and `xperf analyze
# turn FILE` (the same, then the typed turn and the analysis) against a bare cJSON parse of
# the same file (bare_parse), side by side, alternating, after a warm-up pass. The turn is
# gen.py's coding-agent turn repeated until the file has the size asked (spans, marks and
# times shifted). For each size: wall and CPU seconds, peak RSS, and peak RSS over file
# size: what holding the whole document in memory costs. Medians and spread (min-max).
# Run from the repository root after `bazel build -c opt //cli:xperf //bench/analyze:bare_parse`.
import argparse
import json
import os
import random
import shutil
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen  # noqa: E402
from run import fmt, run  # noqa: E402


def shifted(block, dt, did):
    spans = [dict(s, id=s["id"] + did, start_ns=s["start_ns"] + dt, end_ns=s["end_ns"] + dt,
                  parent=s["parent"] + did if s["parent"] else None) for s in block["spans"]]
    for s in spans:
        a = s.get("attributes", {})
        if "xperf.token_times_ns" in a:
            s["attributes"] = dict(a, **{"xperf.token_times_ns":
                                         [x + dt for x in a["xperf.token_times_ns"]]})
    marks = {k: [dict(m, t_ns=m["t_ns"] + dt, span=m["span"] + did) for m in block[k]]
             for k in ("fused_marks", "waste_marks")}
    return spans, marks


def large_turn(path, mb):
    doc, size, dt, i = None, 0, 0, 0
    while size < mb * 1e6:
        i += 1
        block = gen.turn(i, random.Random(i))
        spans, marks = shifted(block, dt, len(doc["spans"]) if doc else 0)
        if doc is None:
            doc = dict(block, spans=spans, **marks)
        else:
            doc["spans"] += spans
            for k in marks:
                doc[k] += marks[k]
        dt += block["end_ns"]
        size += len(json.dumps(block, separators=(",", ":")))
    doc["end_ns"] = dt
    with open(path, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
    return len(doc["spans"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", default="4,16,48")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--dir", default=tempfile.gettempdir())
    ap.add_argument("--xperf", default="bazel-bin/cli/xperf")
    ap.add_argument("--bare", default="bazel-bin/bench/analyze/bare_parse")
    a = ap.parse_args()
    root = tempfile.mkdtemp(prefix="xperf-large-", dir=a.dir)
    print("| MB | spans | what | wall s | CPU s | peak RSS MiB | RSS / file |")
    print("|---|---|---|---|---|---|---|")
    try:
        for mb in [float(x) for x in a.mb.split(",")]:
            d = os.path.join(root, "s")
            os.makedirs(d)
            path = os.path.join(d, "turn_001.json")
            nspans = large_turn(path, mb)
            fmb = os.path.getsize(path) / 2**20
            cmds = (("validate", [a.xperf, "validate", path]),
                    ("analyze", [a.xperf, "analyze", "turn", path, "--format", "json"]),
                    ("bare cJSON", [a.bare, d]))
            m = {k: [] for k, _ in cmds}
            for _, cmd in cmds:
                run(cmd)
            for _ in range(a.repeat):
                for k, cmd in cmds:
                    m[k].append(run(cmd))
            for k, _ in cmds:
                w, c, r = zip(*m[k])
                print("| %.1f | %d | %s | %s | %s | %s | %.1f |" % (
                    fmb, nspans, k, fmt(w), fmt(c), fmt(r, "%.0f"),
                    statistics.median(r) / fmb))
            shutil.rmtree(d)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
