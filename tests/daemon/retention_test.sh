#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# retention_test.sh - `xperf-bpf daemon --retention-days 1 --retention-bytes 1000000`
# at start: a session untouched for 3 days goes (age), then the oldest sessions
# until the rest fit in 1,000,000 bytes (size); a session whose .lock another run
# holds stays however old, and so does a directory that is no session (no .lock).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
node=$tmp/out/rt
# session NAME BYTES AGE: a session directory (.lock, one file of BYTES) last touched AGE ago
session() {
	mkdir -p "$node/$1"
	: > "$node/$1/.lock"
	head -c "$2" /dev/zero > "$node/$1/turn_001.json"
	touch -d "$3 ago" "$node/$1"
}
session old 1000 "3 days"
session held 1000 "10 days"
session big1 600000 "2 hours"
session big2 600000 "1 hour"
session recent 1000 "1 minute"
mkdir -p "$node/notasession"
touch -d "30 days ago" "$node/notasession"
flock "$node/held/.lock" sleep 60 &
pids+=($!)
sleep 0.2
"$xperf" daemon -o "$tmp/out" --node rt --exe no-such-agent --retention-days 1 \
	--retention-bytes 1000000 2> "$tmp/err" &
d=$!
pids+=($d)
for _ in $(seq 200); do grep -q ready "$tmp/err" && break; sleep 0.05; done
kill -TERM $d
wait $d
cat "$tmp/err"
left=$(cd "$node" && ls | sort | tr '\n' ' ')
echo "left: $left"
[ "$left" = "big2 held notasession recent " ] || { echo "FAIL: want big2 held notasession recent"; exit 1; }
grep -q "2 sessions deleted" "$tmp/err" || { echo "FAIL: the deletions are not counted"; exit 1; }
echo PASS
