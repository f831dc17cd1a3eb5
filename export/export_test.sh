#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# export_test.sh - `xperf export` end to end on real turn files: the analyzer's
# hand-computed fixtures, the schema's full example (GPU records with launch
# correlation), a session written by the SDK (examples/c_agent, run here) and
# one assembled from recorded kernel events (xperf-replay of the demo). Each
# output is checked against its inputs by check_export.py, the OTLP output
# also by opentelemetry-proto's own messages (otlp_proto_check.js); then
# determinism, the clock offset, overlap lanes, file mode and exit codes.
set -euo pipefail
cli=cli/xperf
check=export/check_export.py
ws=$(cd "$(dirname "$(readlink -f export/otlp_proto_check.js)")/.." && pwd)
export NODE_PATH=$ws/third_party/npm/node_modules
for f in @opentelemetry/otlp-transformer/build/src/generated/root.js speedscope/dist/release/index.html; do
	if [ ! -f "$NODE_PATH/$f" ]; then
		echo "FAIL: ${f%%/*} is not installed in $NODE_PATH: run ./setup.sh --deps-only"
		exit 1
	fi
done
command -v chromium >/dev/null || { echo "FAIL: chromium is not installed: run ./setup.sh --deps-only"; exit 1; }
tmp=$TEST_TMPDIR
offset=1700000000000000000
fail() { echo "FAIL: $*"; exit 1; }
speedscope() { python3 export/speedscope_check.py "$NODE_PATH/speedscope" "$1"; }

both() { # name, inputs...: export both formats, check each (set -e does not reach in here: `|| return`)
	local name=$1
	shift
	"$cli" export --format chrome --clock-offset-ns $offset -o "$tmp/$name.chrome.json" "$@" || return
	python3 "$check" chrome $offset "$tmp/$name.chrome.json" "$@" | sed "s/^/$name: /" || return
	speedscope "$tmp/$name.chrome.json" | sed "s/^/$name: /" || return
	"$cli" export --format otlp --clock-offset-ns $offset -o "$tmp/$name.otlp.json" "$@" || return
	python3 "$check" otlp $offset "$tmp/$name.otlp.json" "$@" | sed "s/^/$name: /" || return
	node export/otlp_proto_check.js "$tmp/$name.otlp.json" | sed "s/^/$name: /"
}

