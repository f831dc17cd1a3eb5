#!/usr/bin/env bash
# analyze_test.sh - runs the hand-computed cases (analyze_test), then checks every report
# they produced: JSON against analyze/report.schema.json, HTML well-formed and with no
# external reference, text within 80 columns.
set -euo pipefail
out="${TEST_TMPDIR:-$(mktemp -d)}/reports"
mkdir -p "$out"
"$1" "$out"
python3 analyze/check_reports.py "$out" analyze/report.schema.json
