#!/usr/bin/env python3
# run.py [--sessions 40,400] [--turns 10] [--nodes 4] [--repeat 3] - benchmark of
# `xperf fleet report DIR --format json` against the bare way to get the same
# analyses: one `xperf analyze session S --format json` per session, run by a shell
# loop (measured as one process tree by GNU time), side by side, alternating, after a
# warm-up pass that puts the files in the page cache. Trees are NODES x SESSIONS/NODES
# sessions of TURNS turns made by bench/analyze/gen.py (about 20 spans per turn).
# For each size: wall and CPU seconds, peak RSS, medians and spread (min-max), the
# fleet/loop ratios; then how fleet's peak RSS grows from the smallest to the largest
# tree (it must stay flat: memory is bounded by nodes and agents, not sessions).
# Run from the repository root after `bazel build -c opt //cli:xperf`.
import argparse
import importlib.util
import json
import os
import random
import shutil
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, path))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


gen = load("gen", "../analyze/gen.py")              # the turn generator
bench = load("analyze_bench", "../analyze/run.py")  # run(cmd) by GNU time, fmt(vals)
run, fmt = bench.run, bench.fmt


def make_tree(root, nodes, sessions, turns):
    rnd = random.Random(7)
    for s in range(sessions):
        d = os.path.join(root, "node-%02d" % (s % nodes), "sess-%05d" % s)
        os.makedirs(d)
        for i in range(1, turns + 1):
            with open(os.path.join(d, "turn_%03d.json" % i), "w") as f:
                json.dump(gen.turn(i, rnd), f, separators=(",", ":"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", default="40,400")
    ap.add_argument("--turns", type=int, default=10)
    ap.add_argument("--nodes", type=int, default=4)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--xperf", default="bazel-bin/cli/xperf")
    a = ap.parse_args()
    xperf = os.path.abspath(a.xperf)
    loop = ("for s in \"$1\"/*/*/; do \"$0\" analyze session \"$s\" --format json "
            ">/dev/null || exit 1; done")
    res = {}
    root = tempfile.mkdtemp(prefix="xperf-bench-fleet-")
    try:
        for n in map(int, a.sessions.split(",")):
            d = os.path.join(root, "t%d" % n)
            make_tree(d, a.nodes, n, a.turns)
            cmds = {"f": [xperf, "fleet", "report", d, "--format", "json"],
                    "l": ["bash", "-c", loop, xperf, d]}
            run(cmds["f"])
            m = {k: [] for k in ("fw", "fc", "fr", "lw", "lc", "lr")}
            for _ in range(a.repeat):
                for k, cmd in cmds.items():
                    w, c, r = run(cmd)
                    m[k + "w"].append(w)
                    m[k + "c"].append(c)
                    m[k + "r"].append(r)
            res[n] = m
            shutil.rmtree(d)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    report(res, a)
    return 0


def report(res, a):
    print("| sessions | turns | fleet wall s | fleet CPU s | fleet RSS MiB | loop wall s | "
          "loop CPU s | loop RSS MiB | wall ratio | CPU ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for n, m in res.items():
        wr = [x / y for x, y in zip(m["fw"], m["lw"])]
        cr = [x / y for x, y in zip(m["fc"], m["lc"])]
        print("| %d | %d | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            n, n * a.turns, fmt(m["fw"]), fmt(m["fc"]), fmt(m["fr"], "%.1f"), fmt(m["lw"]),
            fmt(m["lc"]), fmt(m["lr"], "%.1f"), fmt(wr), fmt(cr)))
    print("\nfleet = one `xperf fleet report --format json`; loop = one `xperf analyze session` "
          "per session (the bare way to the same analyses); ratios fleet / loop, median "
          "(min-max) of %d alternating runs; loop RSS is its largest single process." % a.repeat)
    if len(res) >= 2:
        (n1, m1), (n2, m2) = list(res.items())[0], list(res.items())[-1]
        print("%d -> %d sessions: fleet CPU x%.2f (linear: x%.0f), fleet peak RSS x%.2f" % (
            n1, n2, statistics.median(m2["fc"]) / statistics.median(m1["fc"]), n2 / n1,
            statistics.median(m2["fr"]) / statistics.median(m1["fr"])))


if __name__ == "__main__":
    sys.exit(main())
