#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# restart_test.sh - a daemon restart while an agent runs (a rolling update of the
# DaemonSet): the agent (python3, one TLS connection to the mock provider), already
# running when the first daemon starts, makes 2 calls under it, which gets SIGTERM and exits; a second daemon
# finds it running (the /proc scan) and traces its next 2 calls in a new session
# of the same process. Nothing the first daemon wrote is touched: every file's
# SHA-256 is taken when it has exited and compared at the end (check_restart.py,
# with the mock's own log of the 4 requests as ground truth).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
start_mock
# daemon N: one daemon run in the background, ready; its pid in $daemon
daemon() {
	"$xperf" daemon -o "$tmp/out" --node rnode --cmdline "*$tmp/restart_agent[.]py*" \
		--raw "$tmp/raw$1.jsonl" 2> "$tmp/daemon$1.err" &
	daemon=$!
	pids+=($daemon)
	wait_for ready "$tmp/daemon$1.err"
}
# stop N: SIGTERM the daemon, its exit status in $tmp/rcN
stop() {
	local rc=0
	kill -TERM $daemon
	wait $daemon || rc=$?
	echo $rc > "$tmp/rc$1"
	cat "$tmp/daemon$1.err"
}

# The agent runs before the first daemon (found by its /proc scan), its calls wait for it.
# A path of this run only: another run of this test at the same time is none of its agents.
cp "$here/agent.py" "$tmp/restart_agent.py"
THEN_GATE=$tmp/gate2 "$py" "$tmp/restart_agent.py" "$(cat "$tmp/mock/port")" "$tmp/mock/ca.pem" \
	"$tmp/gate1" > "$tmp/agent.out" &
agent=$!
pids+=($agent)
sleep 0.3 # it has mapped libssl
daemon 1
touch "$tmp/gate1"
wait_for "phase 1" "$tmp/agent.out"
sleep 0.3 # its last answer's records reach the daemon
stop 1
(cd "$tmp/out" && find . -type f -print0 | sort -z | xargs -0 sha256sum) > "$tmp/first.sha256"
daemon 2
touch "$tmp/gate2"
wait $agent
sleep 0.3
stop 2
python3 "$here/check_restart.py" "$tmp" --agent $agent
