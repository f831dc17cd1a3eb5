#!/usr/bin/env bash
# attach_test.sh - `xperf-bpf attach --pid` on a running shell whose child
# (the workload, already running: found through /proc at attach) later
# starts a thread and a grandchild: all are seen, with the grandchild's
# exec and exit code, and the run ends by itself when the shell exits.
source "$(dirname "$(realpath "$0")")/lib.sh"

# The workload starts its thread and child at SIGUSR1, sent once xperf-bpf
# says it is tracing (under load its start-up alone took over 2 s).
sh -c "\"$WL\" late 30000 > \"$T/late.out\" 2> \"$T/late.pid\"; true" &
shell=$!
for _ in $(seq 200); do [ -s "$T/late.pid" ] && break; sleep 0.05; done
wl=$(cat "$T/late.pid")
timeout 40 "$XB" attach --pid $shell --raw "$T/raw.jsonl" -o "$T/out" 2> "$T/attach.err" &
xb=$!
for _ in $(seq 400); do grep -q "^xperf-bpf: tracing pid $shell$" "$T/attach.err" && break; sleep 0.05; done
kill -USR1 "$wl"
wait $xb || fail "attach exited with $? ($(cat "$T/attach.err"))"
wait $shell
[ "$(python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])' < "$T/late.out")" = "$wl" ] ||
	fail "the workload's pid is not $wl"
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
