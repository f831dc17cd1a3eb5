#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run_tests.sh - the Python binding's tests (sh_test): test_xperf.py over the
# libxperf.so and `xperf validate` built by Bazel. Under --config=asan the
# library is instrumented and python3 is not: the ASan runtime is preloaded
# (leak detection off: CPython keeps its objects at exit by design).
set -euo pipefail
root=$(pwd)
export XPERF_LIB="$root/sdk/libxperf.so"
export XPERF_CLI="$root/cli/xperf"
export PYTHONPATH="$root/bindings/python"
if nm -D "$XPERF_LIB" | grep " U __asan_init" >/dev/null; then  # not -q: SIGPIPE + pipefail
	export LD_PRELOAD
	LD_PRELOAD=$(clang -print-file-name=libclang_rt.asan-x86_64.so)
	export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
fi
exec python3 -B "$root/bindings/python/tests/test_xperf.py"
