#!/bin/bash
# SPDX-License-Identifier: MIT
# gpu_check.sh - the CUPTI collector on a machine with an NVIDIA GPU (no Bazel
# needed: plain cc and nvcc). Builds libxperf_cupti.so, a stats reader and
# gpu/check/check_app.cu (3 kernels x 20 launches, copies, a memset, host
# stalls), runs the app under the collector and checks:
#   - kernel count exact (60, 20 per kernel), copies 5, memset 1, no drops;
#   - collector kernel time within 5% of the app's CUDA-event time;
#   - the host stalls show up as GPU idle host wait (>= 90% of the sleeps);
#   - kernel times on CLOCK_MONOTONIC (inside the app's own clock readings);
#   - the LD_PRELOAD path records the same kernels;
#   - CUPTI held by the app itself: the collector steps back, app unharmed;
#   - SIGTERM mid-run still flushes what ran;
#   - two host threads on two streams (gpu/check/streams_app.cu): counts exact
#     per stream, each stream's idle charged to its own cause;
#   - under `xperf-bpf record` with the collector and the cuda uprobes at once
#     (gpu/check/record_check.sh, when the xperf binaries are there): the
#     records merge into the turn, `xperf gpu breakdown` shows them, the
#     uprobe call counts equal CUPTI's;
# and reports the collector's overhead: the app's loop time (median of 5
# interleaved runs) with the collector over without it.
# Where there is no GPU it says so in one line and exits 0.
#
# usage: gpu/gpu_check.sh [--build-only]     (from the repository root)
# env:   CUDA_HOME (default /usr/local/cuda), CC (default cc),
#        XPERF_BIN (dir with xperf-bpf, xperf, xpgpu-dump; default bazel-bin's;
#        a lib/ beside them goes on their LD_LIBRARY_PATH only),
#        GPU_CHECK_KEEP (dir: keep the recorded .xpgpu files there)
set -u
cd "$(dirname "$0")/.." || exit 1
CUDA=${CUDA_HOME:-/usr/local/cuda}
CC=${CC:-cc}
NVCC=$CUDA/bin/nvcc
BUILD_ONLY=0
[ "${1:-}" = "--build-only" ] && BUILD_ONLY=1

has_gpu() {
	command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU' &&
		{ ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1' ||
			ls /usr/lib/x86_64-linux-gnu/libcuda.so.1 /usr/lib64/libcuda.so.1 \
				>/dev/null 2>&1; }
}
if [ $BUILD_ONLY -eq 0 ] && ! has_gpu; then
	echo "gpu_check: SKIPPED: no NVIDIA GPU here (no nvidia-smi GPU or no libcuda.so.1)"
	exit 0
fi
if [ ! -e "$CUDA/include/cupti.h" ] || [ ! -x "$NVCC" ]; then
	echo "gpu_check: FAIL: no CUDA toolkit with CUPTI at $CUDA (set CUDA_HOME)"
	exit 1
fi

W=$(mktemp -d /tmp/gpu_check.XXXXXX)
trap 'rm -rf "$W"' EXIT
. gpu/check_lib.sh

echo "gpu_check: building in $W"
CFLAGS="-std=gnu11 -O2 -I. -isystem $CUDA/include"
$CC $CFLAGS -shared -fPIC -Wl,--version-script=gpu/collector.map -o "$W/libxperf_cupti.so" \
	gpu/cupti_collector.c gpu/cupti_convert.c gpu/cupti_loader.c gpu/collector_config.c \
	gpu/gpu_records.c gpu/demangle.c gpu/signal_chain.c lib/atomic_file.c theory/gpu_kind.c -ldl -lpthread \
	-lstdc++ || exit 1
$CC $CFLAGS -o "$W/stats" gpu/check/gpu_check_stats.c gpu/gpu_records.c gpu/gpu_set.c \
	gpu/attribute.c gpu/intervals.c lib/atomic_file.c lib/grow.c lib/in_file.c theory/gpu_kind.c || exit 1
# libcupti of this toolkit (lib64 from CUDA 12.x/13, extras/CUPTI/lib64 before)
CUPTI_SO=$CUDA/lib64/libcupti.so
[ -e "$CUPTI_SO" ] || CUPTI_SO=$CUDA/extras/CUPTI/lib64/libcupti.so
export XPERF_CUPTI_LIB=$CUPTI_SO
# -cudart shared: libcudart is mapped at start, as the LD_PRELOAD path expects
NVFLAGS=(-O2 -I. -cudart shared -Xlinker -rpath="$CUDA/lib64" -I"$CUDA/extras/CUPTI/include"
	-DCUPTI_LIB="\"$CUPTI_SO\"" -ldl)
"$NVCC" "${NVFLAGS[@]}" -arch=native -o "$W/check_app" gpu/check/check_app.cu 2>/dev/null ||
	"$NVCC" "${NVFLAGS[@]}" -o "$W/check_app" gpu/check/check_app.cu || exit 1
