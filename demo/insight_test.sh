#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# insight_test.sh - `xperf top` and `xperf diff` on agents traced by xperf-bpf (root):
#   top: in an 80x24 tmux pane while the sample agent runs under `record`: the session is
#     listed as recording with the agent's own pid and its turns so far; keys s (sort), d
#     (detail pane) and q (quit) act; after the run `top --once` shows the mock's token
#     counts, and the cost is exactly those tokens x the price table;
#   waste tokens: the demo scenario's failed, cut and retried exchanges and the answers
#     that asked for the failing and the repeated tool call, from the mock's and the
#     agent's own logs;
#   diff: the mock's `steady` and `stall` scenarios (the same nine tool turns; a 300 ms stall
#     in every answer's stream in the second), twice each, interleaved: the L3 points that
#     moved are exactly fused.supply.streaming_gap.
set -uo pipefail
run=${TEST_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}/${TEST_WORKSPACE:-xperf}
xperf=$run/cli/xperf bpf=$run/cli/xperf-bpf demo=$run/demo
tmp=${TEST_TMPDIR:-$(mktemp -d)}/insight
rm -rf "$tmp" && mkdir -p "$tmp"
fails=0 mock= pane=xperf-top-$$
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
cleanup() {
	tmux kill-session -t "$pane" 2>/dev/null
	[ -n "$mock" ] && kill "$mock" 2>/dev/null
	wait 2>/dev/null
}
trap cleanup EXIT
printf 'date 2026-12-03\nmock-*  3 15 0.3 3.75 15\n' >"$tmp/prices.tsv"

start_mock() { # start_mock DIR SCENARIO
	mkdir -p "$1"
	python3 "$demo/mock_provider.py" --dir "$1" --scenario "$2" --log "$1/mock.jsonl" &
	mock=$!
	for _ in $(seq 200); do [ -f "$1/port" ] && break; sleep 0.05; done
}
agent() { # agent MOCKDIR OUT SESSION TURNS: the sample agent under record
	XPERF_SESSION_ID=$3 "$bpf" record --quiet -o "$2" -- python3 "$demo/sample_agent.py" \
		--port "$(cat "$1/port")" --ca "$1/ca.pem" --max-turns "$4" --log "$1/agent.jsonl"
}
screen() { tmux capture-pane -p -t "$pane"; }

echo "== xperf top in an 80x24 tmux pane, while the agent runs"
start_mock "$tmp/m-live" long
agent "$tmp/m-live" "$tmp/live" live 6 &
rec=$!
tmux new-session -d -s "$pane" -x 80 -y 24 \
	"$xperf top $tmp/live --prices $tmp/prices.tsv --interval 0.5"
for _ in $(seq 100); do [ -f "$tmp/live/live/turn_002.json" ] && break; sleep 0.1; done
sleep 1.2
pid=$(python3 -c 'import json, sys; print(json.loads(open(sys.argv[1]).readline())["pid"])' \
	"$tmp/m-live/agent.jsonl") # the agent's own word
screen >"$tmp/screen1"
cat "$tmp/screen1"
[ "$(wc -l <"$tmp/screen1")" -le 24 ] || fail "top: more than 24 lines"
awk 'length($0) > 80 { bad = 1 } END { exit bad }' "$tmp/screen1" || fail "top: wider than 80"
grep -q "1 session, 1 recording" "$tmp/screen1" || fail "top: not recording"
row=$(grep "^>live " "$tmp/screen1")
[ -n "$pid" ] && echo "$row" | grep -qw "$pid" || fail "top: agent pid $pid not on '$row'"
turns=$(echo "$row" | awk '{ print $4 }')
[ "${turns:-0}" -ge 2 ] || fail "top: $turns turns shown"
echo "$row" | grep -qE "tool|waiting|on CPU" || fail "top: no current stage on '$row'"
grep -q "turn    wall ms" "$tmp/screen1" || fail "top: no detail pane"
tmux send-keys -t "$pane" s; sleep 0.5
screen | grep -q "sort: turns" || fail "top: s did not change the sort"
tmux send-keys -t "$pane" d; sleep 0.5
screen | grep -q "turn    wall ms" && fail "top: d did not hide the detail pane"
tmux send-keys -t "$pane" q; sleep 0.5
tmux has-session -t "$pane" 2>/dev/null && fail "top: q did not quit"
wait "$rec" || fail "record failed"
kill "$mock"; wait "$mock" 2>/dev/null; mock=

