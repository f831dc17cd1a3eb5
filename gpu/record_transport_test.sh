#!/bin/bash
# SPDX-License-Identifier: MIT
# record_transport_test.sh - the GPU record transport under `xperf-bpf record`:
# the recorder tells the command where GPU records go (XPERF_GPU_DIR =
# <trace dir>/gpu, unless the user set one), and the CUPTI collector injected
# into a real libcudart program writes its .xpgpu file exactly there, where
# the turn assembler merges from at the end. (No GPU here: the file carries
# the collector's notice instead of activity records.)
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

XPERF_GPU_DIR="$T/mine" "$XPERF_BPF" record -q -o "$T/traces2" -- sh -c \
	"echo \"\$XPERF_GPU_DIR\" >'$T/seen2'" 2>/dev/null
check "a user's XPERF_GPU_DIR is kept" test "$(cat "$T/seen2")" = "$T/mine"
exit $fail
