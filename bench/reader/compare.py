#!/usr/bin/env python3
# compare.py --old OLD_XPERF [--new bazel-bin/cli/xperf] [--mb 0.05,50] [--repeat 5] [--dir /tmp]
# - the streaming reader (core/read.c: one pass, no document tree) against the reader it
# replaced (jscan + whole cJSON tree + tree walks), as two builds of `xperf`: `xperf validate
# FILE` (the validator alone) and `xperf analyze turn FILE` (the reader, then the analysis),
# on a small and a large turn (bench/analyze/large.py's generator: its coding-agent turn
# repeated until the file has the size asked). Old and new alternate, command by command,
# after one warm-up pass that puts the file in the page cache. For each size and command:
# wall and CPU seconds, peak RSS, medians and spread (min-max) over the repeats, and the
# new/old ratios of the medians. The generated files are deleted at the end.
# Build both with `bazel build -c opt //cli:xperf` (the old one from the commit before).
import argparse
import os
import shutil
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "analyze"))
from large import large_turn  # noqa: E402
from run import fmt, run  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", default="bazel-bin/cli/xperf")
    ap.add_argument("--mb", default="0.05,50")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--dir", default=tempfile.gettempdir())
    a = ap.parse_args()
    root = tempfile.mkdtemp(prefix="xperf-reader-", dir=a.dir)
    print("| MB | spans | command | reader | wall s | CPU s | peak RSS MiB | RSS / file |")
    print("|---|---|---|---|---|---|---|---|")
    ratios = []
    try:
        for mb in [float(x) for x in a.mb.split(",")]:
            path = os.path.join(root, "turn_001.json")
            nspans = large_turn(path, mb)
            fmb = os.path.getsize(path) / 2**20
            cmds = [(c, r, [x] + args + [path]) for c, args in
                    (("validate", ["validate"]), ("analyze", ["analyze", "turn"]))
                    for r, x in (("old", a.old), ("new", a.new))]
            m = {(c, r): [] for c, r, _ in cmds}
            for _, _, cmd in cmds:
                run(cmd)
            for _ in range(a.repeat):
                for c, r, cmd in cmds:
                    m[(c, r)].append(run(cmd))
            for c, r, _ in cmds:
                w, cpu, rss = zip(*m[(c, r)])
                print("| %.2f | %d | %s | %s | %s | %s | %s | %.1f |" % (
                    fmb, nspans, c, r, fmt(w, "%.3f"), fmt(cpu, "%.3f"), fmt(rss, "%.0f"),
                    statistics.median(rss) / fmb))
            for c in ("validate", "analyze"):
                med = {k: [statistics.median(x) for x in zip(*m[(c, k)])]
                       for k in ("old", "new")}
                ratios.append((fmb, c, *(med["new"][i] / med["old"][i] for i in range(3))))
            os.remove(path)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print("\n| MB | command | wall new/old | CPU new/old | peak RSS new/old |")
    print("|---|---|---|---|---|")
    for fmb, c, w, cpu, rss in ratios:
        print("| %.2f | %s | %.2f | %.2f | %.2f |" % (fmb, c, w, cpu, rss))
    return 0


if __name__ == "__main__":
    sys.exit(main())
