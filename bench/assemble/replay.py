#!/usr/bin/env python3
# replay.py --old OLD_REPLAY [--new bazel-bin/assemble/xperf-replay] [--copies 400]
#           [--repeat 5] [--dir /tmp]
# - the turn assembler (assemble/: session, cipher, proto, llm_span, core's writer) of two builds
# of `xperf-replay`, side by side, on large recorded event streams. Each stream is a recorded
# fixture of assemble/testdata repeated --copies times, one copy after the other in time, each
# copy a process of its own (pids, tids and connections moved out of the way of the others):
#   demo_both   the demo's six turns, plaintext and socket events (what a live capture gives);
#   go_ping     a Go HTTP/2 client's recorded connection, socket events only (--ciphertext).
# Old and new alternate, run by run, after one warm-up pass each. For each case: events, wall
# and CPU seconds, peak RSS, events per CPU second (medians and spread min-max over the
# repeats), then the new/old ratios of the medians. Both builds must write the same files:
# the first pass compares them byte for byte and stops on a difference.
# Build both with `bazel build -c opt //assemble:xperf-replay` (the old one at the commit before).
import argparse
import filecmp
import json
import os
import shutil
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(HERE, "..", "analyze"))
from run import fmt, run  # noqa: E402

CASES = [("demo_both", "demo_both.jsonl", []), ("go_ping", "cipher_go_ping_ack.jsonl", ["--ciphertext"])]
ID_KEYS = ("tgid", "tid", "child")
TIME_KEYS = ("ts_ns", "call_ns")


def events(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip() and not line.startswith("#")]


def repeat(src, dst, copies):
    """Writes `copies` copies of src's events to dst, each later in time and with its own ids."""
    evs = events(src)
    t0 = min(e["ts_ns"] for e in evs)
    span = max(e["ts_ns"] for e in evs) - t0 + 1_000_000_000
    with open(dst, "w") as f:
        for k in range(copies):
            for e in evs:
                e = dict(e)
                for key in TIME_KEYS:
                    if key in e:
                        e[key] += k * span
                for key in ID_KEYS:
                    if key in e:
                        e[key] += k * 10000
                if "conn" in e:
                    e["conn"] += k << 32
                f.write(json.dumps(e) + "\n")
    return copies * len(evs)


def same_output(a, b):
    cmp = filecmp.dircmp(a, b)
    return not (cmp.left_only or cmp.right_only or cmp.diff_files or cmp.funny_files) and all(
        same_output(os.path.join(a, d), os.path.join(b, d)) for d in cmp.common_dirs)


def measure(a, stream, flags, root):
    outs = {r: os.path.join(root, r) for r in ("old", "new")}
    cmd = {r: [x] + flags + ["--session", "bench", "-o", outs[r], stream]
           for r, x in (("old", a.old), ("new", a.new))}
    for r in ("old", "new"):
        run(cmd[r])
    if not same_output(outs["old"], outs["new"]):
        sys.exit("old and new wrote different turn files for %s" % stream)
    m = {r: [] for r in cmd}
    for _ in range(a.repeat):
        for r in ("old", "new"):
            shutil.rmtree(outs[r])
            m[r].append(run(cmd[r]))
    return m


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", default="bazel-bin/assemble/xperf-replay")
    ap.add_argument("--copies", type=int, default=400)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--dir", default=tempfile.gettempdir())
    a = ap.parse_args()
    root = tempfile.mkdtemp(prefix="xperf-replay-", dir=a.dir)
    print("| case | events | build | wall s | CPU s | peak RSS MiB | events/CPU s |")
    print("|---|---|---|---|---|---|---|")
    ratios = []
    try:
        for name, fixture, flags in CASES:
            stream = os.path.join(root, name + ".jsonl")
            n = repeat(os.path.join(ROOT, "assemble", "testdata", fixture), stream, a.copies)
            m = measure(a, stream, flags, root)
            for r in ("old", "new"):
                w, cpu, rss = zip(*m[r])
                print("| %s | %d | %s | %s | %s | %s | %s |" % (
                    name, n, r, fmt(w, "%.3f"), fmt(cpu, "%.3f"), fmt(rss, "%.0f"),
                    fmt([n / c for c in cpu], "%.0f")))
            med = {r: [statistics.median(x) for x in zip(*m[r])] for r in m}
            ratios.append((name, *(med["new"][i] / med["old"][i] for i in range(3))))
            os.remove(stream)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print("\n| case | wall new/old | CPU new/old | peak RSS new/old |")
    print("|---|---|---|---|")
    for name, w, cpu, rss in ratios:
        print("| %s | %.2f | %.2f | %.2f |" % (name, w, cpu, rss))
    return 0


if __name__ == "__main__":
    sys.exit(main())