"$NVCC" "${NVFLAGS[@]}" -arch=native -o "$W/streams_app" gpu/check/streams_app.cu 2>/dev/null ||
	"$NVCC" "${NVFLAGS[@]}" -o "$W/streams_app" gpu/check/streams_app.cu || exit 1
if [ $BUILD_ONLY -eq 1 ]; then
	echo "gpu_check: build ok (--build-only)"
	exit 0
fi
nvidia-smi -L | head -1

val() { sed -n "s/^$2=//p" "$1" | head -1; } # file key
# keep FILE NAME: a copy of a record file in $GPU_CHECK_KEEP (fixtures for tests without a GPU)
keep() { [ -n "${GPU_CHECK_KEEP:-}" ] && mkdir -p "$GPU_CHECK_KEEP" && cp "$1" "$GPU_CHECK_KEEP/$2"; }
app_val() { tr ' ' '\n' <"$1" | sed -n "s/^$2=//p"; }

# 1. Injection through the driver (CUDA_INJECTION64_PATH).
echo "gpu_check: collector via CUDA_INJECTION64_PATH"
CUDA_INJECTION64_PATH="$W/libxperf_cupti.so" XPERF_GPU_DIR="$W/inj" "$W/check_app" 50 \
	>"$W/inj.out" 2>"$W/inj.err"
check "app ran (exit 0)" test $? -eq 0
"$W/stats" "$W/inj" >"$W/inj.stats"
keep "$W"/inj/gpu-*.xpgpu check_app.xpgpu
cat "$W/inj.out"
grep -E '^(kernel|memcpy|memset|launch|sync)_count=|^dropped=|^notice=|^share_|^top_kernel=' \
	"$W/inj.stats" | sed 's/^/    /'
want=$(app_val "$W/inj.out" kernels)
got=$(val "$W/inj.stats" kernel_count)
check "kernel count exact: $got of $want" test "$got" = "$want"
check "20 launches of each kernel" test "$(grep -c '^top_kernel=20 ' "$W/inj.stats")" -eq 3
check "copies 5, memset 1" test "$(val "$W/inj.stats" memcpy_count)/$(val "$W/inj.stats" \
	memset_count)" = "5/1"
check "no records dropped" test "$(val "$W/inj.stats" dropped)" = 0
ev=$(app_val "$W/inj.out" event_kernel_ns)
kn=$(val "$W/inj.stats" kernel_ns)
err=$(awk -v a="$kn" -v b="$ev" \
	'BEGIN { d = a - b; if (d < 0) d = -d; printf "%.2f", 100 * d / b }')
check "kernel time $kn ns vs CUDA events $ev ns: ${err}% <= 5%" \
	awk -v e="$err" 'BEGIN { exit !(e <= 5) }'
stall=$(($(app_val "$W/inj.out" stalls) * $(app_val "$W/inj.out" stall_ms) * 1000000))
hw=$(val "$W/inj.stats" share_idle_host_wait_ns)
check "host stalls seen as GPU host wait: $hw ns >= 90% of $stall ns" \
	awk -v a="$hw" -v b="$stall" 'BEGIN { exit !(a >= 0.9 * b) }'
check "launch calls recorded (>= kernels)" test "$(val "$W/inj.stats" launch_count)" -ge "$want"
t0=$(app_val "$W/inj.out" t0_ns)
t1=$(app_val "$W/inj.out" t1_ns)
check "kernels on CLOCK_MONOTONIC: inside the app's own [t0, t1]" \
	test "$(val "$W/inj.stats" kernel_first_ns)" -ge "$t0" -a \
	"$(val "$W/inj.stats" kernel_last_ns)" -le "$t1"

# 2. LD_PRELOAD path.
echo "gpu_check: collector via LD_PRELOAD"
LD_PRELOAD="$W/libxperf_cupti.so" XPERF_GPU_DIR="$W/pre" "$W/check_app" 10 >"$W/pre.out" 2>&1
"$W/stats" "$W/pre" >"$W/pre.stats"
check "LD_PRELOAD: kernel count exact" test "$(val "$W/pre.stats" kernel_count)" = "$want"

# 3. Another profiler holds CUPTI: the collector steps back, the app is unharmed.
echo "gpu_check: CUPTI already held by the app itself"
CUDA_INJECTION64_PATH="$W/libxperf_cupti.so" XPERF_GPU_DIR="$W/held" "$W/check_app" 10 \
	--hold-cupti >"$W/held.out" 2>"$W/held.err"
check "app ran (exit 0)" test $? -eq 0
if [ "$(app_val "$W/held.out" holder_subscribe)" = 0 ]; then
	check "collector says CUPTI is held" grep -q 'held by another profiler' "$W/held.err"
	"$W/stats" "$W/held" >"$W/held.stats"
	check "collector recorded nothing" test "$(val "$W/held.stats" kernel_count)" = 0
else
	echo "  note the collector subscribed first (app's own subscribe returned" \
		"$(app_val "$W/held.out" holder_subscribe)); the held path was not exercised"
