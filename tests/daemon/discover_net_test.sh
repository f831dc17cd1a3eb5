#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# discover_net_test.sh - network discovery of `xperf-bpf daemon` on the running
# kernel: python3 agents that match no exec rule, against the mock provider over
# TLS (the server name of their ClientHello set per agent) and a plaintext HTTP
# endpoint (a local model server's shape):
#   - `host llm.test` (llmNNN.test: names of this run only, other.test and /v1/plain too):
#     the first such agent is traced in the kernel at its
#     ClientHello (the socket tier has every byte of its connection, and the
#     plaintext tier every call: the node's libssl was probed at the daemon's
#     start), a second one the same,
#   - an agent whose ClientHello names another host: none of its records reaches
#     the ring (--raw holds every record read, owned or not),
#   - SIGHUP: a host with a misplaced wildcard is refused (file:line), then `host other.test`
#     and `path /v1/plain` replace the rules: other.test is traced, llm.test no
#     more, and a plaintext request to /v1/plain is traced (one before was not).
# check_discover_net.py holds the assertions (ground truth: the mock's own log and
# the plaintext server's, the kernel's own TCP byte counters at close).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
start_mock
mkdir -p "$tmp/plain"
"$py" "$here/plain_server.py" "$tmp/plain" &
pids+=($!)
for _ in $(seq 100); do [ -s "$tmp/plain/port" ] && break; sleep 0.1; done
pport=$(cat "$tmp/plain/port")
# agent NAME SNI [PORT PATH]: one net_agent.py run to its end; its pid in $tmp/NAME.pid
agent() {
	"$py" "$here/net_agent.py" "${3:-$port}" "$ca" "$2" ${4:+"$4"} > "$tmp/$1.out" &
	echo $! > "$tmp/$1.pid"
	wait $!
}

# Hosts and a path of this run only (llmNNN.test...): another run of this test at the same
# time, from another worktree, is none of its agents.
llm=llm$$.test other=other$$.test plainp=/v1/plain$$
printf '# LLM endpoints, matched in the kernel\nhost %s   # kept lowercase\n' "${llm^^}" > "$tmp/rules"
XPERF_CACHE_DIR=$tmp/locate "$xperf" daemon -o "$tmp/out" --node netnode --rules "$tmp/rules" \
	--raw "$tmp/raw.jsonl" 2> "$tmp/daemon.err" &
daemon=$!
pids+=($daemon)
wait_for ready "$tmp/daemon.err"
CALLS=3 agent first "$llm"
agent second "$llm"
agent stranger "$other"
agent plain_before - "$pport" "$plainp"

printf 'host llm.*.test\n' > "$tmp/rules.new"
mv "$tmp/rules.new" "$tmp/rules"
kill -HUP $daemon
wait_for "rules:1: a wildcard only as the whole first label" "$tmp/daemon.err"
printf 'host %s\npath %s\n' "$other" "$plainp" > "$tmp/rules.new"
mv "$tmp/rules.new" "$tmp/rules"
kill -HUP $daemon
wait_for "2 rules loaded" "$tmp/daemon.err"
agent reloaded "$other"
agent dropped "$llm"
agent plain_after - "$pport" "$plainp"
sleep 0.5 # the last session's exit reaches the daemon

kill -TERM $daemon
rc=0
wait $daemon || rc=$?
cat "$tmp/daemon.err"
python3 "$here/check_discover_net.py" "$tmp" --rc $rc --llm "$llm" --other "$other" \
	--path "$plainp"
