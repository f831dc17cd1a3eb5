#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/gpu_uprobe/run.sh - what GPU collection costs a CUDA program's host
# calls, measured on a real libcudart program (gpu/cuda_calls: N calls each
# of cudaLaunchKernel, cudaMemcpy, cudaMemcpyAsync, cudaStreamSynchronize,
# cudaDeviceSynchronize; without a GPU they return an error code, so the
# time per call is libcudart's own entry cost plus what the tool adds):
#   bare       the program alone
#   uprobe     traced by xperf-cuda-probe (uprobe + uretprobe per call)
#   collector  libxperf_cupti.so preloaded (without a driver CUPTI refuses
#              to start: this is the cost of the injection itself)
# The three runs alternate, R rounds; the table gives the median ns per call
# (from the program's own clock around each call), min-max, and the ratio of
# medians against bare. Needs root (BPF). usage: bench/gpu_uprobe/run.sh [N] [R]
set -eu
cd "$(dirname "$0")/../.."
N=${1:-2000}
R=${2:-7}
bazel build -c opt --symlink_prefix=/ //gpu:cuda_calls //gpu:xperf-cuda-probe \
	//gpu:libxperf_cupti.so >/dev/null 2>&1
B=$(bazel info -c opt bazel-bin 2>/dev/null)/gpu
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

for r in $(seq "$R"); do
	"$B/cuda_calls" "$N" >"$T/bare.$r"
	"$B/xperf-cuda-probe" --out "$T/gpu.$r" -- "$B/cuda_calls" "$N" >"$T/uprobe.$r" 2>/dev/null
	XPERF_GPU_DIR="$T/c.$r" LD_PRELOAD="$B/libxperf_cupti.so" "$B/cuda_calls" "$N" \
		>"$T/collector.$r" 2>/dev/null
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
PY
