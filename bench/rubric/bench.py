#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/rubric/bench.py - what scoring costs: `xperf rubric --tier fast` over 3
sizes against running the same target bare the same number of times (one
warm-up + --reps per size), side by side in each round, rounds repeated.

Usage (from the repository root, after `bazel build //cli:xperf //rubric:scale
//rubric:faults`):  python3 bench/rubric/bench.py [--rounds 7] [--reps 5]
Prints a Markdown table: medians, spread (min..max) and the ratio of medians.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

BIN = "bazel-bin"
XPERF = os.path.join(BIN, "cli/xperf")
CASES = [  # (label, command template, sizes)
    ("faults (~1 ms runs)", os.path.join(BIN, "rubric/testprogs/faults") + " {SIZE}", [50, 100, 200]),
    ("scale linear (~5-20 ms)", os.path.join(BIN, "rubric/testprogs/scale") + " linear {SIZE}",
     [4096, 8192, 16384]),
    ("scale linear (~40-160 ms)", os.path.join(BIN, "rubric/testprogs/scale") + " linear {SIZE}",
     [32768, 65536, 131072]),
]


def bare(template, sizes, reps):
    """The target alone: the same runs xperf makes (warm-up + reps per size)."""
    t0 = time.perf_counter()
    for size in sizes:
        argv = template.replace("{SIZE}", str(size)).split()
        for _ in range(reps + 1):
            subprocess.run(argv, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t0


def scored(template, sizes, reps, out):
    t0 = time.perf_counter()
    subprocess.run([XPERF, "rubric", "--target", template, "--sizes", ",".join(map(str, sizes)),
                    "--tier", "fast", "--reps", str(reps), "--out-dir", out],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t0


def fmt(v):
    return f"{statistics.median(v) * 1000:.1f} ms ({min(v) * 1000:.1f}..{max(v) * 1000:.1f})"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--reps", type=int, default=5)
    a = ap.parse_args()
    for path in (XPERF,) + tuple(c[1].split()[0] for c in CASES):
        if not os.access(path, os.X_OK):
            sys.exit(f"bench: {path} missing: bazel build //cli:xperf //rubric:scale //rubric:faults")
    out = tempfile.mkdtemp(prefix="bench_rubric.")
    print(f"{a.rounds} rounds, {a.reps} reps + 1 warm-up per size, 3 sizes; "
          f"load {os.getloadavg()[0]:.2f}\n")
    print("| target | runs | bare | xperf rubric --tier fast | ratio |")
    print("|---|---|---|---|---|")
    for label, template, sizes in CASES:
        b, s = [], []
        for _ in range(a.rounds):  # side by side, alternating
            b.append(bare(template, sizes, a.reps))
            s.append(scored(template, sizes, a.reps, out))
        ratio = statistics.median(s) / statistics.median(b)
        print(f"| {label} | {len(sizes) * (a.reps + 1)} | {fmt(b)} | {fmt(s)} | {ratio:.2f}x |")
    shutil.rmtree(out)


if __name__ == "__main__":
    main()
