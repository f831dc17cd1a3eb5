#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tls_path_test.sh - a `path` rule matched inside TLS: a daemon whose only rule is
# `path /v1/messages` (no exe, cmdline or host rule), python3 agents over TLS to the
# mock provider (argv[0] tls-path-agent: no other test's rules name it):
#   - one posting streaming calls to /v1/messages is traced in the kernel at its
#     first SSL_write (the node's libssl was probed at the daemon's start), that
#     call included: its turns have the mock's own model and token counts,
#   - one posting to /health over TLS never is: no session, none of its records
#     in the ring (--raw holds every record read, owned or not).
# check_tls_path.py holds the assertions (ground truth: the mock's own log).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
start_mock
# agent NAME PATH: one net_agent.py run over TLS to its end; its pid in $tmp/NAME.pid
agent() {
	(exec -a tls-path-agent "$py" "$here/net_agent.py" "$port" "$ca" localhost "$2" \
		> "$tmp/$1.out") &
	echo $! > "$tmp/$1.pid"
	wait $!
}

printf 'path /v1/messages\n' > "$tmp/rules"
XPERF_CACHE_DIR=$tmp/locate "$xperf" daemon -o "$tmp/out" --node tlsnode --rules "$tmp/rules" \
	--raw "$tmp/raw.jsonl" 2> "$tmp/daemon.err" &
daemon=$!
pids+=($daemon)
wait_for ready "$tmp/daemon.err"
agent stranger /health
agent adopted /v1/messages
sleep 0.5 # the last session's exit reaches the daemon

kill -TERM $daemon
rc=0
wait $daemon || rc=$?
cat "$tmp/daemon.err"
python3 "$here/check_tls_path.py" "$tmp" --rc $rc
