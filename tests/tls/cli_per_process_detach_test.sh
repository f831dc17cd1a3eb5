#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# cli_per_process_detach_test.sh - `xperf-bpf record --tls-per-process`: the
# uprobes attached for a traced process are detached when it exits, while
# the run goes on (before, they stayed until the end of the run). Counted
# with bpftool: the perf_event links (uprobes) on xperf-bpf's own programs,
# with the traced shell alone, while its python3 child (ssl imported) runs,
# and after that child exited. The shell waits on fifos (builtins: no
# other child comes and goes).
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
	echo > '$tmp/exited'
	read x < '$tmp/end'" &
xb=$!

uprobes() {	# perf_event links whose program xperf-bpf holds
	local ids
	ids=$(cat /proc/$xb/fdinfo/* 2>/dev/null | sed -n 's/^prog_id:\s*//p' | sort -u | tr '\n' ' ')
	bpftool link show | awk -v ids=" $ids" '
		$2 == "perf_event" && index(ids, " " $4 " ") { n++ } END { print n + 0 }'
}

# wait_for TEST SECONDS: poll until the test holds, SECONDS at most
wait_for() {
	local end=$((SECONDS + $2))
	until eval "$1"; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.2
	done
}

# steady: the count, once two reads 1 s apart agree (attaches follow records)
steady() {
	local a b
	b=$(uprobes)
	while a=$b; sleep 1; b=$(uprobes); [ "$a" != "$b" ]; do :; done
	echo "$b"
}

wait_for '[ "$(uprobes)" -gt 0 ]' 20 || { echo "FAIL: no uprobes for the traced shell"; exit 1; }
shell=$(steady)
echo > "$tmp/start"
wait_for '[ -e "$tmp/ready" ]' 20 || { echo "FAIL: python3 did not start"; exit 1; }
both=$(steady)
touch "$tmp/go"
wait_for '[ -e "$tmp/exited" ]' 20 || { echo "FAIL: python3 did not exit"; exit 1; }
# Each removal waits for the kernel (100-400 ms on this VM kind); they run on threads.
wait_for '[ "$(uprobes)" -le "$shell" ]' 15 || true
after=$(uprobes)
echo "uprobe links of xperf-bpf: shell alone $shell, with python3 $both, after python3 exited $after"
[ "$both" -gt "$shell" ] || { echo "FAIL: python3 got no uprobes of its own"; exit 1; }
[ "$after" -eq "$shell" ] || { echo "FAIL: python3's uprobes stayed after its exit"; exit 1; }
kill -0 $xb || { echo "FAIL: xperf-bpf ended early"; exit 1; }
echo > "$tmp/end"
wait $xb
xb=
echo PASS
