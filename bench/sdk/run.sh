#!/usr/bin/env bash
# run.sh - ns per xperf_enter/xperf_leave pair, against a bare pair of
# clock_gettime calls in the same run (optimized build). Arguments go to
# sdk_bench: [pairs per repetition] [repetitions].
set -euo pipefail
cd "$(dirname "$0")/../.."
bazel build -c opt //bench/sdk:sdk_bench >/dev/null 2>&1 || bazel build -c opt //bench/sdk:sdk_bench
out=$(./bazel-bin/bench/sdk/sdk_bench "$@")
echo "$out"
rm -rf "$(echo "$out" | sed -n 's/^traces in \(.*\) (delete at will)$/\1/p')"
