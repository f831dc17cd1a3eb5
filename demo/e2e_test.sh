#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# e2e_test.sh - the whole chain on the real kernel (root): `xperf demo` and four
# TLS clients traced by xperf-bpf against the mock provider, every result checked
# against the mock's (and the agent's) own log by check_ground_truth.py:
#   demo (python3 + system libssl): turns, tool calls, exit codes, waste marks exact;
#     TTFT/decode within 5 ms; tokens exact; ciphertext tier within 2 ms of plaintext
#   curl (libssl): the same per exchange; node (static OpenSSL): the same but the
#     tier agreement (see below)
#   bun --compile (BoringSSL, no symbols): the tier each turn reports (ciphertext, or
#     plaintext where BoringSSL is located), timings within 5 ms
#   setup: two requests in one curl, the first on a new connection: its TCP + TLS set-up
#     (connection_setup) ends within 5 ms of the mock's accept, no longer than curl's own
#     time_appconnect - time_namelookup (+0.5 ms); none for the reused connection
#   curl --http2 against node's http2 server: HTTP/2 in the plaintext tier
#   h2_head: curl --http2 against clients/h2_head_server.py (HEADERS at once, the first
#     token 300 ms later, or both together; fresh and keep-alive), both tiers: TTFT within
#     5 ms (plaintext) / 10 ms (ciphertext) of the server's write of the first token
#   attach to a running agent, detach while it still runs: the turns so far, the last
#     one marked incomplete
#   fidelity: what real agent CLIs do (probes, a response head 300 ms before the first
#     token, compressed bodies both ways, a side request, a self-re-exec sandbox wrapper,
#     failing housekeeping processes) by sample_agent.py --fidelity (python3, libssl)
#     and clients/bun_agent.js (bun --compile), each traced with and without plaintext,
#     checked by check_fidelity.py
#   agents: two agent processes under one record, each with turns of its own
# and every TurnTrace file validates (xperf validate). Arguments choose the cases
# (default: demo attach curl setup h2 h2_head bun fidelity agents; node runs as
# //demo:e2e_node_test).
set -uo pipefail
run=${TEST_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}/${TEST_WORKSPACE:-xperf}
src=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd) # the source tree (for bun)
xperf=$run/cli/xperf bpf=$run/cli/xperf-bpf demo=$run/demo
tmp=${TEST_TMPDIR:-$(mktemp -d)}/e2e
bun=${XPERF_BUN:-$src/third_party/npm/node_modules/bun/bin/bun.exe}
rm -rf "$tmp" && mkdir -p "$tmp"
fails=0 mock=

fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
stop_mock() { [ -n "$mock" ] && kill "$mock" 2>/dev/null; wait "$mock" 2>/dev/null; mock=; }
trap stop_mock EXIT

validate() { # every turn file of a session directory
	ls "$1"/turn_*.json >/dev/null 2>&1 || { fail "$1: no turn files"; return; }
	local out
	out=$("$xperf" validate "$1"/turn_*.json 2>&1) || { echo "$out" >&2; fail "$1: files do not validate"; }
}

# How close the two tiers' timings of one exchange must be. On the raw syscall
# hooks the request's start has been seen 3.4-4.2 ms apart from the SSL_write's
# (2 of 3 CI runs, end and TTFT within 0.03 ms; cause not yet found): 5 ms there.
tiers_ms=2
[ "${XPERF_SOCKET_HOOKS:-}" = syscalls ] && tiers_ms=5

