#!/usr/bin/env bash
# signal_test.sh - SIGINT during `record`: xperf-bpf flushes the raw dump
# (ending with its end record), writes capture.json, detaches every BPF
# program it loaded and exits 0 within 3 s (a loaded 2-core VM); the command runs on.
source "$(dirname "$(realpath "$0")")/lib.sh"

"$XB" record --raw "$T/raw.jsonl" -o "$T/out" -- "$WL" sleep 30000 > /dev/null 2> "$T/err" &
xb=$!
ids=""
for _ in $(seq 100); do
	ids=$(cat /proc/$xb/fdinfo/* 2>/dev/null | sed -n 's/^prog_id:\s*//p' | sort -u || true)
	child=$(pgrep -P $xb || true)
	[ -n "$ids" ] && [ -n "$child" ] && [ "$(readlink /proc/$child/exe)" = "$WL" ] && break
	sleep 0.1
done
[ -n "$ids" ] || fail "no BPF programs held by xperf-bpf"
sleep 0.3
kill -INT $xb
start=$(date +%s%N)
wait $xb || fail "xperf-bpf exited with $? after SIGINT"
elapsed=$((($(date +%s%N) - start) / 1000000))
[ $elapsed -lt 3000 ] || fail "took $elapsed ms to stop"
grep -q "Interrupt: detaching" "$T/err" || fail "no detach message: $(cat "$T/err")"
py "$T/raw.jsonl" 'first("exec", tgid=c) is not None and end["dropped"] == 0' c="$child"
[ -f "$T"/out/*/capture.json ] || fail "no capture.json after SIGINT"
# The command still runs: its totals come from the live in-kernel map.
python3 - "$T"/out/*/capture.json "$child" <<'PY' || fail "capture.json lacks the live thread"
import json, sys
t = [t for t in json.load(open(sys.argv[1]))["threads"] if t["tid"] == int(sys.argv[2])]
assert len(t) == 1 and not t[0]["exited"] and t[0]["oncpu_ns"] > 0, t
PY
for id in $ids; do
	! bpftool prog show id "$id" > /dev/null 2>&1 || fail "program $id still loaded"
done
kill -0 "$child" || fail "the command did not survive the detach"
kill "$child"
echo PASS
