#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# metrics_test.sh - `xperf-bpf daemon --metrics-listen`: /metrics scraped every 0.4 s
# (each scrape through `promtool check metrics`) while agents come and go: python3
# agents making streaming calls to the mock provider (sessions with turns), 1 ms
# processes matched by an exe rule, a SIGHUP reload, a finished session deleted as
# retention would. check_metrics.py: no counter ever goes down, the agents and turns
# are all counted, and the fleet figures equal `xperf fleet serve`'s over the same
# directory and ledger.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
xperf_cli=${XPERF:-$(readlink -f "$here/../../cli/xperf")}
fail() { echo "FAIL: $*"; cat "$tmp/err"; exit 1; }
start_mock
# Names of this run only: other tests run agent.py too, and another run of this test may
# trace at the same time.
short=magent$$
cp /bin/true "$tmp/$short"
cp "$here/agent.py" "$tmp/metrics_agent.py"
printf 'exe %s\ncmdline *%s/metrics_agent.py*\n' "$short" "$tmp" > "$tmp/rules"
"$xperf" daemon -o "$tmp/out" --node m --rules "$tmp/rules" --metrics-listen 127.0.0.1:0 \
	--metrics-interval 1 2> "$tmp/err" &
d=$!
pids+=($d)
for _ in $(seq 200); do grep -q ready "$tmp/err" && break; sleep 0.05; done
mport=$(sed -n 's/.*metrics on port \([0-9]*\).*/\1/p' "$tmp/err")
[ -n "$mport" ] || fail "no metrics port"
mkdir "$tmp/scrapes"
(
	i=0
	while [ ! -e "$tmp/stop" ]; do
		curl -sf "http://127.0.0.1:$mport/metrics" > "$tmp/scrapes/scrape_$i.prom"
		promtool check metrics < "$tmp/scrapes/scrape_$i.prom" ||
			{ echo "FAIL: promtool on scrape $i"; exit 1; }
		i=$((i + 1))
		sleep 0.4
	done
) &
scraper=$!
agent() { CALLS=$1 "$py" "$tmp/metrics_agent.py" "$port" "$tmp/mock/ca.pem" > /dev/null; }
agents=0 calls=0
agent 2; agents=$((agents + 1)); calls=$((calls + 2))
"$tmp/$short"; "$tmp/$short"; agents=$((agents + 2))
sleep 1.5 # a fleet rescan sees the first session
first=$(ls -d "$tmp"/out/m/python3-*)
rm -rf "$first" # as retention would: its turns stay counted
printf '# reloaded\nexe %s\ncmdline *%s/metrics_agent.py*\n' "$short" "$tmp" > "$tmp/rules"
kill -HUP $d
for _ in $(seq 100); do grep -q 'rules loaded' "$tmp/err" && break; sleep 0.05; done
agent 1; agents=$((agents + 1)); calls=$((calls + 1))
"$tmp/$short"; agents=$((agents + 1))
agent 3; agents=$((agents + 1)); calls=$((calls + 3))
sleep 2.5 # the last session's end and a fleet rescan after it
touch "$tmp/stop"
wait $scraper || fail "a scrape failed"
kill -TERM $d
wait $d
# `xperf fleet serve` over the same node directory, from a copy of the daemon's ledger.
cp "$tmp/out/m/.xperf-fleet-state.json" "$tmp/state.json"
"$xperf_cli" fleet serve "$tmp/out/m" --listen 127.0.0.1:0 --interval 3600 \
	--state "$tmp/state.json" 2> "$tmp/serve.err" &
s=$!
pids+=($s)
for _ in $(seq 100); do grep -q 'listening on' "$tmp/serve.err" && break; sleep 0.05; done
sport=$(sed -n 's/.*listening on .*:\([0-9]*\) .*/\1/p' "$tmp/serve.err")
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$sport/metrics" > "$tmp/fleet.prom" && break
	sleep 0.1; done
kill -TERM $s
python3 "$here/check_metrics.py" "$tmp/scrapes" "$tmp/fleet.prom" --agents $agents --turns $calls