# client NAME TIER TIERS_MS CMD... : PORT and CA in CMD are replaced
client() {
	local name=$1 tier=$2 tiers=$3 d=$tmp/$1 args=()
	shift 3
	mkdir -p "$d"
	python3 "$demo/mock_provider.py" --dir "$d" --scenario simple --log "$d/mock.jsonl" &
	mock=$!
	for _ in $(seq 200); do [ -f "$d/port" ] && break; sleep 0.05; done
	for a in "$@"; do a=${a//PORT/$(cat "$d/port")}; args+=("${a//CA/$d/ca.pem}"); done
	NODE_EXTRA_CA_CERTS=$d/ca.pem XPERF_SESSION_ID=$name "$bpf" record --quiet -o "$d/out" \
		-- "${args[@]}" || fail "$name: record failed"
	stop_mock
	echo "== $name"
	python3 "$demo/check_ground_truth.py" --traces "$d/out/$name" --mock "$d/mock.jsonl" \
		--tier "$tier" ${tiers:+--tiers-ms "$tiers"} || fail "$name: ground truth"
	validate "$d/out/$name"
}

case_demo() {
echo "== xperf demo"
"$xperf" demo -o "$tmp/demo" >"$tmp/demo.out" 2>&1 || { cat "$tmp/demo.out"; fail "demo"; }
grep -q "HTML report:" "$tmp/demo.out" || fail "demo: no report line"
session=$(ls -d "$tmp"/demo/demo-* 2>/dev/null | head -1)
python3 "$demo/check_ground_truth.py" --traces "$session" --mock "$tmp/demo/ground_truth/mock.jsonl" \
	--agent "$tmp/demo/ground_truth/agent.jsonl" --tiers-ms "$tiers_ms" || fail "demo: ground truth"
validate "$session"
[ -s "$session/report.html" ] || fail "demo: no HTML report"
[ -s "$session/report.turn_001.html" ] || fail "demo: no page for turn 1 next to the report"
# The analyzer charges the wait after the 429 to fused.supply.rate_limit, as long
# as the agent's own wait (its log: 429 answer parsed -> retry sent).
"$xperf" analyze session "$session" --format json >"$tmp/demo.json" || fail "demo: analyze json"
python3 - "$tmp/demo.json" "$tmp/demo/ground_truth/agent.jsonl" <<'PY' || fail "demo: rate limit time"
import json, sys
l3 = {p["id"]: p for p in json.load(open(sys.argv[1]))["l3"]}
llm = [e for e in map(json.loads, open(sys.argv[2])) if e["event"] == "llm"]
want = sum(b["t_send_ns"] - a["t_done_ns"] for a, b in zip(llm, llm[1:])
           if a["status"] == 429 and b["attempt"] > 0)
got = l3["fused.supply.rate_limit"]["ns"]
print("fused.supply.rate_limit %.2f ms, agent waited %.2f ms" % (got / 1e6, want / 1e6))
sys.exit(not (want > 0 and abs(got - want) <= 5e6))
PY
}

case_attach() {
echo "== attach to a running agent, detach before it ends"
d=$tmp/attach
mkdir -p "$d"
python3 "$demo/mock_provider.py" --dir "$d" --scenario long --log "$d/mock.jsonl" &
mock=$!
for _ in $(seq 200); do [ -f "$d/port" ] && break; sleep 0.05; done
# 30 turns of ~0.65 s: the agent outlives a 2 s trace however slow the detach.
/usr/bin/python3 "$demo/sample_agent.py" --port "$(cat "$d/port")" --ca "$d/ca.pem" \
	--max-turns 30 &
agent=$!
sleep 0.5
XPERF_SESSION_ID=attach "$bpf" attach --pid "$agent" --duration 2 --quiet -o "$d/out" ||
	fail "attach failed"
# still running (not a zombie waiting for us) when tracing ended?
alive=$(ps -o stat= -p "$agent" 2>/dev/null | grep -qv Z && echo 1 || echo 0)
[ "$alive" = 1 ] || fail "attach: the agent ended before the trace did"
kill "$agent"
wait "$agent" || true
stop_mock
validate "$d/out/attach"
python3 - "$d/out/attach" "$alive" <<'PY' || fail "attach: turns"
import glob, json, sys
turns = [json.load(open(f)) for f in sorted(glob.glob(sys.argv[1] + "/turn_*.json"))]
cut = sys.argv[2] == "1"
ok = len(turns) >= 2 and turns[-1]["complete"] != cut and all(t["complete"] for t in turns[:-1])
print("%s   %d turns written, the last one %s" % ("ok" if ok else "FAIL", len(turns),
                                                 "cut" if cut else "complete"))
sys.exit(0 if ok else 1)
PY
}

case_curl() { client curl plaintext "$tiers_ms" /bin/bash "$demo/clients/curl_client.sh" PORT CA; }
# node encrypts into memory and may take a request before its handshake is over:
# its plaintext request starts earlier than the socket carries it (no tier check)
case_node() { client node plaintext "" /usr/bin/node "$demo/clients/node_client.js" PORT CA; }
case_h2() {
# HTTP/2 (curl + nghttp2) against node's http2 module: frames and HPACK in the
# plaintext tier. node writes asynchronously, so its log says when a write was
# queued, not sent: timings are checked within 25 ms there, counts exactly.
d=$tmp/h2
mkdir -p "$d"
python3 "$demo/mock_provider.py" --dir "$d" --scenario simple &
mock=$!
for _ in $(seq 200); do [ -f "$d/port" ] && break; sleep 0.05; done
node "$demo/clients/h2_server.js" "$d" &
h2=$!
for _ in $(seq 200); do [ -f "$d/h2port" ] && break; sleep 0.05; done
XPERF_SESSION_ID=h2 "$bpf" record --quiet -o "$d/out" -- /bin/bash "$demo/clients/curl_h2_client.sh" \
	"$(cat "$d/h2port")" "$d/ca.pem" || fail "h2: record failed"
kill "$h2"
stop_mock
echo "== curl --http2"
python3 "$demo/check_ground_truth.py" --traces "$d/out/h2" --mock "$d/h2.jsonl" --tol-ms 25 ||
	fail "h2: ground truth"
validate "$d/out/h2"
}

# HTTP/2 with the response HEADERS frame at once and the first token (DATA) 300 ms later
# (clients/h2_head_server.py, python3-h2, blocking writes), then both in one write 300 ms
# after the request ("together"): curl --http2 twice, each run a fresh connection and a
# keep-alive request after it, traced with and without plaintext. First token within
# 5 ms (plaintext) / 10 ms (ciphertext) of the server's write of it: the ciphertext tier
# does not take a head record sent alone for it. Decode within 50 ms, as in the fidelity
# case: the stream's last read waits for a CPU on the loaded 2-core machine.
case_h2_head() {
	local d=$tmp/h2_head tol
	mkdir -p "$d"
	python3 "$demo/mock_provider.py" --dir "$d" --scenario simple & # for its certificates
	mock=$!
	for _ in $(seq 200); do [ -f "$d/port" ] && break; sleep 0.05; done
	for run in head-plaintext head-ciphertext together-plaintext together-ciphertext; do
		local tier=${run#*-} name=h2-$run
		rm -f "$d/h2.jsonl" "$d/h2port"
		/usr/bin/python3 "$demo/clients/h2_head_server.py" "$d" ${run%%-*} &
		local h2=$!
		for _ in $(seq 200); do [ -f "$d/h2port" ] && break; sleep 0.05; done
		local c="/bin/bash $demo/clients/curl_h2_client.sh $(cat "$d/h2port") $d/ca.pem"
		[ $tier = plaintext ] && tol=5 || tol=10
		XPERF_SESSION_ID=$name "$bpf" record --quiet -o "$d/out" \
			$([ $tier = ciphertext ] && echo --no-plaintext) -- /bin/bash -c "$c && $c" ||
			fail "$name: record failed"
		echo "== curl --http2, $run (head: 300 ms before the first token; together: with it)"
		python3 "$demo/check_ground_truth.py" --traces "$d/out/$name" \
			--mock "$d/h2.jsonl" --tier $tier --tol-ms $tol --decode-tol-ms 50 ||
			fail "$name: ground truth"
		kill "$h2"
		validate "$d/out/$name"
	done
	stop_mock
}

case_bun() {
if [ -x "$bun" ]; then
	(cd "$tmp" && cp "$demo/clients/bun_client.js" "$demo/clients/calls.json" . &&
		"$bun" build --compile bun_client.js --outfile bun_client >/dev/null) ||
		fail "bun build --compile"
	# ciphertext, or plaintext where the TLS module locates BoringSSL: each turn says which
	client bun auto "" "$tmp/bun_client" PORT
else
	fail "bun not installed at $bun (./setup.sh --deps-only installs it)"
fi
}

# fidelity_run NAME RECORD_OPTION CMD... : the fidelity scenario, PORT and LOG replaced in CMD
fidelity_run() {
	local name=$1 opt=$2 d=$tmp/fidelity/$1 args=()
	shift 2
	mkdir -p "$d"
	/usr/bin/python3 "$demo/mock_provider.py" --dir "$d" --scenario fidelity --log "$d/mock.jsonl" &
	mock=$!
	for _ in $(seq 200); do [ -f "$d/port" ] && break; sleep 0.05; done
	for a in "$@"; do a=${a//PORT/$(cat "$d/port")}; args+=("${a//LOG/$d/agent.jsonl}"); done
	NODE_EXTRA_CA_CERTS=$d/ca.pem XPERF_SESSION_ID=$name "$bpf" record --quiet $opt -o "$d/out" \
		-- "${args[@]}" --ca "$d/ca.pem" || fail "$name: record failed"
	stop_mock
	echo "== fidelity: $name"
	python3 "$demo/check_fidelity.py" --traces "$d/out/$name" --mock "$d/mock.jsonl" \
		--agent "$d/agent.jsonl" || fail "$name: fidelity"
	validate "$d/out/$name"
}

case_fidelity() {
	local agent=("/usr/bin/python3" "$demo/sample_agent.py" --fidelity --port PORT --log LOG)
	fidelity_run python-plain "" "${agent[@]}"
	fidelity_run python-cipher --no-plaintext "${agent[@]}"
	if [ -x "$bun" ]; then
		(cd "$tmp" && cp "$demo/clients/bun_agent.js" . &&
			"$bun" build --compile bun_agent.js --outfile bun_agent >/dev/null) ||
			fail "bun build --compile bun_agent.js"
		# the tier bun gets by default (plaintext where BoringSSL is located), then sockets only
		fidelity_run bun-default "" "$tmp/bun_agent" PORT LOG
		fidelity_run bun-cipher --no-plaintext "$tmp/bun_agent" PORT LOG
	else
		fail "bun not installed at $bun (./setup.sh --deps-only installs it)"
	fi
}

# Two agent processes under one record (a shell starts both): each has turns of its own,
# one model call and one tool call per turn, none shared.
case_agents() {
	local d=$tmp/agents
	mkdir -p "$d"
	/usr/bin/python3 "$demo/mock_provider.py" --dir "$d" --scenario long --log "$d/mock.jsonl" &
	mock=$!
	for _ in $(seq 200); do [ -f "$d/port" ] && break; sleep 0.05; done
	local a="/usr/bin/python3 $demo/sample_agent.py --port $(cat "$d/port") --ca $d/ca.pem --max-turns 2"
	XPERF_SESSION_ID=agents "$bpf" record --quiet -o "$d/out" -- /bin/sh -c "$a & $a; wait" ||
		fail "agents: record failed"
	stop_mock
	echo "== two agents under one record"
	validate "$d/out/agents"
	python3 - "$d/out/agents" <<'PY' || fail "agents: turns per agent process"
import collections, glob, json, sys
turns = [json.load(open(f)) for f in sorted(glob.glob(sys.argv[1] + "/turn_*.json"))]
by = collections.Counter(t["agent"]["pid"] for t in turns)
calls = [sum(s["stage"] == "llm_inference" for s in t["spans"]) for t in turns]
tools = collections.Counter(t["agent"]["pid"] for t in turns for s in t["spans"]
                            if s["stage"] == "tool_call")
ok = sorted(by.values()) == [2, 2] and calls == [1] * 4 and sorted(tools.values()) == [2, 2]
print("%s   turns per agent pid %s, model calls per turn %s, tool calls per pid %s"
      % ("ok" if ok else "FAIL", dict(by), calls, dict(tools)))
sys.exit(0 if ok else 1)
PY
}

case_setup() {
# TCP + TLS set-up: two requests in one curl (the second reuses the connection). The
# first request's connection_setup span runs from the connect to the handshake's end:
# it ends within 5 ms of the mock's accept (the server read the client's Finished),
# lasts at least curl's TCP connect and at most curl's own connect-to-TLS-done
# (time_appconnect - time_namelookup, curl -w) + 0.5 ms; the second request has none.
local d=$tmp/setup body='{"model":"mock-sonnet","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}'
mkdir -p "$d"
python3 "$demo/mock_provider.py" --dir "$d" --scenario simple --accept-log "$d/accept.jsonl" &
mock=$!
for _ in $(seq 200); do [ -f "$d/port" ] && break; sleep 0.05; done
local url=https://localhost:$(cat "$d/port")/v1/messages
XPERF_SESSION_ID=setup "$bpf" record --quiet -o "$d/out" -- curl -sS --cacert "$d/ca.pem" \
	-H 'content-type: application/json' -d "$body" -o /dev/null -o /dev/null \
	-w '%{num_connects} %{time_namelookup} %{time_connect} %{time_appconnect}\n' \
	"$url" "$url" >"$d/curl.txt" || fail "setup: record failed"
stop_mock
echo "== connection set-up (curl's own timings, the mock's accept)"
validate "$d/out/setup"
python3 - "$d/out/setup" "$d/curl.txt" "$d/accept.jsonl" <<'PY' || fail "setup: connection_setup spans"
import glob, json, sys
spans = sorted((s for f in glob.glob(sys.argv[1] + "/turn_*.json") for s in json.load(open(f))["spans"]),
               key=lambda s: s["start_ns"])
calls = [s for s in spans if s["stage"] == "llm_inference"]
setup = [s for s in spans if s["stage"] == "connection_setup"]
curl = [l.split() for l in open(sys.argv[2])]
accepted = [json.loads(l)["t_ns"] for l in open(sys.argv[3])]
tcp, tls = [(float(curl[0][k]) - float(curl[0][1])) * 1e3 for k in (2, 3)]
got = [(s["end_ns"] - s["start_ns"]) / 1e6 for s in setup]
end = (setup[0]["end_ns"] - accepted[0]) / 1e6 if setup and accepted else None
ok = ([c[0] for c in curl] == ["1", "0"] and len(calls) == 2 and len(got) == 1 and
      len(accepted) == 1 and abs(end) <= 5 and tcp <= got[0] <= tls + 0.5 and
      setup[0]["end_ns"] <= calls[0]["start_ns"])
print("%s   connection_setup %s ms, ends %s ms from the mock's accept; curl: TCP %.3f ms, "
      "TLS done %.3f ms (new, reused: %s), %d calls"
      % ("ok" if ok else "FAIL", got, end, tcp, tls, [c[0] for c in curl], len(calls)))
sys.exit(0 if ok else 1)
PY
}

for c in ${*:-demo attach curl setup h2 h2_head bun fidelity agents}; do "case_$c"; done
echo "$fails failure(s)"
[ "$fails" -eq 0 ]
