#!/usr/bin/env python3
# run.py [--seconds 60 | --runs N] [--only a,b] [--corpus DIR] [--nice 19] - runs
# every libFuzzer target of the repository (the tests tagged "fuzz") one after
# the other with the seeds and dictionary its test uses, and prints a table:
# executions, execs/s, wall time, coverage (edges: cov, features: ft) after the seeds and
# at the end, corpus size, and findings (a crash, leak, timeout or OOM stops a
# target; its input is saved and named). New inputs grow a corpus kept under
# --corpus (default /tmp/xperf-fuzz/<target>) so a later run goes on from there;
# --fresh starts from the seeds alone. Exit 1 when any target found something.
# Run from the repository root; it builds the fuzzers first (bazel build).
import argparse
import os
import re
import subprocess
import sys
import time

LOC = re.compile(r"\$\(location (\S+)\)")


def label_path(pkg, label):
    label = label.lstrip(":") if label.startswith(":") else label
    if label.startswith("//"):
        p, _, n = label[2:].partition(":")
        return os.path.join(p, n)
    return os.path.join(pkg, label)


def resolve(pkg, args):
    """The fuzzer binary, its extra flags and seed directory from the test's args."""
    binary = os.path.join("bazel-bin", label_path(pkg, LOC.search(args[0]).group(1)))
    flags, seeds = [], None
    for a in args[3:]:
        if a.startswith("-"):
            flags.append(LOC.sub(lambda m: label_path(pkg, m.group(1)), a))
        else:
            seeds = a
    return binary, flags, seeds


def last(pattern, text, cast=int, default=None):
    found = re.findall(pattern, text)
    return cast(found[-1]) if found else default


def run_one(binary, flags, seeds, corpus, art, limit, niceness):
    os.makedirs(corpus, exist_ok=True)
    os.makedirs(art, exist_ok=True)
    cmd = ["nice", "-n", str(niceness), binary, "-timeout=10", "-rss_limit_mb=2048",
           "-print_final_stats=1", "-artifact_prefix=" + art + "/"] + limit + flags + [corpus]
    if seeds:
        cmd.append(seeds)
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
    wall = time.monotonic() - t0
    log = p.stderr
    execs = last(r"stat::number_of_executed_units: (\d+)", log, default=0)
    finding = last(r"(?:Test unit|artifact) written to (\S+)", log, str, "")
    kind = last(r"ERROR: (?:libFuzzer|AddressSanitizer|LeakSanitizer): ([\w-]+)", log, str, "")
    if not finding and "runtime error:" in log:
        kind = "ubsan"
    return {
        "execs": execs,
        "wall": wall,
        "rate": execs / wall if wall else 0,
        "cov0": last(r"INITED cov: (\d+)", log, default=0),
        "cov": last(r"cov: (\d+)", log, default=0),
        "ft": last(r"ft: (\d+)", log, default=0),
        "corp": last(r"corp: (\d+)", log, default=0),
        "finding": (kind + " " + finding).strip() if p.returncode else "",
        "log": log,
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=int, default=60)
    ap.add_argument("--runs", type=int, help="executions per target instead of a time")
    ap.add_argument("--only", help="comma-separated target names, run in this order")
    ap.add_argument("--corpus", default="/tmp/xperf-fuzz")
    ap.add_argument("--fresh", action="store_true", help="start from the seeds alone")
    ap.add_argument("--nice", type=int, default=19)
    a = ap.parse_args()
    found = query()
    if a.only:  # in the order given
        keep = a.only.split(",")
        found = sorted((t for t in found if t[1] in keep), key=lambda t: keep.index(t[1]))
    subprocess.run(["bazel", "build", "-c", "fastbuild"] +
                   ["//%s:%s_bin" % (pkg, name) for pkg, name, _ in found], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # the real files, now: a later build in another configuration moves bazel-bin
    plan = [(pkg, name) + resolve(pkg, args) for pkg, name, args in found]
    plan = [(pkg, name, os.path.realpath(b), flags, seeds) for pkg, name, b, flags, seeds in plan]
    limit = ["-runs=%d" % a.runs] if a.runs else ["-max_total_time=%d" % a.seconds]
    print("%s, load average %.1f, %s" % (time.strftime("%Y-%m-%d %H:%M"), os.getloadavg()[0],
                                          " ".join(limit)))
    print("| target | execs | execs/s | time | cov seeds | cov end | ft end | corpus | findings |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |", flush=True)
    bad = 0
    for pkg, name, binary, flags, seeds in plan:
        corpus = os.path.join(a.corpus, name)
        if a.fresh:
            subprocess.run(["rm", "-rf", corpus])
        r = run_one(binary, flags, seeds, corpus, os.path.join(a.corpus, "findings", name),
                    limit, a.nice)
        with open(os.path.join(a.corpus, name + ".log"), "w") as f:
            f.write(r["log"])
        bad += bool(r["finding"])
        print("| %s:%s | %d | %.0f | %d s | %d | %d | %d | %d | %s |" % (
            pkg, name, r["execs"], r["rate"], r["wall"], r["cov0"], r["cov"], r["ft"],
            r["corp"], r["finding"] or "none"), flush=True)
    return 1 if bad else 0


def query():
    """(package, name, args) of every sh_test tagged fuzz."""
    out = subprocess.run(["bazel", "query", 'attr(tags, "\\bfuzz\\b", tests(//...))',
                          "--output=build"], capture_output=True, text=True, check=True).stdout
    found = []
    for m in re.finditer(r"# (\S+)/BUILD:\d+:\d+\nsh_test\((.*?)\n\)", out, re.S):
        block = m.group(2)
        name = re.search(r'name = "([^"]+)"', block).group(1)
        args = re.findall(r'"([^"]*)"', re.search(r"args = \[([^\]]*)\]", block, re.S).group(1))
        found.append((os.path.relpath(m.group(1)), name, args))
    return found


if __name__ == "__main__":
    sys.exit(main())
