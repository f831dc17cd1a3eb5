#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# kill_agent_test.sh [N] - the sample agent, traced by `xperf-bpf record`, is
# SIGKILLed at N (default 20) random instants of a session whose answers stream
# most of the time (mock scenario "stream"), so most kills land mid-stream. After
# each: xperf-bpf exits on its own within 20 s, every turn file validates, every
# turn but the last says complete: true, and the last one (the turn the kill cut)
# says complete: false. Prints how many kills landed inside an exchange.
set -uo pipefail
run=${TEST_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}/${TEST_WORKSPACE:-xperf}
xperf=$run/cli/xperf bpf=$run/cli/xperf-bpf demo=$run/demo
tmp=${TEST_TMPDIR:-$(mktemp -d)}/kill_agent
rm -rf "$tmp" && mkdir -p "$tmp"
runs=${1:-20} fails=0 mock= rec=
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
stop() { for p in $rec $mock; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rec= mock=; }
trap stop EXIT

# The pid of $1's child running the agent (once it exec'd), waiting up to 10 s for it.
agent_of() {
	for _ in $(seq 500); do
		for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
			grep -qa sample_agent.py /proc/"$c"/cmdline 2>/dev/null && { echo "$c"; return; }
		done
		sleep 0.02
	done
}

for i in $(seq "$runs"); do
	d=$tmp/$i
	mkdir -p "$d/mock"
	python3 "$demo/mock_provider.py" --dir "$d/mock" --scenario stream --log "$d/mock.jsonl" &
	mock=$!
	for _ in $(seq 200); do [ -f "$d/mock/port" ] && break; sleep 0.05; done
	XPERF_SESSION_ID=k$i "$bpf" record -q -o "$d/out" -- /usr/bin/python3 \
		"$demo/sample_agent.py" --port "$(cat "$d/mock/port")" --ca "$d/mock/ca.pem" \
		--max-turns 30 --max-tokens 64 2>"$d/record.err" &
	rec=$!
	agent=$(agent_of "$rec")
	delay=$(python3 -c "import random; print(round(random.uniform(0.5, 4.0), 3))")
	sleep "$delay"
	[ -n "$agent" ] || fail "run $i: no agent process"
	kill -KILL "$agent" || fail "run $i: the agent ended before the kill"
	for _ in $(seq 200); do kill -0 "$rec" 2>/dev/null || break; sleep 0.1; done
	kill -0 "$rec" 2>/dev/null && fail "run $i: xperf-bpf still running 20 s after the kill"
	stop
	ls "$d/out/k$i"/turn_*.json >/dev/null 2>&1 &&
		{ "$xperf" validate "$d/out/k$i"/turn_*.json >/dev/null 2>&1 || fail "run $i: invalid turn files"; }
	python3 - "$d/out/k$i" "$i" "$delay" <<'PY' || fails=$((fails + 1))
import glob, json, sys
turns = [json.load(open(f)) for f in sorted(glob.glob(sys.argv[1] + "/turn_*.json"))]
if not turns:
    print("run %s: killed at %s s: no turn yet" % (sys.argv[2], sys.argv[3]))
    sys.exit(0)
last = turns[-1]
cut = any(m.get("kind") == "aborted_stream" for m in last.get("waste_marks", []))
unanswered = any(s.get("stage") == "llm_inference" and
                 s.get("attributes", {}).get("http.response.status_code") is None
                 for s in last["spans"])
print("run %s: killed at %s s: %d turns, last %s%s" % (sys.argv[2], sys.argv[3], len(turns),
      "complete" if last["complete"] else "incomplete",
      " (mid-stream)" if cut else " (in a request)" if unanswered else ""))
bad = [t["turn_index"] for t in turns[:-1] if not t["complete"]]
if bad or last["complete"]:
    print("FAIL: complete flags wrong: earlier incomplete %s, last complete %s" % (bad, last["complete"]))
    sys.exit(1)
PY
done
echo "$fails failure(s) in $runs kills"
[ "$fails" -eq 0 ]
