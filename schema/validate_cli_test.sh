#!/usr/bin/env bash
# validate_cli_test.sh XPERF - `xperf validate` from the outside: exit codes
# (0 valid, 2 invalid, 64 usage), the exact "path:line:col: /pointer: message"
# lines of every invalid fixture, and hostile input (empty, binary junk,
# truncated, 100,000-deep nesting, 70 MB and 1 GB files, a FIFO, a 5 MB valid
# turn). Every case is bounded by the test's own timeout.
set -uo pipefail
export LC_ALL=C
xperf=$1
data=schema/testdata
tmp=${TEST_TMPDIR:-$(mktemp -d)}
failed=0

fail() {
	echo "FAIL: $*"
	failed=$((failed + 1))
}

# expect NAME RC WANT_STDOUT ARGS...: run xperf validate, compare rc and stdout exactly.
expect() {
	local name=$1 rc=$2 want=$3 got code
	shift 3
	got=$("$xperf" validate "$@" 2>"$tmp/stderr")
	code=$?
	[ "$code" = "$rc" ] || fail "$name: exit $code, want $rc ($(cat "$tmp/stderr"))"
	[ "$got" = "$want" ] || fail "$name: stdout differs:
--- want
$want
--- got
$got"
}

# expect_re NAME RC REGEX ARGS...: one line of stdout matching REGEX.
expect_re() {
	local name=$1 rc=$2 re=$3 got code
	shift 3
	got=$("$xperf" validate "$@" 2>/dev/null)
	code=$?
	[ "$code" = "$rc" ] || fail "$name: exit $code, want $rc"
	[ "$(printf '%s\n' "$got" | wc -l)" = 1 ] || fail "$name: want one line, got: $got"
	[[ $got =~ $re ]] || fail "$name: '$got' does not match '$re'"
}

# Fixtures: each invalid file prints exactly its .expect, prefixed with its path.
for f in "$data"/invalid/*.json; do
	expect "$(basename "$f")" 2 "$(sed "s|^|$data/invalid/|" "${f%.json}.expect")" "$f"
done
all=$(for f in "$data"/invalid/*.json; do sed "s|^|$data/invalid/|" "${f%.json}.expect"; done)
expect "invalid dir" 2 "$all" "$data/invalid"
expect "valid dir" 0 "" "$data/valid"
grep -q "2 files, 0 invalid, 0 errors" "$tmp/stderr" || fail "summary: $(cat "$tmp/stderr")"
expect "valid + invalid" 2 "$(sed "s|^|$data/invalid/|" "$data/invalid/bad_enum.expect")" \
	"$data/valid/minimal.json" "$data/invalid/bad_enum.json"

# A trace directory as xperf-bpf record writes it: capture.json and the report beside the
# turns are no turns; every turn_NNN.json below it is one.
mkdir -p "$tmp/traces/sess/gpu"
echo '{"capture": {"records": 1}}' >"$tmp/traces/sess/capture.json"
echo '<html></html>' >"$tmp/traces/sess/report.html"
cp "$data/valid/minimal.json" "$tmp/traces/sess/turn_001.json"
expect "record's trace dir" 0 "" "$tmp/traces"
grep -q "xperf validate: 1 file, 0 invalid, 0 errors" "$tmp/stderr" || fail "summary: $(cat "$tmp/stderr")"
cp "$data/invalid/bad_enum.json" "$tmp/traces/sess/turn_002.json"
expect "a bad turn in it" 2 "$(sed "s|^bad_enum.json|$tmp/traces/sess/turn_002.json|" \
	"$data/invalid/bad_enum.expect")" "$tmp/traces"
grep -q "2 files, 1 invalid, 1 error$" "$tmp/stderr" || fail "summary: $(cat "$tmp/stderr")"

# Hostile input.
: >"$tmp/empty.json"
expect "empty" 2 "$tmp/empty.json:1:1: /: empty file" "$tmp/empty.json"
python3 -c 'import random,sys; random.seed(7); sys.stdout.buffer.write(bytes(random.randrange(256) for _ in range(65536)))' >"$tmp/junk.json"
expect_re "binary junk" 2 "^$tmp/junk.json:[0-9]+:[0-9]+: /[^ ]*: .+$" "$tmp/junk.json"
head -c 700 "$data/valid/llm_turn_full.json" >"$tmp/truncated.json"
expect_re "truncated" 2 ": (unexpected end of input|unterminated string)$" "$tmp/truncated.json"
python3 -c 'print("[" * 100000 + "]" * 100000)' >"$tmp/deep.json"
expect_re "100,000 deep" 2 "^$tmp/deep.json:1:65: /0(/0){63}: nesting deeper than 64 levels$" \
	"$tmp/deep.json"
truncate -s 70M "$tmp/big.json"
expect "70 MB" 2 "$tmp/big.json: file is 73400320 bytes, over the 64 MiB limit" \
	"$tmp/big.json"
truncate -s 1G "$tmp/huge.json"
expect "1 GB" 2 "$tmp/huge.json: file is 1073741824 bytes, over the 64 MiB limit" \
	"$tmp/huge.json"
rm -f "$tmp/big.json" "$tmp/huge.json"
mkfifo "$tmp/fifo.json"
expect "fifo" 2 "$tmp/fifo.json: not a regular file" "$tmp/fifo.json"
expect "missing" 2 "$tmp/none.json: cannot open: No such file or directory" \
	"$tmp/none.json"
mkdir -p "$tmp/nojson"
expect "no json in dir" 2 "$tmp/nojson: no *.json file below this directory" \
	"$tmp/nojson"

# A large valid turn: 30,000 spans (about 5 MB).
python3 - "$tmp/large.json" <<'PY'
import json, sys
spans = [{"id": 1, "parent": None, "stage": "orchestration", "domain": "compute",
          "category": "processing", "start_ns": 0, "end_ns": 10**12}]
for i in range(2, 30001):
    spans.append({"id": i, "parent": 1, "stage": "tool_call", "domain": "compute",
                  "category": "effective", "start_ns": i * 1000, "end_ns": i * 1000 + 900,
                  "sched": {"on_cpu_ns": 800, "runq_ns": 50, "blocked_ns": 50},
                  "attributes": {"tool.name": "bash", "process.exit.code": 0}})
doc = {"schema_version": "1.0", "session_id": "large", "turn_index": 1, "complete": True,
       "source": "ebpf", "clock": "CLOCK_MONOTONIC", "start_ns": 0, "end_ns": 10**12,
       "agent": {"name": "a", "pid": 9}, "spans": spans, "fused_marks": [], "waste_marks": [],
       "data_quality": {"tier": "plaintext", "dropped_events": 0, "truncated_payloads": 0,
                        "warnings": []}}
json.dump(doc, open(sys.argv[1], "w"), indent=1)
PY
expect "large valid" 0 "" "$tmp/large.json"

# Usage errors.
"$xperf" validate >/dev/null 2>&1; [ $? = 64 ] || fail "no arguments: want 64"
"$xperf" validate --bogus x.json >/dev/null 2>&1; [ $? = 64 ] || fail "--bogus: want 64"
"$xperf" validate --help | grep -q "^Usage: xperf validate" || fail "--help"

[ "$failed" = 0 ] && echo "validate CLI: all checks passed"
exit "$((failed > 0))"
