#!/usr/bin/env bash
# run_fuzz.sh FUZZER SECONDS [SEED_DIR] - runs a libFuzzer binary for a bounded
# time. New inputs go to a scratch corpus in $TEST_TMPDIR, never to the seeds.
set -euo pipefail
fuzzer=$1 seconds=$2 seeds=${3:-}
scratch="${TEST_TMPDIR:-$(mktemp -d)}/corpus"
mkdir -p "$scratch"
exec "$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
	-print_final_stats=1 "$scratch" ${seeds:+"$seeds"}
