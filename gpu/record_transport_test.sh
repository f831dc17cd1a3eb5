#!/bin/bash
# SPDX-License-Identifier: MIT
# record_transport_test.sh - the GPU record transport under `xperf-bpf record`:
# the recorder tells the command where GPU records go (XPERF_GPU_DIR =
# <trace dir>/gpu, unless the user set one), and the CUPTI collector injected
# into a real libcudart program writes its .xpgpu file exactly there, where
# the turn assembler merges from at the end. (No GPU here: the file carries
# the collector's notice instead of activity records.) `record --cupti` sets
# the injection variable for the command.
set -u
XPERF_BPF=cli/xperf-bpf
LIB=$(realpath gpu/libxperf_cupti.so)
HOST=$(realpath gpu/cuda_calls)
T=${TEST_TMPDIR:-$(mktemp -d)}
. gpu/check_lib.sh

unset XPERF_GPU_DIR
"$XPERF_BPF" record -q -o "$T/traces" -- sh -c \
	"echo \"\$XPERF_GPU_DIR\" >'$T/seen'; LD_PRELOAD='$LIB' '$HOST' 3 >/dev/null" 2>"$T/rec.err"
rc=$? # (before the label's $(...), which sets $? anew)
check "record exits 0 (stderr: $(head -c 300 "$T/rec.err"))" test $rc -eq 0
check "the command sees XPERF_GPU_DIR=<trace dir>/gpu" test "$(cat "$T/seen")" = "$T/traces/gpu"
check "the collector wrote its records there" compgen -G "$T/traces/gpu/gpu-*.xpgpu"
check "the records file is mode 0600" \
	test "$(stat -c %a "$T"/traces/gpu/gpu-*.xpgpu 2>/dev/null | head -1)" = 600

# --cupti: the collector injected by the driver, found beside xperf-bpf (bazel-bin/gpu/)
"$XPERF_BPF" record -q --cupti -o "$T/traces3" -- sh -c 'echo "$CUDA_INJECTION64_PATH"' \
	>"$T/inj" 2>"$T/inj.err"
check "--cupti: exit 0 ($(head -c 200 "$T/inj.err"))" test $? -eq 0
check "--cupti: CUDA_INJECTION64_PATH is the collector built beside xperf-bpf" \
	test "$(cat "$T/inj")" = "$(realpath "$(dirname "$(realpath "$XPERF_BPF")")/../gpu/libxperf_cupti.so")"
ln -s "$LIB" "$T/collector.so"
(cd "$T" && "$OLDPWD/$XPERF_BPF" record -q --cupti=collector.so -o "$T/traces4" -- \
	sh -c 'echo "$CUDA_INJECTION64_PATH"' >"$T/inj2")
check "--cupti=LIB: an absolute path, resolved" test "$(cat "$T/inj2")" = "$LIB"
"$XPERF_BPF" record -q --cupti="$T/none.so" -o "$T/traces5" -- true 2>"$T/none.err"
check "--cupti=LIB that does not exist: usage exit 64" test $? -eq 64
check "--cupti=LIB that does not exist: named" grep -q "none.so: No such file" "$T/none.err"
"$XPERF_BPF" attach --cupti --pid $$ 2>/dev/null
check "attach has no --cupti (nothing to inject into): usage exit 64" test $? -eq 64

XPERF_GPU_DIR="$T/mine" "$XPERF_BPF" record -q -o "$T/traces2" -- sh -c \
	"echo \"\$XPERF_GPU_DIR\" >'$T/seen2'" 2>/dev/null
check "a user's XPERF_GPU_DIR is kept" test "$(cat "$T/seen2")" = "$T/mine"
exit $fail
