#!/usr/bin/env bash
# cli_test.sh XPERF - `xperf analyze` end to end: formats, options, exit codes
# (0 ok, 2 invalid input, 64 usage), skipped files in session mode, -o writes
# a 0600 file; every report it produces is checked by check_reports.py.
set -uo pipefail
xperf=$1
td=analyze/testdata
out="${TEST_TMPDIR:-$(mktemp -d)}/cli"
mkdir -p "$out"
fail=0

expect() { # expect RC DESCRIPTION -- command...
	local want=$1 what=$2 rc
	shift 3
	"$@" >"$out/last.out" 2>"$out/last.err"
	rc=$?
	if [ "$rc" != "$want" ]; then
		echo "FAIL: $what: exit $rc, want $want"; cat "$out/last.err"; fail=1
	fi
}

expect 0 "turn, default json" -- "$xperf" analyze turn $td/ebpf.json
cp "$out/last.out" "$out/turn_default.json"
grep -qE '"report":[[:space:]]*"xperf.analyze.turn"' "$out/turn_default.json" || { echo "FAIL: not JSON"; fail=1; }
expect 0 "turn text L4" -- "$xperf" analyze turn $td/full.json --format text --depth L4
cp "$out/last.out" "$out/full.txt"
grep -q "FIRED  fused.supply.streaming_gap" "$out/full.txt" || { echo "FAIL: text lacks fired point"; fail=1; }
expect 0 "turn html to file" -- "$xperf" analyze turn $td/full.json --format html -o "$out/full.html"
[ "$(stat -c %a "$out/full.html")" = 600 ] || { echo "FAIL: -o mode"; fail=1; }
expect 0 "measurability A,B" -- "$xperf" analyze turn $td/measurability.json --measurability A \
	--threshold 0.1 --depth L2
cp "$out/last.out" "$out/meas.json"
python3 - "$out/meas.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
ns = {n["id"]: n["ns"] for n in d["l1"]}
assert ns == {"supply": 0, "processing": 400000000, "waste": 0, "effective": 600000000}, ns
assert "l3" not in d and d["options"]["measurability"] == ["A"] and d["options"]["threshold"] == 0.1
PY
expect 0 "session text" -- "$xperf" analyze session $td/session_skip --format text
cp "$out/last.out" "$out/session_skip.txt"
grep -q "skipped $td/session_skip/turn_002.json:2:1: " "$out/last.err" ||
	{ echo "FAIL: skip not reported with path and position"; cat "$out/last.err"; fail=1; }
expect 0 "session json" -- "$xperf" analyze session $td/session_growth
cp "$out/last.out" "$out/session_growth.json"
expect 2 "invalid turn" -- "$xperf" analyze turn $td/session_skip/turn_002.json
grep -q "turn_002.json:2:1: " "$out/last.err" || { echo "FAIL: no position"; fail=1; }
expect 2 "missing turn file" -- "$xperf" analyze turn $td/nope.json
expect 2 "dir without turns" -- "$xperf" analyze session $td
expect 2 "missing dir" -- "$xperf" analyze session $td/nope
expect 64 "no mode" -- "$xperf" analyze
expect 64 "bad format" -- "$xperf" analyze turn $td/ebpf.json --format xml
expect 64 "bad threshold" -- "$xperf" analyze turn $td/ebpf.json --threshold 2
expect 64 "bad grades" -- "$xperf" analyze turn $td/ebpf.json --measurability A,D
expect 64 "bad depth" -- "$xperf" analyze turn $td/ebpf.json --depth L7
expect 0 "help" -- "$xperf" analyze --help

# --prices: a table of the same format as analyze/prices.tsv; a bad one is refused (exit 2)
# with the file and line of the first error.
expect 0 "prices file" -- "$xperf" analyze turn $td/full.json --prices $td/prices_test.tsv
grep -q '"date":[[:space:]]*"2026-01-15"' "$out/last.out" || { echo "FAIL: --prices not used"; fail=1; }
bad_prices() { # bad_prices WANT-IN-STDERR FILE-CONTENT
	printf '%b' "$2" >"$out/bad.tsv"
	expect 2 "bad prices: $1" -- "$xperf" analyze turn $td/full.json --prices "$out/bad.tsv"
	grep -qF "$out/bad.tsv:$1" "$out/last.err" || { echo "FAIL: want '$1'"; cat "$out/last.err"; fail=1; }
}
bad_prices "3: expected a pattern and 5 prices" 'date 2026-01-01\n# x\nclaude-* 1 2 3\n'
bad_prices "2: output price '-1'" 'date 2026-01-01\nclaude-* 1 -1 0 0 0\n'
bad_prices "2: input price 'abc'" 'date 2026-01-01\nm abc 1 0 0 0\n'
bad_prices "1: expected 'date YYYY-MM-DD'" 'date 2026/01/01\n'
bad_prices "3: a second date line" 'date 2026-01-01\n\ndate 2026-01-02\n'
bad_prices " no 'date YYYY-MM-DD' line" 'm 1 1 1 1 1\n'
expect 2 "missing prices file" -- "$xperf" analyze turn $td/full.json --prices $td/nope.tsv
grep -q "nope.tsv: No such file" "$out/last.err" || { echo "FAIL: missing prices message"; fail=1; }
python3 analyze/check_reports.py "$out" analyze/report.schema.json || fail=1
exit $fail
