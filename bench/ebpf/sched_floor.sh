#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# sched_floor.sh [REPS] [ROUNDS] - why the untraced ping-pong target (<= 1.03x
# bare while xperf-bpf traces another process) is or is not reachable with a
# scheduler tier on tracepoints: the ping-pong (userspace/testing/workload
# pingpong ROUNDS, default 20000 round trips: a context switch and a wakeup per
# step) bare; under empty programs on the same tracepoints (sched_floor.bpf.c:
# sched_switch, sched_wakeup, sched_wakeup_new); under programs that do only
# xperf's filter for an untraced task ("filter": the traced_flags byte of the
# tasks' tgids); and untraced while `xperf-bpf attach` traces an idle process
# (xperf_other: all its default programs and its consumer; xperf_nowatch: with
# --no-plaintext --no-cuda, no map watch and no uprobes). REPS rounds (default
# 11), the modes in a rotating order within each, so that the load of other jobs
# hits each alike. PIN=CPU runs both ends of the ping-pong on that CPU (no
# cross-CPU wakeups: a steadier measure). Prints the CPU time of the
# ping-pong's two processes (median, min-max), the ratio of medians to bare
# and the median of each run's ratio to the bare run of its own round; then ns
# per call of each mode's programs (kernel.bpf_stats, one ping-pong each).
# Root; builds what it needs (-c opt).
set -euo pipefail
REPS=${1:-11}
ROUNDS=${2:-20000}
PIN=${PIN:+taskset -c $PIN}	# PIN=CPU: both ends of the ping-pong on that CPU
cd "$(dirname "$0")/../.."
. bench/bpf_progs.sh
bazel build -c opt //cli:xperf-bpf //userspace/testing:workload \
	//bench/ebpf:sched_floor_attach >/dev/null 2>&1
XB=$PWD/bazel-bin/cli/xperf-bpf
WL=$PWD/bazel-bin/userspace/testing/workload
FLOOR=$PWD/bazel-bin/bench/ebpf/sched_floor_attach
T=$(mktemp -d)
stats_was=$(sysctl -n kernel.bpf_stats_enabled)
sleep 100000 &
sleeper=$!
trap 'kill $sleeper 2>/dev/null; sysctl -qw kernel.bpf_stats_enabled=$stats_was; rm -rf "$T"' EXIT

cpu_ns() { python3 -c 'import json, sys; print(json.loads(sys.stdin.readline())["cpu_ns"])'; }

# start_mode MODE: load MODE's programs (the loader's pid in $loader); stop_mode: unload them
start_mode() {
	case $1 in
	bare) loader= ;;
	empty|filter)
		"$FLOOR" $1 > "$T/floor.out" &
		loader=$!
		until grep -q attached "$T/floor.out" 2>/dev/null; do sleep 0.05; done
		sleep 0.5 ;;
	xperf_other|xperf_nowatch)
		"$XB" attach -q $([ $1 = xperf_nowatch ] && echo --no-plaintext --no-cuda) \
			--pid $sleeper -o "$T/att" &
		loader=$!
		steady_prog_ids $loader 1 > /dev/null ;;
	esac
}
stop_mode() { [ -z "$loader" ] || { kill -INT $loader; wait $loader || true; }; }

modes=(bare empty filter xperf_other xperf_nowatch)
for r in $(seq "$REPS"); do
	for i in 0 1 2 3 4; do
		mode=${modes[$(((r + i) % 5))]}
		quiet_probes "sys_enter|sys_exit" syscall # on the fallback every syscall pays
		start_mode $mode
		echo "$r $mode $($PIN "$WL" pingpong "$ROUNDS" | cpu_ns)" >> "$T/runs"
		stop_mode
	done
done

# ns per call of each program during one ping-pong, per mode with programs
sysctl -qw kernel.bpf_stats_enabled=1
for mode in empty filter xperf_other xperf_nowatch; do
	start_mode $mode
	ids=$(prog_ids $loader)
	prog_stats_json $ids > "$T/$mode.before"
	"$WL" pingpong "$ROUNDS" > /dev/null
	prog_stats_json $ids > "$T/$mode.after"
	stop_mode
done
sysctl -qw kernel.bpf_stats_enabled="$stats_was"

python3 - "$T" "$REPS" "$ROUNDS" <<'PY'
import statistics, sys
sys.path.insert(0, "bench")
from bpf_progs import load
t, reps, rounds = sys.argv[1:4]
med = statistics.median
cpu, by_rep = {}, {}
for line in open(t + "/runs"):
    r, mode, ns = line.split()
    cpu.setdefault(mode, []).append(int(ns) / 1e6)
    by_rep.setdefault(r, {})[mode] = int(ns)
bare = med(cpu["bare"])
print("Ping-pong, %s round trips, %s rounds of the modes (rotating order): CPU ms of its"
      " two processes" % (rounds, reps))
print()
print("| mode | CPU ms | min-max | ratio of medians | paired ratio: median (min-max) |")
print("| --- | --- | --- | --- | --- |")
for mode in ("bare", "empty", "filter", "xperf_other", "xperf_nowatch"):
    v = sorted(cpu[mode])
    paired = sorted(m[mode] / m["bare"] for m in by_rep.values())
    print("| %s | %.1f | %.1f-%.1f | %.3f | %.3f (%.3f-%.3f) |" % (
        mode, med(v), v[0], v[-1], med(v) / bare, med(paired), paired[0], paired[-1]))

print()
print("Programs during one ping-pong (kernel.bpf_stats: calls by the whole machine, ns per call"
      " with bpf_stats' own two clock reads)")
print()
print("| mode | program | calls | ns/call | ms in all |")
print("| --- | --- | --- | --- | --- |")
for mode in ("empty", "filter", "xperf_other", "xperf_nowatch"):
    a, b = load("%s/%s.before" % (t, mode)), load("%s/%s.after" % (t, mode))
    for name in sorted(b):
        c = b[name][0] - a.get(name, (0, 0))[0]
        ns = b[name][1] - a.get(name, (0, 0))[1]
        if c > 0:
            print("| %s | %s | %d | %.0f | %.2f |" % (mode, name, c, ns / c, ns / 1e6))
PY