echo "== top --once after the run: tokens = the mock's, cost = tokens x the table"
"$xperf" top "$tmp/live" --once --prices "$tmp/prices.tsv" >"$tmp/once.txt" || fail "--once"
"$xperf" analyze session "$tmp/live/live" --prices "$tmp/prices.tsv" >"$tmp/live.json" 2>/dev/null
python3 - "$tmp/once.txt" "$tmp/live.json" "$tmp/m-live/mock.jsonl" <<'PY' || fail "top: tokens/cost"
import json, re, sys
once, rep = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
ends = [e for e in map(json.loads, open(sys.argv[3])) if e["event"] == "end"]
tin, tout = sum(e["input_tokens"] for e in ends), sum(e["output_tokens"] for e in ends)
cost = (tin * 3 + tout * 15) / 1e6
m = re.search(r"in (\d+) out (\d+) .*\$([0-9.]+)", once)
assert m, once
assert (int(m.group(1)), int(m.group(2))) == (tin, tout), (m.groups(), tin, tout)
assert m.group(3) == "%.4f" % cost, (m.group(3), cost)
tok = rep["tokens"]
assert (tok["input"], tok["output"], tok["unpriced_calls"]) == (tin, tout, 0), tok
assert abs(tok["cost_usd"] - cost) <= 1e-12 * cost, (tok["cost_usd"], cost)
assert " ended " in once, once
print("top: %d exchanges, %d + %d tokens, $%.6f, as the mock logged" % (len(ends), tin, tout, cost))
PY

echo "== waste tokens of the demo scenario = the mock's tokens of the wasted exchanges"
start_mock "$tmp/m-demo" demo
agent "$tmp/m-demo" "$tmp/demo" demo 10 || fail "demo: record failed"
kill "$mock"; wait "$mock" 2>/dev/null; mock=
"$xperf" analyze session "$tmp/demo/demo" >"$tmp/demo.json" 2>/dev/null || fail "demo: analyze"
python3 - "$tmp/demo.json" "$tmp/m-demo/mock.jsonl" "$tmp/m-demo/agent.jsonl" <<'PY' || fail "waste tokens"
import json, sys
rep = json.load(open(sys.argv[1]))
ends = [e for e in map(json.loads, open(sys.argv[2])) if e["event"] == "end"]
tools = [e for e in map(json.loads, open(sys.argv[3])) if e["event"] == "tool"]
# A whole exchange is waste when it failed or was cut; an answer's output when the tool it
# asked for failed or repeated an earlier command line (the agent's own log).
seen, asked_waste, it = set(), [], iter(tools)
for e in ends:
    if e["status"] == 200 and e.get("tools"):
        t = next(it)
        cmd = " ".join(t["argv"])
        asked_waste.append(t["exit"] != 0 or cmd in seen)
        seen.add(cmd)
    else:
        asked_waste.append(False)
whole = [e["status"] >= 400 or e.get("stop_reason") == "max_tokens" for e in ends]
want_in = sum(e.get("input_tokens", 0) for e, w in zip(ends, whole) if w)
want_out = sum(e.get("output_tokens", 0) for e, w, a in zip(ends, whole, asked_waste) if w or a)
got = rep["tokens"]["waste"]
assert (got["input"], got["output"]) == (want_in, want_out), (got, want_in, want_out)
assert got["calls"] == sum(1 for w, a in zip(whole, asked_waste) if w or a), got
print("waste tokens: %d in, %d out in %d calls, as the mock and the agent logged" % (
    want_in, want_out, got["calls"]))
PY

echo "== xperf diff: steady vs stall, two runs each, interleaved"
for r in 1 2; do
	for scn in steady stall; do
		start_mock "$tmp/m-$scn-$r" "$scn"
		agent "$tmp/m-$scn-$r" "$tmp/$scn" "run$r" 12 || fail "$scn run $r: record failed"
		kill "$mock"; wait "$mock" 2>/dev/null; mock=
	done
done
# The stall is 300 ms per turn; 30 ms per turn is far above this machine's run-to-run noise
# under parallel builds and far below the stall.
"$xperf" diff "$tmp/steady" "$tmp/stall" --min-ms 30 --format json >"$tmp/diff.json" || fail "diff"
"$xperf" diff "$tmp/steady" "$tmp/stall" --min-ms 30 | tee "$tmp/diff.txt" | head -20
python3 - "$tmp/diff.json" <<'PY' || fail "diff: moved points"
import json, sys
d = json.load(open(sys.argv[1]))
moved = [p for p in d["points"] if p["significant"] and p["level"] == 3]
assert [p["id"] for p in moved] == ["fused.supply.streaming_gap"], [p["id"] for p in moved]
p = moved[0]
assert 200 < p["delta_ms_per_turn"] < 400 and p["ci_ms_per_turn"][0] > 0, p
assert d["a"]["sessions"] == 2 and d["b"]["sessions"] == 2, (d["a"], d["b"])
print("diff: moved %s by %+.1f ms per turn [%+.1f, %+.1f]" % (
    p["id"], p["delta_ms_per_turn"], *p["ci_ms_per_turn"]))
PY
[ "$fails" = 0 ] && echo "insight_test: all passed"
exit "$fails"
