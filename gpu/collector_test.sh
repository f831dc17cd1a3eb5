#!/bin/bash
# SPDX-License-Identifier: MIT
# collector_test.sh - libxperf_cupti.so injected (LD_PRELOAD) into a real
# program linked to libcudart, on a machine without a GPU driver: the host
# must run exactly as without it (same output, same exit code) while the
# collector says in one line why it collects nothing and leaves that notice
# in the .xpgpu file; bad settings are named; only InitializeInjection is
# exported. (With a GPU, gpu/gpu_check.sh checks the records themselves.)
set -u
LIB=$(realpath gpu/libxperf_cupti.so)
HOST=gpu/cuda_calls
DUMP=gpu/xpgpu-dump
T=${TEST_TMPDIR:-$(mktemp -d)}
. gpu/check_lib.sh
counts() { sed 's/ total_ns=[0-9]* median_ns=[0-9]*//' "$1"; }

"$HOST" 5 >"$T/bare.out" 2>"$T/bare.err"
bare_rc=$?

# 1. The exported symbols: the injection entry point and nothing else.
exports=$(nm -D --defined-only "$LIB" | awk '{print $3}' | tr '\n' ' ')
check "only InitializeInjection exported (got: $exports)" test "$exports" = "InitializeInjection "

# 2. libcupti missing: host unharmed, one clear line, notice recorded.
XPERF_GPU_DIR="$T/missing" XPERF_CUPTI_LIB=/nonexistent/libcupti.so.13 LD_PRELOAD="$LIB" \
	"$HOST" 5 >"$T/m.out" 2>"$T/m.err"
check "missing CUPTI: host exit code unchanged" test $? -eq $bare_rc
check "missing CUPTI: host output unchanged" cmp -s <(counts "$T/bare.out") <(counts "$T/m.out")
check "missing CUPTI: one stderr line" test "$(grep -c '^xperf-cupti\[' "$T/m.err")" -eq 1
check "missing CUPTI: message names the library" \
	grep -q 'nonexistent/libcupti.so.13.*GPU activity not collected' "$T/m.err"
"$DUMP" "$T/missing" >"$T/m.json"
check "missing CUPTI: notice in the .xpgpu file" grep -q 'GPU activity not collected' "$T/m.json"
check "missing CUPTI: file mode 0600" test "$(stat -c %a "$T"/missing/gpu-*.xpgpu)" = 600

# 3. Real libcupti, no driver: CUPTI refuses to start; host unharmed.
XPERF_GPU_DIR="$T/real" LD_PRELOAD="$LIB" "$HOST" 5 >"$T/r.out" 2>"$T/r.err"
check "real CUPTI: host exit code unchanged" test $? -eq $bare_rc
check "real CUPTI: host output unchanged" cmp -s <(counts "$T/bare.out") <(counts "$T/r.out")
if [ -e /dev/nvidia0 ]; then
	echo "skip: a GPU is present; gpu/gpu_check.sh covers collection"
else
	check "real CUPTI: says why nothing is collected" \
		grep -q 'cuptiSubscribe failed: .*GPU activity not collected' "$T/r.err"
fi

# 4. A bad setting is named and disables the collector.
XPERF_GPU_DIR="$T/bad" XPERF_CUPTI_BUFFER_KB=4k LD_PRELOAD="$LIB" "$HOST" 2 >/dev/null 2>"$T/b.err"
check "bad setting: host exit code unchanged" test $? -eq $bare_rc
check "bad setting: named" \
	grep -q 'bad setting XPERF_CUPTI_BUFFER_KB=4k: want an integer' "$T/b.err"
check "bad setting: nothing written" test ! -e "$T/bad"

# 5. XPERF_CUPTI_FORCE is read by that same rule on the LD_PRELOAD path, also in a
# process that maps no CUDA library (xpgpu-dump): a bad value is named, 1 starts.
"$DUMP" "$T/missing" >"$T/dump.out" 2>&1
dump_rc=$?
for v in yes 2; do
	XPERF_GPU_DIR="$T/force$v" XPERF_CUPTI_FORCE=$v LD_PRELOAD="$LIB" "$DUMP" "$T/missing" \
		>"$T/f$v.out" 2>"$T/f$v.err"
	check "XPERF_CUPTI_FORCE=$v: host exit code unchanged" test $? -eq $dump_rc
	check "XPERF_CUPTI_FORCE=$v: host output unchanged" cmp -s "$T/dump.out" "$T/f$v.out"
	check "XPERF_CUPTI_FORCE=$v: named, collector disabled" grep -q \
		"bad setting XPERF_CUPTI_FORCE=$v: want an integer in 0..1: collector disabled" \
		"$T/f$v.err"
	check "XPERF_CUPTI_FORCE=$v: nothing written" test ! -e "$T/force$v"
done
XPERF_GPU_DIR="$T/forced" XPERF_CUPTI_FORCE=1 XPERF_CUPTI_LIB=/nonexistent/libcupti.so.13 \
	LD_PRELOAD="$LIB" "$DUMP" "$T/missing" >/dev/null 2>"$T/f1.err"
check "XPERF_CUPTI_FORCE=1: starts without CUDA" \
	grep -q 'nonexistent/libcupti.so.13.*GPU activity not collected' "$T/f1.err"

# 6. XPERF_CUPTI=0: silent and inert. A non-CUDA process (sh) is left alone too.
XPERF_GPU_DIR="$T/off" XPERF_CUPTI=0 LD_PRELOAD="$LIB" "$HOST" 2 >/dev/null 2>"$T/o.err"
check "disabled: no output, no file" test ! -s "$T/o.err" -a ! -e "$T/off"
if nm -D "$LIB" | grep -q __asan_init; then
	echo "skip: non-CUDA process check (an ASan-built library cannot preload into sh)"
else
	XPERF_GPU_DIR="$T/sh" LD_PRELOAD="$LIB" sh -c true 2>"$T/s.err"
	check "non-CUDA process untouched" test ! -s "$T/s.err" -a ! -e "$T/sh"
fi

exit $fail
