#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# first_call_test.sh - the first agent of a fresh `xperf-bpf daemon`, making its first call
# at once after its exec, is captured in plaintext. RUNS runs (default 20), each a new daemon
# (a new locator cache: nothing of the node probed yet) and one new agent, alternately
#   - python3 (a `cmdline` rule, matched when the daemon reads the exec; libssl is dlopen'd
#     at `import ssl`, about 30 ms after the exec), and
#   - a copy of curl (an `exe` rule, traced by the kernel at its exec; libssl mapped by ld.so
#     before main, its request a few ms after the exec).
# Ground truth: the mock provider received the run's request (its body names the run), and
# the daemon's --raw dump (every record that reached the ring, with --capture-payloads) has
# the agent's plaintext: an SSL_write by the agent's pid whose payload holds that body.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
runs=${RUNS:-20}
start_mock --bytes "$tmp/bytes"
# Names of this run only (another run of this test may trace at the same time); [.]: the
# glob does not match a command line holding it, the daemon's own.
curl_name=fcurl$$
cp "$here/agent.py" "$tmp/firstcall_agent.py"
cp /usr/bin/curl "$tmp/$curl_name"
rules=(--cmdline "*$tmp/firstcall_agent[.]py*" --exe "$curl_name")
missed=0
for run in $(seq "$runs"); do
	dir=$tmp/run$run
	mkdir -p "$dir"
	XPERF_CACHE_DIR=$dir/locate "$xperf" daemon -o "$dir/out" --node fc "${rules[@]}" \
		--capture-payloads --raw "$dir/raw.jsonl" 2> "$dir/err" &
	d=$!
	pids+=($d)
	for _ in $(seq 400); do grep -qs ready "$dir/err" && break; sleep 0.05; done
	grep -q ready "$dir/err" || { cat "$dir/err"; echo "FAIL: run $run: daemon not ready"; exit 1; }
	if [ $((run % 2)) = 1 ]; then
		CALLS=1 "$py" "$tmp/firstcall_agent.py" "$port" "$ca" > "$dir/agent.out" &
		agent=$! kind=python3 marker="call 0 of pid $!"
	else
		marker="first call of run $run"
		"$tmp/$curl_name" -sS --cacert "$ca" -H 'content-type: application/json' \
			-d "{\"model\":\"gpt-test\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"$marker\"}]}" \
			"https://localhost:$port/v1/chat/completions" > "$dir/agent.out" &
		agent=$! kind=curl
	fi
	wait $agent || { echo "FAIL: run $run: the $kind agent failed"; exit 1; }
	for _ in $(seq 100); do grep -q 'session .* ended' "$dir/err" && break; sleep 0.05; done
	kill -TERM $d
	wait $d || { cat "$dir/err"; echo "FAIL: run $run: daemon exit status $?"; exit 1; }
	grep -rqF "$marker" "$tmp/bytes" || { echo "FAIL: run $run: the mock never got '$marker'"; exit 1; }
	if "$py" - "$dir/raw.jsonl" $agent "$marker" <<'PY'; then
import json, sys
raw, pid, marker = sys.argv[1], int(sys.argv[2]), sys.argv[3]
recs = [json.loads(l) for l in open(raw)]
assert recs[-1]["type"] == "end", "raw dump cut"
w = [r for r in recs if r.get("tgid") == pid and r["type"] == "tls_data" and r["dir"] == "write"]
assert any(marker in r.get("payload", "") for r in w), \
    "pid %d: no plaintext write holds '%s' (%d writes)" % (pid, marker, len(w))
PY
		echo "run $run ($kind, pid $agent): its first call in plaintext"
	else
		echo "MISSED: run $run ($kind, pid $agent); the daemon said:"
		cat "$dir/err"
		missed=$((missed + 1))
	fi
done
[ $missed = 0 ] || { echo "FAIL: $missed of $runs first calls without plaintext"; exit 1; }
echo "PASS: $runs of $runs fresh daemons had their first agent's first call in plaintext"
