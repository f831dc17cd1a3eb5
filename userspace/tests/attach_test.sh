#!/usr/bin/env bash
# attach_test.sh - `xperf-bpf attach --pid` on a running shell whose child
# (the workload, already running: found through /proc at attach) later
# starts a thread and a grandchild: all are seen, with the grandchild's
# exec and exit code, and the run ends by itself when the shell exits.
source "$(dirname "$(realpath "$0")")/lib.sh"

sh -c "\"$WL\" late 1500 > \"$T/late.out\"; true" &
shell=$!
sleep 0.3
timeout 20 "$XB" attach --pid $shell -q --raw "$T/raw.jsonl" -o "$T/out" ||
	fail "attach exited with $?"
wait $shell
wl=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])' < "$T/late.out")
child=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["child"])' < "$T/late.out")

py "$T/raw.jsonl" 'first("fork", tgid=wl, thread=True) is not None' wl="$wl"
py "$T/raw.jsonl" 'first("fork", tgid=wl, child_tgid=c)["depth"] == 2' wl="$wl" c="$child"
py "$T/raw.jsonl" 'first("exec", tgid=c)["argv"] == ["sh", "-c", "exit 7"]' c="$child"
py "$T/raw.jsonl" 'first("exit", tgid=c)["exit_code"] == 7' c="$child"
py "$T/raw.jsonl" 'first("exit", tgid=wl)["exit_code"] == 0' wl="$wl"
py "$T/raw.jsonl" 'first("exit", tgid=s)["exit_code"] == 0' s=$shell
# The late thread's scheduler totals arrive when it exits, and the
# workload's own at its exit: two thread_exit records for its tgid.
py "$T/raw.jsonl" 'len([r for r in of("thread_exit") if r["tgid"] == wl]) == 2' wl="$wl"
[ -f "$T"/out/*/capture.json ] || fail "no capture.json"
echo PASS
