#!/usr/bin/env bash
# xperf-node-agent.sh - the DaemonSet's entry point on one node.
#
# Every XPERF_SCAN_S seconds it looks for agent processes whose command line
# matches XPERF_MATCH (an extended regex) and attaches one `xperf-bpf attach`
# to each new one (children and threads started later are traced too). Traces
# land in $XPERF_TRACE_DIR/<node>/<session>/turn_NNN.json (mode 0600). Every
# XPERF_REPORT_S seconds it writes one JSON analysis per session next to it, for
# the fleet report (deploy/fleet-report.sh) to aggregate.
set -uo pipefail

match=${XPERF_MATCH:?set XPERF_MATCH to a regex over agent command lines}
scan_s=${XPERF_SCAN_S:-10}
report_s=${XPERF_REPORT_S:-300}
node=${NODE_NAME:-$(hostname)}
out=${XPERF_TRACE_DIR:-/var/lib/xperf}/$node
bin=${XPERF_BIN:-/usr/local/bin}
umask 077
mkdir -p "$out"

declare -A attached=()

stop() {
	# SIGTERM to every attach: each flushes its last turn (marked incomplete) and detaches.
	for pid in "${!attached[@]}"; do kill -TERM "${attached[$pid]}" 2>/dev/null; done
	wait
	exit 0
}
trap stop TERM INT

scan() {
	local pid cmd
	for d in /proc/[0-9]*; do
		pid=${d#/proc/}
		[ -n "${attached[$pid]:-}" ] && continue
		cmd=$(tr '\0' ' ' <"$d/cmdline" 2>/dev/null) || continue
		[[ -n "$cmd" && "$cmd" =~ $match && "$cmd" != *xperf* ]] || continue
		"$bin/xperf-bpf" attach --pid "$pid" -o "$out" --quiet &
		attached[$pid]=$!
		echo "xperf-node-agent: attached to $pid: ${cmd:0:120}" >&2
	done
	for pid in "${!attached[@]}"; do
		kill -0 "${attached[$pid]}" 2>/dev/null || unset "attached[$pid]"
	done
}

report() {
	for s in "$out"/*/; do
		[ -d "$s" ] || continue
		"$bin/xperf" analyze session "$s" --format json -o "${s%/}.analysis.json" 2>/dev/null
	done
}

last_report=$SECONDS
while :; do
	scan
	if ((SECONDS - last_report >= report_s)); then
		report
		last_report=$SECONDS
	fi
	sleep "$scan_s" &
	wait $!
done
