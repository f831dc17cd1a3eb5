#!/usr/bin/env python3
# run.py [--sizes 10000,100000] [--repeat 3] [--dir /tmp] - benchmark of
# `xperf analyze session` (validation + full pipeline + JSON report to
# /dev/null) against a bare cJSON parse of the same files (bare_parse),
# measured side by side in the same run, alternating, after one warm-up pass
# that puts the files in the page cache. The largest session is generated once;
# smaller ones are its first N turns, hard-linked. For each size: turns/s, MB/s, peak
# RSS, medians and spread (min-max) over the repeats; then the 10k -> 100k time
# and RSS ratios. Generated sessions are deleted at the end.
# Run from the repository root after `bazel build -c opt //cli:xperf //bench/analyze:bare_parse`.
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def run(cmd):
    """Wall seconds, CPU seconds (user + sys) and peak RSS (MiB) of one run, by GNU time."""
    with tempfile.NamedTemporaryFile("r") as tf:
        t0 = time.perf_counter()
        p = subprocess.run(["/usr/bin/time", "-f", "%U %S %M", "-o", tf.name] + cmd,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wall = time.perf_counter() - t0
        if p.returncode != 0:
            sys.exit("failed: %s\n%s" % (" ".join(cmd), p.stderr.decode()))
        user, sys_, rss = tf.read().split()[-3:]
    return wall, float(user) + float(sys_), int(rss) / 1024


def du(d):
    return sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d))


def fmt(vals, f="%.2f"):
    return (f + " (" + f + "-" + f + ")") % (statistics.median(vals), min(vals), max(vals))


def measure(a, d):
    run([a.bare, d])
    m = {k: [] for k in ("aw", "ac", "ar", "bw", "bc", "br")}
    for _ in range(a.repeat):
        for pre, cmd in (("a", [a.xperf, "analyze", "session", d, "--format", "json"]),
                         ("b", [a.bare, d])):
            w, c, r = run(cmd)
            m[pre + "w"].append(w)
            m[pre + "c"].append(c)
            m[pre + "r"].append(r)
    return m


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--dir", default=tempfile.gettempdir())
    ap.add_argument("--xperf", default="bazel-bin/cli/xperf")
    ap.add_argument("--bare", default="bazel-bin/bench/analyze/bare_parse")
    a = ap.parse_args()
    root = tempfile.mkdtemp(prefix="xperf-bench-", dir=a.dir)
    sizes = [int(x) for x in a.sizes.split(",")]
    res = {}
    try:
        full = os.path.join(root, "all")
        subprocess.run([sys.executable, os.path.join(HERE, "gen.py"), str(max(sizes)), full,
                        str(os.cpu_count() or 1)], check=True)
        names = sorted(os.listdir(full))
        for n in sizes:
            d = os.path.join(root, "s%d" % n)
            os.makedirs(d)
            for name in names[:n]:
                os.link(os.path.join(full, name), os.path.join(d, name))
            res[n] = (du(d) / 1e6, measure(a, d))
            shutil.rmtree(d)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    report(res)
    return 0


def report(res):
    print("| turns | MB | analyze wall s | analyze CPU s | turns/s | MB/s | peak RSS MiB | "
          "bare CPU s | bare RSS MiB | CPU ratio | wall ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for n, (mb, m) in res.items():
        cr = [x / y for x, y in zip(m["ac"], m["bc"])]
        wr = [x / y for x, y in zip(m["aw"], m["bw"])]
        med = statistics.median(m["ac"])
        print("| %d | %.0f | %s | %s | %.0f | %.1f | %s | %s | %s | %s | %s |" % (
            n, mb, fmt(m["aw"]), fmt(m["ac"]), n / med, mb / med, fmt(m["ar"], "%.1f"),
            fmt(m["bc"]), fmt(m["br"], "%.1f"), fmt(cr), fmt(wr)))
    print("\nturns/s and MB/s are per CPU second of the analyzer (median); ratios are "
          "analyzer / bare cJSON parse of the same files, run alternately (median, min-max).")
    if len(res) >= 2:
        (n1, (_, m1)), (n2, (_, m2)) = list(res.items())[0], list(res.items())[-1]
        tr = statistics.median(m2["ac"]) / statistics.median(m1["ac"])
        rr = statistics.median(m2["ar"]) / statistics.median(m1["ar"])
        print("%d -> %d turns: CPU time x%.2f (linear: x%.0f; must be <= 11), peak RSS x%.2f"
              % (n1, n2, tr, n2 / n1, rr))


if __name__ == "__main__":
    sys.exit(main())
