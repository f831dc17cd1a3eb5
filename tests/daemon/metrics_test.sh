#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# metrics_test.sh - `xperf-bpf daemon --metrics-listen 127.0.0.1:0`: /metrics passes
# `promtool check metrics`, counts the agents that ran (two, then three: a 1 ms
# process matched by an exe rule), and no counter goes down between scrapes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
xperf=${XPERF_BPF:-$(readlink -f "$here/../../cli/xperf-bpf")}
tmp=$(mktemp -d "${TEST_TMPDIR:-/tmp}/daemon_metrics.XXXXXX")
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$tmp"' EXIT
cp /bin/true "$tmp/metricagent"
"$xperf" daemon -o "$tmp/out" --node m --exe metricagent --metrics-listen 127.0.0.1:0 \
	2> "$tmp/err" &
d=$!
pids+=($d)
for _ in $(seq 200); do grep -q ready "$tmp/err" && break; sleep 0.05; done
port=$(sed -n 's/.*metrics on port \([0-9]*\).*/\1/p' "$tmp/err")
[ -n "$port" ] || { cat "$tmp/err"; echo "FAIL: no metrics port"; exit 1; }
scrape() { # NAME: the metrics into NAME.prom, checked by promtool
	curl -sf "http://127.0.0.1:$port/metrics" > "$tmp/$1.prom"
	promtool check metrics < "$tmp/$1.prom"
}
value() { # FILE METRIC
	awk -v m="$2" '$1 == m { print $2 }' "$1"
}
"$tmp/metricagent"; "$tmp/metricagent"
sleep 1.5
scrape one
"$tmp/metricagent"
sleep 1.5
scrape two
kill -TERM $d
wait $d
[ "$(value "$tmp/one.prom" xperf_daemon_agents_traced_total)" = 2 ] ||
	{ cat "$tmp/one.prom"; echo "FAIL: agents_traced_total after two agents"; exit 1; }
[ "$(value "$tmp/two.prom" xperf_daemon_agents_traced_total)" = 3 ] ||
	{ cat "$tmp/two.prom"; echo "FAIL: agents_traced_total after three agents"; exit 1; }
[ "$(value "$tmp/two.prom" xperf_daemon_sessions_ended_total)" = 3 ] ||
	{ echo "FAIL: sessions_ended_total"; exit 1; }
# no counter goes down
join <(grep -v '^#' "$tmp/one.prom" | sort) <(grep -v '^#' "$tmp/two.prom" | sort) |
	awk '$3 < $2 && $1 !~ /_active$/ { print "FAIL: " $1 " went down"; bad = 1 } END { exit bad }'
echo PASS
