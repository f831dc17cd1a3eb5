#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bounds_test.sh - `xperf-bpf daemon --max-connections 2`: an agent (python3 on the
# system libssl) opens 6 TLS connections to the mock provider, one streaming call on
# each, all kept open until the last: the daemon evicts the 4 idlest in each tier (TLS
# and socket), no more, no fewer. Ground truth: the connections the mock accepted
# (one bytes file each) and the calls it answered. The evictions are in the session's
# capture.json ("bounds") and in /metrics (promtool-valid), and every call is still a
# turn (only idle state was evicted). With --max-agents 1, three agents started while it
# runs are refused, counted: two matched by a cmdline rule (refused before anything of
# them is traced) and one by an exe rule, which the kernel traces at its exec: the daemon
# stops tracing it at once, so its exit 0.6 s later never reaches the ring (--raw); /metrics
# counts them by rule and outcome. With --max-processes 8, the agent's 30 short children
# (/bin/true, one after another, before its calls) overflow its assembler's process table:
# the earliest exited are forgotten in quarters, counted alike in capture.json and /metrics
# (31 processes seen, 6 to 8 kept), and its calls are still turns. With --max-sched-marks
# 16, its threads' scheduler timelines (each streaming call blocks a dozen times at least)
# overflow too: forgotten in quarters, counted alike in capture.json and /metrics.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
fail() { echo "FAIL: $*"; cat "$tmp/err" 2>/dev/null; exit 1; }
conns=6 max=2 spawn=30 max_procs=8 max_marks=16
mkdir -p "$tmp/bytes"
start_mock --bytes "$tmp/bytes"
cp "$here/conn_agent.py" "$tmp/conn_agent.py"
# Names of this run only (another run of this test may trace at the same time); [.], [a]:
# the globs do not match a command line holding them, the daemon's own.
refused_exe_name=rexe$$
cp /bin/sleep "$tmp/refusedagent"
cp /bin/sleep "$tmp/$refused_exe_name"
"$xperf" daemon -o "$tmp/out" --node b --cmdline "*$tmp/conn_agent[.]py*" --max-connections $max \
	--max-processes $max_procs --max-sched-marks $max_marks \
	--cmdline "*$tmp/refused[a]gent*" --exe "$refused_exe_name" --max-agents 1 --raw "$tmp/raw.jsonl" \
	--metrics-listen 127.0.0.1:0 2> "$tmp/err" &
d=$!
pids+=($d)
for _ in $(seq 200); do grep -q ready "$tmp/err" && break; sleep 0.05; done
mport=$(sed -n 's/.*metrics on port \([0-9]*\).*/\1/p' "$tmp/err")
[ -n "$mport" ] || fail "no metrics port"
SPAWN=$spawn HOLD_S=3 "$py" "$tmp/conn_agent.py" "$port" "$tmp/mock/ca.pem" $conns \
	> "$tmp/agent.out" &
