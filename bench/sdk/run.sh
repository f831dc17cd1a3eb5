#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run.sh - ns per xperf_enter/xperf_leave pair, against a bare pair of
# clock_gettime calls in the same run (optimized build); then the same through
# the Python binding against a bare pair of time.monotonic_ns() calls.
# Arguments go to both: [pairs per repetition] [repetitions].
set -euo pipefail
cd "$(dirname "$0")/../.."
targets=(//bench/sdk:sdk_bench //sdk:libxperf.so)
bazel build -c opt "${targets[@]}" >/dev/null 2>&1 || bazel build -c opt "${targets[@]}"
out=$(./bazel-bin/bench/sdk/sdk_bench "$@")
grep -v "^traces in" <<<"$out"
rm -rf "$(sed -n 's/^traces in \(.*\) (delete at will)$/\1/p' <<<"$out")"
XPERF_LIB=$PWD/bazel-bin/sdk/libxperf.so PYTHONPATH=$PWD/bindings/python \
	python3 -B bench/sdk/py_bench.py "$@"
