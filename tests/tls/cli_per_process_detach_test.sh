#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# cli_per_process_detach_test.sh - `xperf-bpf record --tls-per-process`: the
# uprobes attached for a traced process are detached after it exits, while
# the run goes on (before, they stayed until the end of the run). Counted
# with bpftool: the perf_event links (uprobes) on xperf-bpf's own programs
# with the traced shell alone, and while its python3 child (ssl imported)
# runs; python3's links (the difference) must be gone after its exit.
# They are detached at the first exit or fork record 2 s after it (the
# grace that keeps a forked child's inherited breakpoints, tls_probes.c):
# the shell's `sleep 3` provides it. The shell waits on fifos (builtins).
set -euo pipefail
tmp=$(mktemp -d "${TEST_TMPDIR:-/tmp}/detach.XXXXXX")
xb=
# The shell ignores SIGINT (started in the background): let it end through its fifo.
trap '[ -n "$xb" ] && { timeout 2 sh -c "echo > $tmp/end"; kill -INT $xb; wait $xb; }
      rm -rf "$tmp"' EXIT
xperf=$(readlink -f "$(dirname "$0")/../../cli/xperf-bpf")
mkfifo "$tmp/start" "$tmp/end"

"$xperf" record -q --tls-per-process -o "$tmp/out" -- /bin/sh -c "
	read x < '$tmp/start'
	/usr/bin/python3 -c 'import os, ssl, time
open(\"$tmp/ready\", \"w\").close()
while not os.path.exists(\"$tmp/go\"): time.sleep(0.05)'
	sleep 3
	echo > '$tmp/exited'
	read x < '$tmp/end'" &
xb=$!

uprobes() {	# ids of the perf_event links whose program xperf-bpf holds
	local ids
	ids=$(cat /proc/$xb/fdinfo/* 2>/dev/null | sed -n 's/^prog_id:\s*//p' | sort -u | tr '\n' ' ')
	bpftool link show | awk -v ids=" $ids" '
		$2 == "perf_event" && index(ids, " " $4 " ") { sub(":", "", $1); print $1 }' | sort
}

# wait_for TEST SECONDS: poll until the test holds, SECONDS at most
wait_for() {
	local end=$((SECONDS + $2))
	until eval "$1"; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.2
	done
}

# steady FILE: the links, once two reads 1 s apart agree (attaches follow records), 20 s at most
steady() {
	local end=$((SECONDS + 20))
	uprobes > "$1"
	while sleep 1; uprobes > "$1.new"; ! cmp -s "$1" "$1.new"; do
		mv "$1.new" "$1"
		[ $SECONDS -lt $end ] || { echo "FAIL: the uprobe links never settled"; exit 1; }
	done
}

wait_for '[ -n "$(uprobes)" ]' 20 || { echo "FAIL: no uprobes for the traced shell"; exit 1; }
steady "$tmp/shell"
echo > "$tmp/start"
wait_for '[ -e "$tmp/ready" ]' 20 || { echo "FAIL: python3 did not start"; exit 1; }
steady "$tmp/both"
comm -13 "$tmp/shell" "$tmp/both" > "$tmp/python"
touch "$tmp/go"
wait_for '[ -e "$tmp/exited" ]' 20 || { echo "FAIL: the shell did not go on"; exit 1; }
# Each removal waits for the kernel (100-400 ms on this VM kind); they run on threads.
wait_for '[ -z "$(uprobes | comm -12 - "$tmp/python")" ]' 15 || true
left=$(uprobes | comm -12 - "$tmp/python" | wc -l)
echo "uprobe links of xperf-bpf: shell alone $(wc -l < "$tmp/shell"), python3's own" \
	"$(wc -l < "$tmp/python"), python3's left after its exit $left"
[ -s "$tmp/python" ] || { echo "FAIL: python3 got no uprobes of its own"; exit 1; }
[ "$left" -eq 0 ] || { echo "FAIL: python3's uprobes stayed after its exit"; exit 1; }
kill -0 $xb || { echo "FAIL: xperf-bpf ended early"; exit 1; }
echo > "$tmp/end"
wait $xb
xb=
echo PASS
