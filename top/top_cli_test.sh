#!/usr/bin/env bash
# top_cli_test.sh XPERF - `xperf top --once` on the analyzer's hand-computed sessions (no
# root, no terminal): each row's turns, Waste share and top point equal the session's own
# `xperf analyze session` report, the frame is 24 lines of at most 80 columns (or --size),
# --sort orders the rows, ended sessions say so, and the exit codes (2 missing DIR or bad
# --prices, 64 usage: a repeated option, or no terminal without --once). A directory in the
# node daemon's layout (DIR/<node>/<session>/, one session name on two nodes, a top-level
# session beside them, a gpu/ directory without turns) lists every session with its node and
# its own figures. Long session names are cut in the middle, kept whole on a wider frame.
set -uo pipefail
xperf=$1
td=analyze/testdata
tmp="${TEST_TMPDIR:-$(mktemp -d)}/top"
mkdir -p "$tmp/dir"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
cp -r $td/session_ebpf $td/session_growth "$tmp/dir/"

"$xperf" top "$tmp/dir" --once --sort name >"$tmp/frame" || bad "--once"
cat "$tmp/frame"
[ "$(wc -l <"$tmp/frame")" = 24 ] || bad "frame is $(wc -l <"$tmp/frame") lines, not 24"
awk 'length($0) > 80 { bad = 1 } END { exit bad }' "$tmp/frame" || bad "wider than 80"
for s in session_ebpf session_growth; do
	"$xperf" analyze session "$tmp/dir/$s" >"$tmp/$s.json" 2>/dev/null
	python3 - "$tmp/frame" "$tmp/$s.json" "$s" <<'PY' || bad "$s: figures"
import json, sys
frame, rep, name = open(sys.argv[1]).read().splitlines(), json.load(open(sys.argv[2])), sys.argv[3]
i = next(i for i, l in enumerate(frame) if l[1:].startswith(name[:14] + " "))
row, second = frame[i].split(), frame[i + 1]
ses = rep["session"]
waste = next(n for n in rep["l1"] if n["id"] == "waste")["share"]
assert int(row[3]) == ses["turns"], (row, ses["turns"])
assert row[4] == "ended", row
assert row[-1] == "%.1f%%" % (100 * waste), (row[-1], waste)
top = rep["bottlenecks"][0] if rep["bottlenecks"] else "-"
assert ("top: " + top) in second, (second, top)
print("%s: %s turns, waste %s, top %s" % (name, row[3], row[-1], top))
PY
done
"$xperf" top "$tmp/dir" --once --sort turns | grep -E "^[ >]session_" | awk '{ print $1 }' \
	| tr -d '>' >"$tmp/order"
[ "$(head -1 "$tmp/order")" = session_ebpf ] || bad "--sort turns: $(cat "$tmp/order")"
"$xperf" top "$tmp/dir" --once --size 120x40 >"$tmp/big"
[ "$(wc -l <"$tmp/big")" = 40 ] || bad "--size 120x40: $(wc -l <"$tmp/big") lines"

# A recorder's session names (comm-pid-start) are longer than the 14 columns of an 80-column
# frame: the head and the start time around a '~', whole where the terminal is wider (the
# column as wide as the longest name, no wider).
mkdir -p "$tmp/long"
cp -r $td/session_growth "$tmp/long/python3-4242-20261204T155222"
cp -r $td/session_growth "$tmp/long/python3-4242-20261204T160501"
"$xperf" top "$tmp/long" --once --sort name | grep -E "^[ >]python" | awk '{ print $1 }' \
	| tr -d '>' | paste -sd' ' >"$tmp/long.80"
[ "$(cat "$tmp/long.80")" = "python~T155222 python~T160501" ] || bad "80 columns: $(cat "$tmp/long.80")"
"$xperf" top "$tmp/long" --once --size 120x24 >"$tmp/long.frame"
grep -q "^ python3-4242-20261204T160501 fixture " "$tmp/long.frame" || bad "120 columns: names cut"
awk 'length($0) > 120 { bad = 1 } END { exit bad }' "$tmp/long.frame" || bad "wider than 120"
[ "$(sed -n 2p "$tmp/long.frame" | awk '{ print index($0, "agent") }')" = \
  "$(grep -m1 "python3-4242" "$tmp/long.frame" | awk '{ print index($0, " fixture ") + 1 }')" ] \
	|| bad "120 columns: the header is not over its column"

mkdir -p "$tmp/nodes/node-a" "$tmp/nodes/node-b" "$tmp/nodes/gpu"
cp -r $td/session_ebpf $td/session_growth "$tmp/nodes/node-a/"
cp -r $td/session_growth "$tmp/nodes/node-b/"
cp -r $td/session_skip "$tmp/nodes/"
"$xperf" top "$tmp/nodes" --once --sort name >"$tmp/nodes.frame" || bad "--once on nodes"
cat "$tmp/nodes.frame"
python3 - "$tmp/nodes.frame" "$xperf" "$tmp/nodes" <<'PY' || bad "daemon layout"
import json, subprocess, sys
frame, xperf, root = open(sys.argv[1]).read().splitlines(), sys.argv[2], sys.argv[3]
assert " 4 sessions," in frame[0], frame[0]
rows = [(frame[i].split(), frame[i + 1]) for i in range(2, len(frame) - 1)
        if frame[i][1:].startswith("session_")]
got = [(r[0].lstrip(">"), s.split()[0] if s.startswith(" @") else "") for r, s in rows]
want = [("session_skip", ""), ("session_ebpf", "@node-a"), ("session_growth", "@node-a"),
        ("session_growth", "@node-b")]  # by node, then name
assert got == want, got
for (row, second), (name, node) in zip(rows, want):
    rep = json.loads(subprocess.run([xperf, "analyze", "session", "%s/%s/%s" % (
        root, node[1:], name)], capture_output=True, text=True, check=True).stdout)
    assert int(row[3]) == rep["session"]["turns"], (row, node)
    top = rep["bottlenecks"][0] if rep["bottlenecks"] else "-"
    assert ("top: " + top) in second, (second, top)
print("daemon layout: %s, each with its own figures" % got)
PY

"$xperf" top "$tmp/nope" --once >/dev/null 2>&1; [ $? = 2 ] || bad "missing DIR: not 2"
"$xperf" top "$tmp/dir" --once --once >/dev/null 2>&1; [ $? = 64 ] || bad "repeated: not 64"
printf 'x\n' >"$tmp/p.tsv"
"$xperf" top "$tmp/dir" --once --prices "$tmp/p.tsv" >/dev/null 2>&1; [ $? = 2 ] || bad "bad prices"
"$xperf" top "$tmp/dir" --sort fast --once >/dev/null 2>&1; [ $? = 64 ] || bad "bad sort"
"$xperf" top "$tmp/dir" </dev/null >/dev/null 2>&1; [ $? = 64 ] || bad "no terminal: not 64"
exit $fail