fi

# 4. SIGTERM during a long stall: what ran before is flushed.
echo "gpu_check: flush on SIGTERM"
XPERF_GPU_DIR="$W/sig" CUDA_INJECTION64_PATH="$W/libxperf_cupti.so" "$W/check_app" 3000 \
	>/dev/null 2>&1 &
pid=$!
sleep 2
kill -TERM $pid
wait $pid
rc=$?
"$W/stats" "$W/sig" >"$W/sig.stats"
check "killed by SIGTERM (status $rc = 143)" test $rc -eq 143
check "first round's 15 kernels flushed ($(val "$W/sig.stats" kernel_count))" \
	test "$(val "$W/sig.stats" kernel_count)" -ge 15

# 5. Two host threads, two streams, many short kernels: exact counts per
# stream, and each stream's idle charged to its own cause.
echo "gpu_check: two threads on two streams, many short kernels"
CUDA_INJECTION64_PATH="$W/libxperf_cupti.so" XPERF_GPU_DIR="$W/str" "$W/streams_app" 100 \
	>"$W/str.out" 2>"$W/str.err"
check "app ran (exit 0: $(head -c 200 "$W/str.err"))" test $? -eq 0
"$W/stats" "$W/str" >"$W/str.stats"
cat "$W/str.out"
grep -E '^(kernel_count|dropped|notice|stream)=' "$W/str.stats" | sed 's/^/    /'
ka=$(app_val "$W/str.out" kernels_a)
kb=$(app_val "$W/str.out" kernels_b)
check "kernel count exact: $(val "$W/str.stats" kernel_count) of $((ka + kb))" \
	test "$(val "$W/str.stats" kernel_count)" = $((ka + kb))
check "no records dropped" test "$(val "$W/str.stats" dropped)" = 0
sline() { grep "^stream=.* kernels=$1 " "$W/str.stats" | head -1; } # kernels
sval() { tr ' ' '\n' <<<"$1" | sed -n "s/^$2=//p"; }               # line key
sa=$(sline "$ka")
sb=$(sline "$kb")
check "two streams, with $ka and $kb kernels" test -n "$sa" -a -n "$sb" \
	-a "$(grep -c '^stream=' "$W/str.stats")" = 2
stall=$(app_val "$W/str.out" stall_ns)
hw=$(sval "$sa" idle_host_wait_ns)
check "stream A: its host stalls as host wait: ${hw:-0} ns >= 90% of $stall ns" \
	awk -v a="${hw:-0}" -v b="$stall" 'BEGIN { exit !(a >= 0.9 * b) }'
bs=$(app_val "$W/str.out" b_sync_ns)
sy=$(sval "$sb" idle_sync_ns)
check "stream B: idle inside its host's device syncs: ${sy:-0} ns >= 50% of the $bs ns it spent there" \
	awk -v a="${sy:-0}" -v b="$bs" 'BEGIN { exit !(a >= 0.5 * b && a <= 1.05 * b) }'
check "stream A's idle is not charged to B's syncs: sync $(sval "$sa" idle_sync_ns) ns < 10% of B's" \
	awk -v a="$(sval "$sa" idle_sync_ns)" -v b="${sy:-0}" 'BEGIN { exit !(a < 0.1 * b) }'
keep "$W"/str/gpu-*.xpgpu streams.xpgpu

# 6. Under xperf-bpf record, with the collector and the cuda uprobes at once
# (needs the xperf binaries: gpu/check/record_check.sh).
. gpu/check/record_check.sh

# 7. Overhead: loop time with / without the collector, interleaved.
echo "gpu_check: overhead (5 runs each, interleaved)"
: >"$W/bare.ms"
: >"$W/coll.ms"
for i in 1 2 3 4 5; do
	"$W/check_app" 10 >"$W/b.out" 2>/dev/null && app_val "$W/b.out" loop_ms >>"$W/bare.ms"
	rm -rf "$W/ovh"
	CUDA_INJECTION64_PATH="$W/libxperf_cupti.so" XPERF_GPU_DIR="$W/ovh" "$W/check_app" 10 \
		>"$W/c.out" 2>/dev/null && app_val "$W/c.out" loop_ms >>"$W/coll.ms"
done
median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
spread() { sort -n "$1" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%s-%s", lo, hi }'; }
mb=$(median "$W/bare.ms")
mc=$(median "$W/coll.ms")
printf "    %-12s %12s %16s\n" run "median ms" "min-max ms"
printf "    %-12s %12s %16s\n" bare "$mb" "$(spread "$W/bare.ms")"
printf "    %-12s %12s %16s\n" collector "$mc" "$(spread "$W/coll.ms")"
awk -v a="$mc" -v b="$mb" 'BEGIN { printf "    overhead ratio (collector / bare): %.3f\n", a / b }'

if [ $fail -eq 0 ]; then echo "gpu_check: PASS"; else echo "gpu_check: FAIL"; fi
exit $fail
