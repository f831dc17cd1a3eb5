#!/usr/bin/env bash
# theory_cli_test.sh XPERF README - `xperf theory` from the outside: the text
# fits 80 columns and names every L3 point, as does theory/README.md; the JSON parses and holds the tables with
# their invariants (12 L2, >= 28 unique L3 under existing L2s, stages with
# existing homes); usage errors exit 64.
set -uo pipefail
xperf=$1
readme=$2
tmp=${TEST_TMPDIR:-$(mktemp -d)}
failed=0

fail() {
	echo "FAIL: $*"
	failed=$((failed + 1))
}

"$xperf" theory >"$tmp/text" || fail "text: exit $?"
"$xperf" theory --format json >"$tmp/json" || fail "json: exit $?"
"$xperf" theory --format=json | cmp -s - "$tmp/json" || fail "--format=json differs"
wide=$(awk 'length > 80' "$tmp/text")
[ -z "$wide" ] || fail "text lines over 80 columns: $wide"

python3 - "$tmp/json" "$tmp/text" "$readme" <<'PY' || fail "json tables"
import json, sys
d = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
readme = open(sys.argv[3]).read()
l2 = {x["id"] for x in d["l2"]}
l3 = [x["id"] for x in d["l3"]]
assert len(d["l2"]) == 12 and len(l2) == 12, "12 L2"
assert {(x["domain"], x["category"]) for x in d["l2"]} == {
    (a, b) for a in ("compute", "intelligent", "fused")
    for b in ("supply", "processing", "waste", "effective")}, "domain x category"
assert len(l3) >= 28 and len(set(l3)) == len(l3), "unique L3"
for x in d["l3"]:
    assert x["l2"] in l2 and x["id"].startswith(x["l2"] + "."), x["id"]
    assert x["grade"] in ("A", "B", "C") and x["fires"] in ("above", "below"), x["id"]
    assert x["id"] in text, "text lacks " + x["id"]
    assert "`%s`" % x["id"] in readme, "theory/README.md lacks " + x["id"]
for s in d["stages"]:
    assert s["l3_home"] in l3 and s["supply_l3"] in l3, s["name"]
    assert s["domain"] in ("compute", "intelligent", "fused"), s["name"]
assert {x["id"] for x in d["l4"]} >= {"ipc_low", "l1d_mpki", "llc_mpki", "branch_mpki",
                                       "page_fault_rate", "major_faults", "ctx_switch_rate",
                                       "migration_rate", "runq_latency"}
assert d["rules"]["cpu_ratio_supply"] == 0.3 and d["rules"]["drill_threshold"] == 0.2
PY

"$xperf" theory --format xml >/dev/null 2>&1; [ $? = 64 ] || fail "--format xml: want 64"
"$xperf" theory --bogus >/dev/null 2>&1; [ $? = 64 ] || fail "--bogus: want 64"
"$xperf" theory --help | grep -q "^Usage: xperf theory" || fail "--help"
"$xperf" nosuch >/dev/null 2>&1; [ $? = 64 ] || fail "unknown command: want 64"

[ "$failed" = 0 ] && echo "theory CLI: all checks passed"
exit "$((failed > 0))"
