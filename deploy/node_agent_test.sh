#!/usr/bin/env bash
# node_agent_test.sh AGENT_SH XPERF_BPF - the node agent for real (root, real BPF):
# two python3 "agents" match XPERF_MATCH and one process does not; the script must
# attach exactly to the two (one xperf-bpf child each, with their pids); with
# XPERF_MAX_ATTACH=2 a third matching process waits until one of the first exits
# (reaped and logged), then is attached; SIGTERM stops the script and every attach
# within the bound; the node's trace directory is 0700. Every wait is bounded.
set -euo pipefail
agent_sh=$(readlink -f "$1")
xbpf=$(readlink -f "$2")
tmp=${TEST_TMPDIR:-$(mktemp -d)}
[ "$(id -u)" = 0 ] || { echo "FAIL: needs root (CAP_BPF, CAP_PERFMON)"; exit 1; }
marker=fleet-test-agent-$$-$RANDOM
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

mkdir -p "$tmp/bin"
ln -sf "$xbpf" "$tmp/bin/xperf-bpf"
dummy() { python3 -c 'import sys, time; time.sleep(float(sys.argv[1]))' 120 "$1" & pids+=("$!"); }
dummy "$marker-a"
a=$!
dummy "$marker-b"
b=$!
dummy "other-process-$$"
other=$!

# Wait (bounded) until the log has a line matching $1.
wait_log() {
	for _ in $(seq 1 100); do
		grep -qE "$1" "$tmp/agent.log" && return 0
		sleep 0.1
	done
	return 1
}
# The --pid arguments of the script's xperf-bpf children, sorted.
attached() {
	for c in $(pgrep -P "$agent" -f 'xperf-bpf attach' || true); do
		tr '\0' ' ' <"/proc/$c/cmdline" | sed -E 's/.*--pid ([0-9]+).*/\1/'
		echo
	done | sort -n | sed '/^$/d' | tr '\n' ' '
}

XPERF_MATCH="$marker" XPERF_SCAN_S=1 XPERF_MAX_ATTACH=2 XPERF_BIN="$tmp/bin" \
	XPERF_TRACE_DIR="$tmp/traces" NODE_NAME=test-node bash "$agent_sh" 2>"$tmp/agent.log" &
agent=$!
pids+=("$agent")
wait_log "attached to $a " || bad "not attached to $a"
wait_log "attached to $b " || bad "not attached to $b"
sleep 2 # more scans: nothing attached twice, the other process never
want=$(printf '%s\n' "$a" "$b" | sort -n | tr '\n' ' ')
[ "$(attached)" = "$want" ] || bad "attach children for pids '$(attached)', want '$want'"
grep -q "attached to $other " "$tmp/agent.log" && bad "attached to a process that does not match"
[ "$(grep -c "attached to $a " "$tmp/agent.log")" = 1 ] || bad "attached to $a more than once"
[ "$(stat -c %a "$tmp/traces/test-node")" = 700 ] || bad "trace directory is not 0700"

# Bounded attaches: a third agent waits for a free slot.
dummy "$marker-c"
c=$!
wait_log "limit of 2 attaches reached: not attaching $c" || bad "limit not enforced"
kill "$a"
wait_log "detached from $a " || bad "exit of $a not noticed"
wait_log "attached to $c " || bad "$c not attached once a slot was free"
[ "$(grep -c "not attaching $c" "$tmp/agent.log")" = 1 ] || bad "limit logged more than once"

children=$(pgrep -P "$agent" -f 'xperf-bpf attach' | tr '\n' ' ' || true)
kill -TERM "$agent"
if timeout 20 tail --pid="$agent" -f /dev/null; then
	rc=0
	wait "$agent" || rc=$?
	[ "$rc" = 0 ] || bad "agent exited $rc after SIGTERM"
else
	bad "agent still running 20 s after SIGTERM"
fi
for p in $children; do
	kill -0 "$p" 2>/dev/null && bad "attach $p still running after the agent stopped"
done
grep -q "xperf-node-agent: stopped" "$tmp/agent.log" || bad "no stop line in the log"
if [ "$fail" != 0 ]; then
	cat "$tmp/agent.log"
	exit 1
fi
echo "PASS: node agent attached to $a $b (then $c), not $other; stopped on SIGTERM"
