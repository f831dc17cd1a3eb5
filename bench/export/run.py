#!/usr/bin/env python3
# run.py [--spans 10000,100000] [--repeat 5] [--dir /tmp] - cost of `xperf export`
# (chrome and otlp, output to /dev/null) against the analyzer's own reading of
# the same session: `xperf validate` (read + scan + cJSON parse + schema rules,
# the loader export uses) and `xperf analyze session` (that load plus the whole
# Top-down pipeline). Sessions come from bench/analyze/gen.py (19 spans a turn),
# the files are put in the page cache by one warm-up pass, then the commands run
# alternately; medians and spread (min-max) of CPU seconds, and ratios per run.
# Run from the repository root after `bazel build -c opt //cli:xperf`.
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "analyze"))
from run import fmt, run  # noqa: E402  (GNU time per command, median (min-max))

SPANS_PER_TURN = 19


def commands(xperf, d):
    return {
        "chrome": [xperf, "export", "--format", "chrome", d],
        "otlp": [xperf, "export", "--format", "otlp", d],
        "validate": [xperf, "validate", d],
        "analyze": [xperf, "analyze", "session", d, "--format", "json"],
    }


def measure(cmds, repeat):
    for cmd in cmds.values():
        run(cmd)
    cpu = {k: [] for k in cmds}
    rss = {k: [] for k in cmds}
    for _ in range(repeat):
        for k, cmd in cmds.items():
            _, c, r = run(cmd)
            cpu[k].append(c)
            rss[k].append(r)
    return cpu, rss


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--spans", default="10000,100000")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--dir", default=tempfile.gettempdir())
    ap.add_argument("--xperf", default="bazel-bin/cli/xperf")
    a = ap.parse_args()
    print("| spans | turns | chrome CPU s | otlp CPU s | validate CPU s | analyze CPU s | "
          "chrome/validate | otlp/validate | chrome/analyze | otlp/analyze | export RSS MiB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for spans in (int(x) for x in a.spans.split(",")):
        turns = -(-spans // SPANS_PER_TURN)
        root = tempfile.mkdtemp(prefix="xperf-export-bench-", dir=a.dir)
        try:
            subprocess.run([sys.executable, os.path.join(HERE, "..", "analyze", "gen.py"),
                            str(turns), root, str(os.cpu_count() or 1)], check=True)
            cpu, rss = measure(commands(a.xperf, root), a.repeat)
        finally:
            shutil.rmtree(root, ignore_errors=True)

        def ratio(x, y):
            return fmt([p / q for p, q in zip(cpu[x], cpu[y])])

        print("| %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            turns * SPANS_PER_TURN, turns, fmt(cpu["chrome"]), fmt(cpu["otlp"]),
            fmt(cpu["validate"]), fmt(cpu["analyze"]), ratio("chrome", "validate"),
            ratio("otlp", "validate"), ratio("chrome", "analyze"), ratio("otlp", "analyze"),
            fmt(rss["chrome"] + rss["otlp"], "%.1f")))
    print("\nCPU seconds (user + sys), median (min-max) of %d alternating runs; ratios per run."
          % a.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
