#!/usr/bin/env bash
# sched_accuracy_test.sh - scheduler accounting against ground truth:
# a busy-loop child's on-CPU time within 10% of its own getrusage, and a
# sleeping child's blocked time within 10% of the sleep it measured.
source "$(dirname "$(realpath "$0")")/lib.sh"

"$XB" record -q --raw "$T/busy.jsonl" -- "$WL" busy 400 > "$T/busy.out"
truth=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["rusage_cpu_ns"])' < "$T/busy.out")
pid=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])' < "$T/busy.out")
py "$T/busy.jsonl" 'abs(first("thread_exit", tid=pid)["oncpu_ns"] - truth) <= 0.10 * truth' \
	pid="$pid" truth="$truth"
# The process exit record's CPU time (sum_exec_runtime) agrees too.
py "$T/busy.jsonl" 'abs(first("exit", tgid=pid)["cpu_ns"] - truth) <= 0.10 * truth' \
	pid="$pid" truth="$truth"

"$XB" record -q --raw "$T/sleep.jsonl" -- "$WL" sleep 300 > "$T/sleep.out"
truth=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["slept_ns"])' < "$T/sleep.out")
pid=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])' < "$T/sleep.out")
py "$T/sleep.jsonl" 'abs(first("thread_exit", tid=pid)["blocked_ns"] - truth) <= 0.10 * truth' \
	pid="$pid" truth="$truth"
# A sleeper is mostly off-CPU: on-CPU is a small fraction of the sleep.
py "$T/sleep.jsonl" 'first("thread_exit", tid=pid)["oncpu_ns"] < 0.10 * truth' \
	pid="$pid" truth="$truth"
# The per-switch records integrate to the same totals as the kernel map.
py "$T/sleep.jsonl" 'abs(sum(r["prev_ns"] for r in of("sched") if r["tid"] == pid and r["prev_state"] == "blocked") - first("thread_exit", tid=pid)["blocked_ns"]) < 1000' pid="$pid"
echo PASS
