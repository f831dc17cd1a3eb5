#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# mock_agent_test.sh - the mock provider and the sample agent on their own (no
# tracing): the agent runs its 6 turns against the demo script, and both logs
# say what the scenario promises: one 429 then a retry, tool exits 0 2 0 0 with
# one command repeated, one max_tokens cut, as many token events sent as
# output tokens reported, TLS with a CA the client verifies, both logs mode 0600.
set -euo pipefail
dir=$(cd "$(dirname "$0")" && pwd)
tmp=${TEST_TMPDIR:-$(mktemp -d)}/mock_agent
rm -rf "$tmp" && mkdir -p "$tmp"
python3 "$dir/mock_provider.py" --dir "$tmp" --scenario demo --log "$tmp/mock.jsonl" &
mock=$!
trap 'kill $mock 2>/dev/null || true' EXIT
for _ in $(seq 200); do [ -f "$tmp/port" ] && break; sleep 0.05; done
/usr/bin/python3 "$dir/sample_agent.py" --port "$(cat "$tmp/port")" --ca "$tmp/ca.pem" \
	--log "$tmp/agent.jsonl"
# the ground-truth logs (xperf demo's ground_truth/*.jsonl) are private like every output
for f in "$tmp/mock.jsonl" "$tmp/agent.jsonl"; do
	[ "$(stat -c %a "$f")" = 600 ] || { echo "FAIL: $f is mode $(stat -c %a "$f")" >&2; exit 1; }
done
# a client that does not trust the CA must be refused
if curl -sS "https://localhost:$(cat "$tmp/port")/" -o /dev/null 2>/dev/null; then
	echo "FAIL: an unverified client got through" >&2
	exit 1
fi
python3 - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
agent = [json.loads(l) for l in open(d + "/agent.jsonl")]
mock = [json.loads(l) for l in open(d + "/mock.jsonl")]
fails = []
def want(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    ok or fails.append(what)
done = [e for e in agent if e["event"] == "done"]
want(done and done[0]["turns"] == 6, "six turns")
llm = [e for e in agent if e["event"] == "llm"]
want([e["status"] for e in llm] == [429] + [200] * 6, "a 429, then six answers")
tools = [e for e in agent if e["event"] == "tool"]
want([t["exit"] for t in tools] == [0, 2, 0, 0], "tool exit codes 0 2 0 0")
want(tools[0]["argv"] == tools[3]["argv"], "the first command is repeated")
want(sum(e["event"] == "answer" and e["stop"] == "max_tokens" for e in agent) == 1, "one max_tokens cut")
ends = {m["id"]: m for m in mock if m["event"] == "end"}
toks = {}
for m in mock:
    if m["event"] == "token_sent":
        toks[m["id"]] = toks.get(m["id"], 0) + 1
want(all(toks.get(i, 0) == e["output_tokens"] for i, e in ends.items()), "token events = output tokens")
want(all(m["t_ns"] <= m.get("t_done_ns", m["t_ns"]) for m in mock), "write intervals ordered")
sys.exit(1 if fails else 0)
PY
