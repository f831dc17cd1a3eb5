#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/gpu_uprobe/run.sh - what GPU collection costs a CUDA program's host
# calls, measured on a real libcudart program (gpu/cuda_calls: N calls each
# of cudaLaunchKernel, cudaMemcpy, cudaMemcpyAsync, cudaStreamSynchronize,
# cudaDeviceSynchronize; without a GPU they return an error code, so the
# time per call is libcudart's own entry cost plus what the tool adds):
#   bare       the program alone
#   uprobe     under `xperf-bpf record` (its cuda module: uprobe + uretprobe
#              per call; the other modules too, as a user runs it)
#   collector  libxperf_cupti.so preloaded (without a driver CUPTI refuses
#              to start: this is the cost of the injection itself)
# The three runs alternate, R rounds; the table gives the median ns per call
# (from the program's own clock around each call), min-max, and the ratio of
# medians against bare. A second table gives what the cuda module adds to
# `xperf-bpf record -- true` (a command without CUDA: loading cuda.bpf.o and
# scanning the CUDA directories), with and without --no-cuda, alternating.
# Needs root (BPF). usage: bench/gpu_uprobe/run.sh [N] [R]
set -eu
cd "$(dirname "$0")/../.."
N=${1:-2000}
R=${2:-7}
bazel build -c opt --symlink_prefix=/ //gpu:cuda_calls //userspace:xperf-bpf \
	//gpu:libxperf_cupti.so >/dev/null 2>&1
B=$(bazel info -c opt bazel-bin 2>/dev/null)/gpu
XPERF_BPF=$B/../userspace/xperf-bpf
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

for r in $(seq "$R"); do
	"$B/cuda_calls" "$N" >"$T/bare.$r"
	"$XPERF_BPF" record -q -o "$T/rec.$r" -- "$B/cuda_calls" "$N" >"$T/uprobe.$r" 2>/dev/null
	XPERF_GPU_DIR="$T/c.$r" LD_PRELOAD="$B/libxperf_cupti.so" "$B/cuda_calls" "$N" \
		>"$T/collector.$r" 2>/dev/null
	for flag in --no-cuda ""; do
		t0=$(date +%s%N)
		"$XPERF_BPF" record -q $flag -o "$T/true.$r" -- true 2>/dev/null
		echo "${flag:-cuda} $(($(date +%s%N) - t0))" >>"$T/startup"
	done
done

python3 - "$T" "$N" "$R" <<'PY'
import re, statistics, sys
d, n, r = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
modes = ["bare", "uprobe", "collector"]
per = {}  # (mode, fn) -> [ns per call of each round]
for m in modes:
    for i in range(1, r + 1):
        out = open(f"{d}/{m}.{i}").read()
        for fn, calls, ns in re.findall(r"^(\w+) calls=(\d+) total_ns=(\d+)", out, re.M):
            per.setdefault((m, fn), []).append(int(ns) / int(calls))
fns = sorted({fn for _, fn in per})
print(f"{n} calls per function, {r} alternating rounds; ns per call: median (min-max), "
      "added time per call and ratio of medians vs bare")
print(f"{'function':24} {'bare':>18} {'uprobe':>34} {'collector':>30}")
for fn in fns:
    base = statistics.median(per[("bare", fn)])
    cells = []
    for m in modes:
        v = per[(m, fn)]
        med = statistics.median(v)
        cell = f"{med:8.0f} ({min(v):.0f}-{max(v):.0f})"
        if m != "bare":
            cell += f" +{(med - base) / 1000:.1f}us x{med / base:.1f}"
        cells.append(cell)
    print(f"{fn:24} {cells[0]:>18} {cells[1]:>34} {cells[2]:>30}")
st = {}
for line in open(f"{d}/startup"):
    k, ns = line.split()
    st.setdefault(k, []).append(int(ns) / 1e6)
print(f"\nxperf-bpf record -- true, ms: median (min-max) of {r}")
for k in ("--no-cuda", "cuda"):
    v = st[k]
    print(f"{k:10} {statistics.median(v):8.1f} ({min(v):.1f}-{max(v):.1f})")
PY
