#!/usr/bin/env bash
# fleet_cli_test.sh XPERF CHECK_REPORTS - `xperf fleet report` end to end on testdata/fleet:
# the three formats pass the report checks (JSON schema, 80-column ASCII text, closed
# self-contained HTML), the JSON figures equal the ground truth (fixture generator +
# the sum of per-session analyses), invalid files are named with their position, the
# report file is 0600, names from the tree are escaped in HTML, both layouts (nodes of
# sessions, sessions directly) and every documented exit code.
set -euo pipefail
xperf=$1 check_reports=$2
fix=fleet/testdata/fleet
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fail=0
bad() { echo "FAIL: $*"; fail=1; }

python3 fleet/check_fleet.py expect "$xperf" "$fix" fleet/testdata/expected.json >"$tmp/metrics.json"
mkdir -p "$tmp/r"
"$xperf" fleet report "$fix" --format json -o "$tmp/r/report.json" 2>"$tmp/stderr"
"$xperf" fleet report "$fix" --format html -o "$tmp/r/report.html" 2>/dev/null
"$xperf" fleet report "$fix" >"$tmp/r/report.txt" 2>/dev/null
python3 "$check_reports" "$tmp/r" fleet/fleet_report.schema.json || bad "report checks"
python3 fleet/check_fleet.py report "$tmp/metrics.json" "$tmp/r/report.json" || bad "figures"
[ "$(stat -c %a "$tmp/r/report.json")" = 600 ] || bad "report mode is not 0600"
grep -q "^xperf fleet: $fix/gpu-node-a/sess-a2/turn_002.json:2:1: " "$tmp/stderr" ||
	bad "invalid file not named with its position: $(cat "$tmp/stderr")"
grep -q "2 invalid files, 1 failed sessions" "$tmp/stderr" || bad "no summary of problems"
grep -q "sess-b2: no valid turn file" "$tmp/r/report.txt" || bad "failed session not listed"
grep -q "fix: " "$tmp/r/report.txt" || bad "no suggestion in the text report"

# DIR is one node: its sessions directly. DIR is one session.
"$xperf" fleet report "$fix/gpu-node-a" --format json >"$tmp/node.json" 2>/dev/null
python3 - "$tmp/node.json" <<'EOF' || bad "sessions-directly layout"
import json, sys
d = json.load(open(sys.argv[1]))
assert [n["node"] for n in d["nodes"]] == ["gpu-node-a"], d["nodes"]
assert d["totals"]["sessions"] == 2 and d["totals"]["turns"] == 5, d["totals"]
EOF
"$xperf" fleet report "$fix/gpu-node-a/sess-a1" --format json >"$tmp/one.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["totals"]["turns"] == 3' \
	"$tmp/one.json" || bad "single session"

# Names from the tree are escaped in HTML.
mkdir -p "$tmp/odd/<b>&\"n'"
cp -r "$fix/gpu-node-a/sess-a1" "$tmp/odd/<b>&\"n'/"
"$xperf" fleet report "$tmp/odd" --format html >"$tmp/odd.html"
grep -q '&lt;b&gt;&amp;&quot;n&#39;' "$tmp/odd.html" || bad "node name not escaped in HTML"
grep -q '<b>&"n' "$tmp/odd.html" && bad "raw node name in HTML"

# A node directory name that is not UTF-8: every report stays valid UTF-8 (strict decoders).
mkdir -p "$tmp/bytes/$(printf 'gpu-\xff')"
cp -r "$fix/gpu-node-a/sess-a1" "$tmp/bytes/$(printf 'gpu-\xff')/"
"$xperf" fleet report "$tmp/bytes" --format json >"$tmp/bytes.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1], encoding="utf-8"))
assert d["nodes"][0]["node"] == "gpu-?", d["nodes"]' "$tmp/bytes.json" ||
	bad "non-UTF-8 node name not sanitized in JSON"

# Exit codes.
expect_rc() {
	local want=$1
	shift
	local rc=0
	"$xperf" "$@" >/dev/null 2>"$tmp/err" || rc=$?
	[ "$rc" = "$want" ] || bad "xperf $* exited $rc, want $want ($(head -c 200 "$tmp/err"))"
}
mkdir -p "$tmp/empty"
expect_rc 64 fleet
expect_rc 64 fleet report
expect_rc 64 fleet report "$fix" --format xml
expect_rc 64 fleet report "$fix" --bogus
expect_rc 64 fleet serve "$fix" --interval 0
expect_rc 64 fleet serve "$fix" --listen nonsense
expect_rc 2 fleet report "$tmp/does-not-exist"
expect_rc 2 fleet report "$tmp/empty"
expect_rc 2 fleet report "$fix/gpu-node-b/sess-b2"
expect_rc 1 fleet report "$fix" -o "$tmp/no/such/dir/r.json"
expect_rc 0 fleet --help

[ "$fail" = 0 ] && echo "PASS: fleet report CLI"
exit "$fail"