# Every hand-computed fixture on its own (they share session "t", turn 1).
for f in analyze/testdata/*.json; do
	both "$(basename "$f" .json)" "$f" >/dev/null || { echo "in $f"; exit 1; }
done
echo "analyzer fixtures: $(ls analyze/testdata/*.json | wc -l) files, both formats checked"

# An SDK session and an assembled one, exported with GPU and fixture sessions in one go.
XPERF_TRACE_DIR="$tmp/sdk" examples/c_agent >"$tmp/agent.out"
sdk=$(sed -n 's/^traces: //p' "$tmp/agent.out")
assemble/xperf-replay -o "$tmp/asm" --session demo assemble/testdata/demo_plain.jsonl >/dev/null
inputs=(schema/testdata/valid/llm_turn_full.json analyze/testdata/session_ebpf
	analyze/testdata/session_growth "$sdk" "$tmp/asm/demo")
both all "${inputs[@]}"
grep -q '"ph":"f"' "$tmp/all.chrome.json" || fail "no GPU flow in the chrome output"
grep -q '"name":"tokens received"' "$tmp/all.chrome.json" || fail "no token counter"
python3 - "$tmp/all.otlp.json" <<'PY'
import json, sys
spans = [s for rs in json.load(open(sys.argv[1]))["resourceSpans"]
         for ss in rs["scopeSpans"] for s in ss["spans"]]
# the SDK's failing tool call and the demo's failing ls: status ERROR with the exit code
bad = [s for s in spans if s.get("status", {}).get("code") == 2]
assert any("exit code" in s["status"]["message"] for s in bad), bad
assert any(s["kind"] == 3 and s["name"].startswith("chat ") for s in spans)
# OpenTelemetry GenAI conventions: no metric name as a span attribute, no pre-GenAI tool name,
# no port in server.address, token usage only on GenAI operations (backends sum it)
keys = {a["key"]: a["value"] for s in spans for a in s.get("attributes", [])}
assert not {"tool.name", "gen_ai.server.time_to_first_token"} & set(keys), keys.keys()
for s in spans:
    a = {x["key"]: x["value"] for x in s.get("attributes", [])}
    host = a.get("server.address", {}).get("stringValue", "")
    assert host.count(":") != 1 and "[" not in host, a  # an IPv6 address has 2+ colons
    assert "gen_ai.operation.name" in a or not any(k.startswith("gen_ai.usage.") for k in a), s
ops = sorted({a["value"]["stringValue"] for s in spans for a in s.get("attributes", [])
              if a["key"] == "gen_ai.operation.name"})
assert ops == ["chat", "execute_tool", "invoke_agent"], ops
print("all: %d spans, %d with status ERROR, operations %s" % (len(spans), len(bad), ops))
PY

# The same files give the same bytes (ids derive from session id and turn index).
"$cli" export --format otlp --clock-offset-ns $offset "${inputs[@]}" >"$tmp/again.json"
cmp -s "$tmp/again.json" "$tmp/all.otlp.json" || fail "otlp output not deterministic"
"$cli" export --format chrome --clock-offset-ns $offset "${inputs[@]}" | cmp -s - "$tmp/all.chrome.json" ||
	fail "chrome output not deterministic"

# Default clock offset: this boot's, so a turn the SDK wrote just now is dated now.
"$cli" export --format otlp "$sdk" >"$tmp/now.json"
python3 - "$tmp/now.json" <<'PY'
import json, sys, time
spans = [s for rs in json.load(open(sys.argv[1]))["resourceSpans"]
         for ss in rs["scopeSpans"] for s in ss["spans"]]
ages = [time.time() - int(s["startTimeUnixNano"]) / 1e9 for s in spans]
assert all(0 <= a < 600 for a in ages), (min(ages), max(ages))
print("default clock offset: SDK spans dated %.1f-%.1f s ago" % (min(ages), max(ages)))
PY

# Clock anchors: a file from another boot is dated by its own anchor (exactly), every turn of
# the SDK's session by the first anchor of its boot; --clock-offset-ns overrides both.
"$cli" export --format otlp schema/testdata/valid/llm_turn_full.json "$sdk" >"$tmp/anchored.json"
python3 - "$tmp/anchored.json" schema/testdata/valid/llm_turn_full.json "$sdk" <<'PY'
import glob, json, sys
out = json.load(open(sys.argv[1]))["resourceSpans"]
full = json.load(open(sys.argv[2]))
sdk = [json.load(open(f)) for f in sorted(glob.glob(sys.argv[3] + "/turn_*.json"))]
boot = open("/proc/sys/kernel/random/boot_id").read().strip()
def res(rs, key):
    return [a["value"]["stringValue"] for a in rs["resource"]["attributes"] if a["key"] == key]
def roots(rs):
    return [s for ss in rs["scopeSpans"] for s in ss["spans"] if "parentSpanId" not in s]
a = full["clock_anchor"]
assert res(out[0], "xperf.boot_id") == [a["boot_id"]], out[0]["resource"]
want = a["realtime_ns"] - a["monotonic_ns"] + full["start_ns"]
assert roots(out[0])[0]["startTimeUnixNano"] == str(want), roots(out[0])[0]
assert res(out[1], "xperf.boot_id") == [boot] and all(d["clock_anchor"]["boot_id"] == boot for d in sdk)
first = sdk[0]["clock_anchor"]
for d, r in zip(sdk, roots(out[1])):
    want = first["realtime_ns"] - first["monotonic_ns"] + d["start_ns"]
    assert r["startTimeUnixNano"] == str(want), (r, d["clock_anchor"])
print("clock anchors: another boot's file at its anchor, %d SDK turns at their boot's" % len(sdk))
PY

"$cli" export --format chrome -o "$tmp/anchored.chrome.json" schema/testdata/valid/llm_turn_full.json "$sdk"
python3 "$check" chrome anchors "$tmp/anchored.chrome.json" schema/testdata/valid/llm_turn_full.json "$sdk" |
	sed "s/^/anchored: /"
speedscope "$tmp/anchored.chrome.json" | sed "s/^/anchored: /"

# Spans overlapping without nesting on one thread: the second goes to an overflow lane.
grep -q '"name":"main thread 1 (overlap 1)"' "$tmp/overlap.chrome.json" ||
	fail "overlap.json: no overflow lane"

# Output files are 0600.
[ "$(stat -c %a "$tmp/all.otlp.json")" = 600 ] || fail "mode $(stat -c %a "$tmp/all.otlp.json")"

expect() { # code, stderr pattern, args...
	local want=$1 pat=$2 rc=0
	shift 2
	"$cli" export "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
	[ "$rc" = "$want" ] || fail "export $*: exit $rc, want $want: $(cat "$tmp/err")"
	[ -z "$pat" ] || grep -qE -- "$pat" "$tmp/err" || fail "export $*: stderr '$(cat "$tmp/err")' lacks /$pat/"
	if [ "$want" != 0 ]; then
		[ ! -s "$tmp/out" ] || fail "export $*: wrote output on failure"
	fi
}
printf '{"schema_version": "1.0",\n "spans": [1,' >"$tmp/cut.json"
expect 2 "^xperf export: $tmp/cut.json:2:[0-9]+: " --format chrome "$tmp/cut.json"
[ "$(wc -l <"$tmp/err")" = 1 ] || fail "more than one line for one bad file"
expect 2 "session_skip/turn_002.json:[0-9]+:[0-9]+: " --format otlp analyze/testdata/session_skip
expect 2 "turn 1 of session t is given twice" --format otlp analyze/testdata/gpu.json \
	analyze/testdata/full.json analyze/testdata/overlap.json
expect 2 "nope.json: cannot open" --format chrome "$tmp/nope.json"
expect 2 "no turn_NNN.json file" --format chrome "$tmp"
expect 64 "--format chrome\|otlp is required" analyze/testdata/gpu.json
expect 64 "invalid --format 'svg'" --format svg analyze/testdata/gpu.json
expect 64 "invalid --clock-offset-ns '12x'" --format otlp --clock-offset-ns 12x x
expect 64 "no PATH given" --format otlp
expect 0 "" --format chrome -- analyze/testdata/gpu.json
"$cli" export --format chrome -o "$tmp/never.json" "$tmp/cut.json" 2>/dev/null || true
[ ! -e "$tmp/never.json" ] || fail "-o file written for invalid input"
! ls "$tmp" | grep -q '\.tmp\.' || fail "temp files left behind: $(ls "$tmp")"
echo "exit codes, one-line errors, nothing written on failure: ok"

# The cost of an LLM call (xperf.cost.usd) is the analyzer's, exactly: both price the
# call's tokens with the shipped table (analyze/README.md, "Tokens and cost").
"$cli" export --format otlp -o "$tmp/cost.otlp.json" analyze/testdata/full.json
"$cli" analyze turn analyze/testdata/full.json >"$tmp/cost.analyze.json"
python3 - "$tmp/cost.otlp.json" "$tmp/cost.analyze.json" <<'PY' || fail "xperf.cost.usd"
import json, sys
otlp, rep = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
got = {sp["name"]: a["value"]["doubleValue"]
       for rs in otlp["resourceSpans"] for ss in rs["scopeSpans"] for sp in ss["spans"]
       for a in sp["attributes"] if a["key"] == "xperf.cost.usd"}
want = [c["cost_usd"] for c in rep["llm_calls"] if not c["unpriced_calls"]]
assert sorted(got.values()) == sorted(want) and len(want) == 1, (got, want)
print("xperf.cost.usd: %s = the analyzer's" % got)
PY
