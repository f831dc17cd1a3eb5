#!/usr/bin/env bash
# analyze_test.sh - runs the hand-computed cases (analyze_test), then checks every report
# they produced: JSON against analyze/report.schema.json, HTML well-formed and with no
# external reference, text within 80 columns.
set -euo pipefail
out="${TEST_TMPDIR:-$(mktemp -d)}/reports"
mkdir -p "$out"
"$1" "$out"
python3 analyze/check_reports.py "$out" analyze/report.schema.json

# The checker itself must catch each kind of defect.
bad="${TEST_TMPDIR:-$(mktemp -d)}/bad"
mkdir -p "$bad"
python3 - "$out/overlap.json" "$bad/share.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["l1"][0]["share"] = 2
json.dump(d, open(sys.argv[2], "w"))
for p in d["l3"]:
    if p["state"] == "fired":
        p["savings"]["ns"] += 1
d["l1"][0]["share"] = 0
json.dump(d, open(sys.argv[2].replace("share", "saved"), "w"))
PY
printf '<!DOCTYPE html>\n<html><body><div><img src="https://example.com/x.png"/></body></html>\n' \
	>"$bad/ext.html"
printf '%081d\n' 0 >"$bad/wide.txt"
printf '<!DOCTYPE html>\n<html><body><a href="gone.turn_001.html">1</a></body></html>\n' \
	>"$bad/dangling.html"
if python3 analyze/check_reports.py "$bad" analyze/report.schema.json >"$bad/log"; then
	echo "FAIL: check_reports accepted broken reports"; exit 1
fi
for want in "share.json: l1/0/share" "ext.html: external reference" "ext.html: unbalanced" \
	"dangling.html: external reference href=gone" \
	"wide.txt: line 1 is 81 columns" "saved.json: compute.supply.tool_io_blocked: savings"; do
	grep -q "$want" "$bad/log" || { echo "FAIL: checker missed '$want'"; cat "$bad/log"; exit 1; }
done
echo "checker self-test: 6 defects caught"
