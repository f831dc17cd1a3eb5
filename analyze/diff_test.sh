#!/usr/bin/env bash
# diff_test.sh XPERF - `xperf diff` on the hand-computed sessions: each change equals the
# difference of the two sessions' own analyses (`xperf analyze session`: time per turn,
# share of turn time), a session against itself moves nothing (no change, 0 in every
# interval), the same seed gives the same report byte for byte, a directory of sessions
# pools their turns, the three formats pass the report checks (diff.schema.json, 80 columns, self-contained HTML),
# and the exit codes (2: a side missing or without a valid turn, 64: usage).
set -uo pipefail
xperf=$1
td=analyze/testdata
out="${TEST_TMPDIR:-$(mktemp -d)}/diff"
mkdir -p "$out/r" "$out/set/x" "$out/set/y"
fail=0
bad() { echo "FAIL: $*"; fail=1; }

"$xperf" diff $td/session_ebpf $td/session_growth --format json -o "$out/d.json" || bad "diff"
"$xperf" analyze session $td/session_ebpf >"$out/a.json" 2>/dev/null
"$xperf" analyze session $td/session_growth >"$out/b.json" 2>/dev/null
"$xperf" diff $td/session_ebpf $td/session_ebpf --format json >"$out/self.json" || bad "self"
python3 - "$out" analyze/diff.schema.json <<'PY' || bad "figures"
import json, sys
import jsonschema
d, schema = sys.argv[1], json.load(open(sys.argv[2]))
v = jsonschema.Draft202012Validator(schema)
diff, a, b = (json.load(open("%s/%s.json" % (d, n))) for n in ("d", "a", "b"))
self_ = json.load(open(d + "/self.json"))
for doc in (diff, self_):
    errs = [e.message for e in v.iter_errors(doc)]
    assert not errs, errs
na, nb = a["session"]["turns"], b["session"]["turns"]
wa, wb = a["session"]["wall_ns"], b["session"]["wall_ns"]
nodes = lambda r: {n["id"]: n["ns"] for k in ("l1", "l2", "l3") for n in r[k]}
A, B = nodes(a), nodes(b)
for p in diff["points"]:
    want = (B[p["id"]] / nb - A[p["id"]] / na) / 1e6
    assert abs(p["delta_ms_per_turn"] - want) < 1e-9, (p["id"], p["delta_ms_per_turn"], want)
    share = B[p["id"]] / wb - A[p["id"]] / wa
    assert abs(p["delta_share"] - share) < 1e-12, (p["id"], p["delta_share"], share)
    lo, hi = p["ci_ms_per_turn"]
    assert lo <= hi, p
    assert p["significant"] == ((lo > 0 or hi < 0) and abs(p["delta_ms_per_turn"]) >= max(
        1.0, 0.02 * diff["a"]["ms_per_turn"])), p
    assert (p["id"] in diff["moved"]) == p["significant"], p
assert diff["a"]["turns"] == na and diff["b"]["turns"] == nb
assert self_["moved"] == [], self_["moved"]
assert all(p["delta_ms_per_turn"] == 0 and p["ci_ms_per_turn"][0] <= 0 <= p["ci_ms_per_turn"][1]
           for p in self_["points"])
print("diff: %d points equal the sessions' analyses; moved %s" % (len(diff["points"]), diff["moved"]))
PY

# Reproducible: the same seed, the same report; the seed is what changes the intervals.
"$xperf" diff $td/session_ebpf $td/session_growth --format json --seed 1 >"$out/seed1.json"
cmp -s "$out/d.json" "$out/seed1.json" || bad "same seed, different report"
"$xperf" diff $td/session_ebpf $td/session_growth --format json --seed 7 >"$out/seed7.json"
cmp -s "$out/d.json" "$out/seed7.json" && bad "another seed, the same intervals"

# A directory of sessions pools their turns.
cp $td/session_ebpf/*.json "$out/set/x/" && cp $td/session_growth/*.json "$out/set/y/"
"$xperf" diff "$out/set" $td/session_growth --format json >"$out/set.json" || bad "set"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["a"]["sessions"] == 2 and d["a"]["turns"] == 3 + 3, d["a"]' "$out/set.json" || bad "pooled turns"

"$xperf" diff $td/session_ebpf $td/session_growth >"$out/r/d.txt" || bad "text"
"$xperf" diff $td/session_ebpf $td/session_growth --format html -o "$out/r/d.html" || bad "html"
[ "$(stat -c %a "$out/r/d.html")" = 600 ] || bad "-o mode"
grep -q "^\* " "$out/r/d.txt" || bad "text marks no moved point"
grep -q "^   3 turns in 1 session (0 skipped)" "$out/r/d.txt" || bad "text: one session's count"
grep -q ": 6 turns in 2 sessions (" <("$xperf" diff "$out/set" $td/session_growth --format html) ||
	bad "html: two sessions' count"
python3 analyze/check_reports.py "$out/r" analyze/report.schema.json >"$out/check" ||
	{ cat "$out/check"; grep -q "0 json" "$out/check" || bad "report checks"; }
grep -q " 0 bad" "$out/check" || bad "html/text checks: $(cat "$out/check")"

mkdir -p "$out/empty/none"
"$xperf" diff $td/session_ebpf "$out/empty" >/dev/null 2>"$out/err"; rc=$?
[ $rc = 2 ] && grep -q "no valid turn" "$out/err" || bad "no valid turn: exit $rc"
"$xperf" diff $td/session_ebpf >/dev/null 2>&1; [ $? = 64 ] || bad "one path: not 64"
"$xperf" diff a b --seed x >/dev/null 2>&1; [ $? = 64 ] || bad "bad seed: not 64"
"$xperf" diff $td/session_ebpf $td/nope >/dev/null 2>"$out/err"; rc=$?
[ $rc = 2 ] && grep -q "$td/nope: no such directory" "$out/err" || bad "missing side: exit $rc"
"$xperf" diff $td/session_ebpf $td/session_ebpf --seed 1 --seed 2 >/dev/null 2>&1
[ $? = 64 ] || bad "repeated option: not 64"
exit $fail
