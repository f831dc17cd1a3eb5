#!/usr/bin/env python3
# compare.py --old OLD_XPERF [--new bazel-bin/cli/xperf] [--small 0.05x200] [--large 50]
#            [--repeat 5] [--dir /tmp]
# - the streaming reader (core/read.c: one pass, no document tree) against the reader it
# replaced (jscan + whole cJSON tree + tree walks), as two builds of `xperf`: `xperf validate`
# (the validator alone) and `xperf analyze` (the reader, then the analysis), on small turns
# (a session of 200 turns of 50 KB: `validate DIR`, `analyze session DIR`) and on one large
# turn (50 MB: `validate FILE`, `analyze turn FILE`). Turns come from bench/analyze/large.py's
# generator (its coding-agent turn repeated until the file has the size asked). Old and new
# alternate, command by command, after one warm-up pass that puts the files in the page cache.
# For each case: wall and CPU seconds, peak RSS, medians and spread (min-max) over the
# repeats, and the new/old ratios of the medians. The generated files are deleted at the end.
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


def cases(a, root):
    """(label, MB of one file, spans per file, [(command, args)]) for the small and large turns."""
    mb, n = a.small.split("x")
    d = os.path.join(root, "small")
    os.makedirs(d)
    first = os.path.join(d, "turn_001.json")
    spans = large_turn(first, float(mb))
    for i in range(2, int(n) + 1):
        os.link(first, os.path.join(d, "turn_%03d.json" % i))
    yield ("%s x %s" % (n, "%.2f" % (os.path.getsize(first) / 2**20)), spans,
           [("validate", ["validate", d]), ("analyze", ["analyze", "session", d, "--format", "json"])])
    shutil.rmtree(d)
    big = os.path.join(root, "turn_001.json")
    spans = large_turn(big, float(a.large))
    yield ("%.2f" % (os.path.getsize(big) / 2**20), spans,
           [("validate", ["validate", big]), ("analyze", ["analyze", "turn", big, "--format", "json"])])
    os.remove(big)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", default="bazel-bin/cli/xperf")
    ap.add_argument("--small", default="0.05x200", help="MB of one turn x number of turns")
    ap.add_argument("--large", default="50", help="MB of the large turn")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--dir", default=tempfile.gettempdir())
    a = ap.parse_args()
    root = tempfile.mkdtemp(prefix="xperf-reader-", dir=a.dir)
    print("| MiB | spans/turn | command | reader | wall s | CPU s | peak RSS MiB |")
    print("|---|---|---|---|---|---|---|")
    ratios = []
    try:
        for label, nspans, todo in cases(a, root):
            cmds = [(c, r, [x] + args) for c, args in todo
                    for r, x in (("old", a.old), ("new", a.new))]
            m = {(c, r): [] for c, r, _ in cmds}
            for _, _, cmd in cmds:
                run(cmd)
            for _ in range(a.repeat):
                for c, r, cmd in cmds:
                    m[(c, r)].append(run(cmd))
            for c, r, _ in cmds:
                w, cpu, rss = zip(*m[(c, r)])
                print("| %s | %d | %s | %s | %s | %s | %s |" % (
                    label, nspans, c, r, fmt(w, "%.3f"), fmt(cpu, "%.3f"), fmt(rss, "%.0f")))
            for c, _ in todo:
                med = {k: [statistics.median(x) for x in zip(*m[(c, k)])]
                       for k in ("old", "new")}
                ratios.append((label, c, *(med["new"][i] / med["old"][i] if med["old"][i] else
                                          float("nan") for i in range(3))))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print("\n| MiB | command | wall new/old | CPU new/old | peak RSS new/old |")
    print("|---|---|---|---|---|")
    for label, c, w, cpu, rss in ratios:
        print("| %s | %s | %.2f | %.2f | %.2f |" % (label, c, w, cpu, rss))
    return 0


if __name__ == "__main__":
    sys.exit(main())
