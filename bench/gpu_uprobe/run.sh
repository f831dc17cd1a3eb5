#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/gpu_uprobe/run.sh - what GPU collection costs a CUDA program's host
# calls, measured on a real libcudart program (gpu/cuda_calls: N calls each
# of cudaLaunchKernel, cudaMemcpy, cudaMemcpyAsync, cudaStreamSynchronize,
# cudaDeviceSynchronize; without a GPU they return an error code, so the
# time per call is libcudart's own entry cost plus what the tool adds):
#   bare       the program alone
#   uprobe     under `xperf-bpf record` (its cuda module: uprobe + uretprobe
#              per call; the other modules too, as a user runs it); the
#              program waits 300 ms first, so its calls come after the probes
#   untraced   the program NOT traced, while `xperf-bpf record` traces
#              another copy of it (same libcudart file): what a model server
#              next to a traced agent pays; with BASE=/path/to/xperf-bpf, also
#              under that (older) build: `untraced(BASE)`
#   collector  libxperf_cupti.so preloaded (without a driver CUPTI refuses
#              to start: this is the cost of the injection itself)
# The runs alternate, R rounds; the table gives the median ns per call
# (from the program's own clock around each call), min-max, and the ratio of
# medians against bare. A bare, untraced or collector round whose program
# found breakpoints in its libcudart (cuda_calls reports them) was disturbed
# by another tracer's machine-wide uprobes (an older xperf-bpf run by
# someone else on this machine): it is left out, and counted. A second table gives the wall time of
# `xperf-bpf record -- true` (a command without CUDA: mostly loading the
# BPF objects and detaching uprobes at the end), with and without
# --no-cuda / --no-plaintext, for this build and BASE side by side.
# Needs root (BPF). usage: [BASE=old/xperf-bpf] [BAZEL_OPTS=--disk_cache=DIR]
#   bench/gpu_uprobe/run.sh [N] [R]
set -eu
cd "$(dirname "$0")/../.."
N=${1:-2000}
R=${2:-7}
BASE=${BASE:-}
bazel build ${BAZEL_OPTS:-} -c opt --symlink_prefix=/ //gpu:cuda_calls \
	//cli:xperf-bpf //gpu:libxperf_cupti.so >/dev/null 2>&1
B=$(bazel info -c opt bazel-bin 2>/dev/null)/gpu
XPERF_BPF=$B/../cli/xperf-bpf
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
builds="this"
[ -n "$BASE" ] && builds="base this"

bin() { if [ "$1" = base ]; then echo "$BASE"; else echo "$XPERF_BPF"; fi; }

# untraced BUILD ROUND: the program alone while BUILD traces a copy of it.
untraced() {
	"$(bin "$1")" record -q -o "$T/hold.$1.$2" -- "$B/cuda_calls" 10 3000 >/dev/null 2>&1 &
	sleep 1.5
	"$B/cuda_calls" "$N" >"$T/untraced_$1.$2"
	wait
}

for r in $(seq "$R"); do
	"$B/cuda_calls" "$N" >"$T/bare.$r"
	"$XPERF_BPF" record -q -o "$T/rec.$r" -- "$B/cuda_calls" "$N" 300 >"$T/uprobe.$r" 2>/dev/null
	for b in $builds; do untraced "$b" "$r"; done
	XPERF_GPU_DIR="$T/c.$r" LD_PRELOAD="$B/libxperf_cupti.so" "$B/cuda_calls" "$N" \
		>"$T/collector.$r" 2>/dev/null
	for b in $builds; do
		for flag in "" --no-cuda "--no-plaintext --no-cuda"; do
			t0=$(date +%s%N)
			"$(bin "$b")" record -q $flag -o "$T/true.$r" -- true 2>/dev/null
			printf '%s\t%s\t%s\n' "$b" "${flag:-default}" $(($(date +%s%N) - t0)) >>"$T/startup"
		done
	done
done

python3 - "$T" "$N" "$R" <<'PY'
import os, re, statistics, sys
d, n, r = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
modes = [m for m in ("bare", "uprobe", "untraced_this", "untraced_base", "collector")
         if os.path.exists(f"{d}/{m}.1")]
label = {"untraced_this": "untraced", "untraced_base": "untraced(BASE)"}
per = {}  # (mode, fn) -> [ns per call of each round]
disturbed = {}  # mode -> rounds left out: foreign breakpoints in the program
for m in modes:
    for i in range(1, r + 1):
        out = open(f"{d}/{m}.{i}").read()
        if m in ("bare", "untraced_this", "collector") and \
                not re.search(r"^breakpoints=0$", out, re.M):
            disturbed[m] = disturbed.get(m, 0) + 1
            continue
        for fn, calls, ns in re.findall(r"^(\w+) calls=(\d+) total_ns=(\d+)", out, re.M):
            per.setdefault((m, fn), []).append(int(ns) / int(calls))
fns = sorted({fn for _, fn in per})
print(f"{n} calls per function, {r} alternating rounds; ns per call: median (min-max), "
      "added time per call and ratio of medians vs bare")
print(f"{'function':24}" + "".join(f"{label.get(m, m):>32}" for m in modes))
for fn in fns:
    base = statistics.median(per[("bare", fn)])
    cells = []
    for m in modes:
        v = per.get((m, fn))
        if not v:
            cells.append("n/a (all rounds disturbed)")
            continue
        med = statistics.median(v)
        cell = f"{med:.0f} ({min(v):.0f}-{max(v):.0f})"
        if m != "bare":
            cell += f" {(med - base) / 1000:+.1f}us x{med / base:.1f}"
        cells.append(cell)
    print(f"{fn:24}" + "".join(f"{c:>32}" for c in cells))
if disturbed:
    print("rounds left out (foreign breakpoints): " +
          ", ".join(f"{label.get(m, m)} {k} of {r}" for m, k in disturbed.items()))
st = {}
for line in open(f"{d}/startup"):
    b, flag, ns = line.rstrip("\n").split("\t")
    st.setdefault((flag, b), []).append(int(ns) / 1e6)
builds = [b for b in ("base", "this") if any(k[1] == b for k in st)]
print(f"\nxperf-bpf record -- true, wall ms: median (min-max) of {r}")
print(f"{'flags':28}" + "".join(f"{b:>24}" for b in builds))
for flag in ("default", "--no-cuda", "--no-plaintext --no-cuda"):
    cells = []
    for b in builds:
        v = st[(flag, b)]
        cells.append(f"{statistics.median(v):.0f} ({min(v):.0f}-{max(v):.0f})")
    print(f"{flag:28}" + "".join(f"{c:>24}" for c in cells))
PY
