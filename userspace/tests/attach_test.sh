#!/usr/bin/env bash
# attach_test.sh - `xperf-bpf attach --pid` on a running process sees the
# thread and the child (and its exec and exit code) it starts later, and
# ends by itself when the target exits.
source "$(dirname "$(realpath "$0")")/lib.sh"

"$WL" late 1500 > "$T/late.out" &
wl=$!
sleep 0.3
timeout 20 "$XB" attach --pid $wl -q --raw "$T/raw.jsonl" -o "$T/out" ||
	fail "attach exited with $?"
wait $wl
child=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["child"])' < "$T/late.out")

py "$T/raw.jsonl" 'first("fork", tgid=wl, thread=True) is not None' wl=$wl
py "$T/raw.jsonl" 'first("fork", tgid=wl, child_tgid=c)["depth"] == 1' wl=$wl c="$child"
py "$T/raw.jsonl" 'first("exec", tgid=c)["argv"] == ["sh", "-c", "exit 7"]' c="$child"
py "$T/raw.jsonl" 'first("exit", tgid=c)["exit_code"] == 7' c="$child"
py "$T/raw.jsonl" 'first("exit", tgid=wl)["exit_code"] == 0' wl=$wl
# The thread's scheduler totals arrive when it exits.
py "$T/raw.jsonl" 'len([r for r in of("thread_exit") if r["tgid"] == wl]) == 2' wl=$wl
[ -f "$T/out/capture.json" ] || fail "no capture.json"
echo PASS
