#!/usr/bin/env bash
# sched_accuracy_test.sh - scheduler accounting against ground truth:
# a busy-loop child's on-CPU time within 10% of its own getrusage, and a
# sleeping child's blocked time within 10% of the sleep it measured.
source "$(dirname "$(realpath "$0")")/lib.sh"

# measure MODE MS KEY [OPTION...]: trace the workload; set pid and truth (its KEY).
measure() {	# extra xperf-bpf options in $4...
	"$XB" record -q "${XB_OPTS[@]}" --raw "$T/$1.jsonl" "${@:4}" -- "$WL" "$1" "$2" > "$T/$1.out"
	truth=$(python3 -c 'import json,sys; print(json.load(sys.stdin)[sys.argv[1]])' "$3" \
		< "$T/$1.out")
	pid=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])' < "$T/$1.out")
}

measure busy 400 rusage_cpu_ns
py "$T/busy.jsonl" 'abs(first("thread_exit", tid=pid)["oncpu_ns"] - truth) <= 0.10 * truth' \
	pid="$pid" truth="$truth"
# The process exit record's CPU time (sum_exec_runtime) agrees too.
py "$T/busy.jsonl" 'abs(first("exit", tgid=pid)["cpu_ns"] - truth) <= 0.10 * truth' \
	pid="$pid" truth="$truth"

measure sleep 300 slept_ns
py "$T/sleep.jsonl" 'abs(first("thread_exit", tid=pid)["blocked_ns"] - truth) <= 0.10 * truth' \
	pid="$pid" truth="$truth"
# A sleeper is mostly off-CPU: on-CPU is a small fraction of the sleep.
py "$T/sleep.jsonl" 'first("thread_exit", tid=pid)["oncpu_ns"] < 0.10 * truth' \
	pid="$pid" truth="$truth"
# The per-switch records integrate to the same totals as the kernel map.
blocked='sum(r["prev_ns"] for r in of("sched") if r["tid"] == pid and r["prev_state"] == "blocked")'
py "$T/sleep.jsonl" "abs($blocked - first('thread_exit', tid=pid)['blocked_ns']) < 1000" pid="$pid"
# --no-sched-events: no per-change records, the same totals.
measure busy 200 rusage_cpu_ns --no-sched-events
py "$T/busy.jsonl" 'not of("sched")'
py "$T/busy.jsonl" 'abs(first("thread_exit", tid=pid)["oncpu_ns"] - truth) <= 0.10 * truth' \
	pid="$pid" truth="$truth"
echo PASS