agent=$!
for _ in $(seq 300); do grep -q connections "$tmp/agent.out" && break; sleep 0.05; done
"$tmp/refusedagent" 0.1; "$tmp/refusedagent" 0.1 # while the first agent holds, traced
"$tmp/$refused_exe_name" 0.6 &
refused_exe=$!
wait $refused_exe
wait $agent
grep -q "connections $conns" "$tmp/agent.out" || fail "the agent did not make its calls"
for _ in $(seq 60); do grep -q 'session .* ended' "$tmp/err" && break; sleep 0.05; done
sleep 1.2 # the next /metrics refresh
curl -sf "http://127.0.0.1:$mport/metrics" > "$tmp/metrics.prom"
promtool check metrics < "$tmp/metrics.prom" || fail "promtool"
kill -TERM $d
wait $d
accepted=$(ls "$tmp/bytes" | grep -c '\.in$')
answered=$(grep -c '"request_received"' "$tmp/mock.jsonl")
[ "$accepted" = $conns ] || fail "the mock accepted $accepted connections, not $conns"
[ "$answered" = $conns ] || fail "the mock answered $answered calls, not $conns"
want=$((accepted - max))
cap=$(ls "$tmp"/out/b/*/capture.json)
python3 - "$cap" "$want" "$max" "$spawn" "$max_procs" "$max_marks" <<'PY' || fail "capture.json bounds"
import json, sys
b = json.load(open(sys.argv[1]))["bounds"]
want, cap, spawn, max_procs, max_marks = (int(x) for x in sys.argv[2:])
print("capture.json bounds:", b)
assert b["max_connections"] == cap, b
assert b["connections_evicted"] == {"tls": want, "socket": want}, b
assert b["connections_peak"] == {"tls": cap, "socket": cap}, b
# the agent and its children; at most max_procs kept, at least max_procs less a quarter
seen = 1 + spawn
assert b["max_processes"] == max_procs, b
assert seen - max_procs <= b["processes_evicted"] <= seen - (max_procs - max_procs // 4), b
# 6 calls of a dozen chunks or more each: their thread went past 16 transitions
assert b["max_sched_marks"] == max_marks and b["sched_marks_evicted"] >= 6 * 12 - max_marks, b
PY
value() { awk -v m="$1" '$1 == m { print $2 }' "$tmp/metrics.prom"; }
for tier in tls socket; do
	got=$(value "xperf_daemon_connections_evicted_total{tier=\"$tier\"}")
	[ "$got" = $want ] || fail "metrics: $tier evictions $got, not $want"
done
[ "$(value xperf_daemon_connections_open)" = 0 ] || fail "connections still open after exit"
[ "$(value xperf_daemon_agents_refused_total)" = 3 ] || fail "refused: not the 3 agents"
[ "$(value xperf_daemon_agents_traced_total)" = 1 ] || fail "traced: not the 1 agent"
matched() { value "xperf_daemon_rule_matches_total{rule=\"$1\",outcome=\"$2\"}"; }
[ "$(matched cmdline traced)/$(matched cmdline refused)/$(matched exe refused)" = 1/2/1 ] ||
	fail "rule matches: cmdline traced/refused, exe refused $(matched cmdline traced)/" \
		"$(matched cmdline refused)/$(matched exe refused), not 1/2/1"
evicted=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["bounds"]["processes_evicted"])' "$cap")
[ "$(value xperf_daemon_processes_evicted_total)" = "$evicted" ] ||
	fail "metrics: $(value xperf_daemon_processes_evicted_total) processes evicted, capture.json $evicted"
marks=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["bounds"]["sched_marks_evicted"])' "$cap")
[ "$(value xperf_daemon_sched_marks_evicted_total)" = "$marks" ] ||
	fail "metrics: $(value xperf_daemon_sched_marks_evicted_total) scheduler transitions evicted, capture.json $marks"
[ "$(value xperf_daemon_sched_marks_max)" = $max_marks ] || fail "metrics: sched_marks_max"
[ "$(grep -c 'refused: 1 agents traced' "$tmp/err")" = 3 ] || fail "no line per refusal"
python3 - "$tmp/raw.jsonl" $refused_exe <<'PY' || fail "the refused exe-rule agent still traced"
import json, sys
recs = [json.loads(x) for x in open(sys.argv[1])]
assert recs[-1]["type"] == "end"
assert not [r for r in recs if r.get("tgid") == int(sys.argv[2]) and r["type"] == "exit"]
PY
turns=$(ls "$(dirname "$cap")" | grep -c '^turn_.*\.json$')
[ "$turns" = $conns ] || fail "$turns turns, not one per call ($conns)"
echo "PASS: $conns connections, cap $max: $want evicted in each tier (capture.json," \
	"/metrics); $((1 + spawn)) processes, cap $max_procs: $evicted evicted; scheduler" \
	"transitions, cap $max_marks per thread: $marks evicted; $turns turns;" \
	"3 agents refused at --max-agents 1, counted by rule"
