#!/usr/bin/env bash
# run_fuzz.sh FUZZER SECONDS MIN_COV [-dict=FILE] [SEED_DIR] - runs a libFuzzer
# binary for a bounded time. New inputs go to a scratch corpus in $TEST_TMPDIR,
# never to the seeds. Fails on any finding, and when the coverage the seeds
# reach (libFuzzer's INITED line) is under MIN_COV: the harness no longer
# reaches its parser.
set -euo pipefail
fuzzer=$1 seconds=$2 min_cov=$3
shift 3
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
mkdir -p "$tmp/corpus"
rc=0
"$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
	-print_final_stats=1 "$@" "$tmp/corpus" 2>&1 | tee "$tmp/fuzz.log" || rc=$?
((rc == 0)) || exit "$rc"
inited=$(sed -n 's/.*INITED cov: \([0-9]*\).*/\1/p' "$tmp/fuzz.log" | head -1)
if ((${inited:-0} < min_cov)); then
	echo "run_fuzz: the seeds reach coverage ${inited:-?}, under the floor $min_cov:" \
		"the harness does not reach its parser" >&2
	exit 1
fi
