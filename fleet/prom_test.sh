#!/usr/bin/env bash
# prom_test.sh XPERF - `xperf fleet serve` scraped by a real Prometheus server (Debian's
# prometheus 2.42) on loopback: every sample Prometheus stored (queried through its HTTP
# API) must equal the ground truth computed from the fixture traces (check_fleet.py),
# including a node whose directory name holds a quote and a backslash (label escaping);
# the target must be up; HTTP routes, methods and content type are right; a busy port
# is an error; SIGTERM must stop the exporter cleanly. Everything is bounded
# in time; both servers are stopped on exit.
set -euo pipefail
xperf=$(readlink -f "$1")
tmp=${TEST_TMPDIR:-$(mktemp -d)}
command -v prometheus >/dev/null || { echo "FAIL: prometheus not installed (setup.sh)"; exit 1; }
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

# The fixture tree plus a node with an odd name; its ground truth comes from its files.
tree=$tmp/tree
odd='odd"node\x'
cp -r fleet/testdata/fleet "$tree"
mkdir -p "$tree/$odd"
cp -r "$tree/gpu-node-a/sess-a1" "$tree/$odd/"
python3 - "$tree/$odd/sess-a1" "$odd" fleet/testdata/expected.json >"$tmp/expected.json" <<'EOF'
import glob, json, sys
sess, node, exp = sys.argv[1], sys.argv[2], json.load(open(sys.argv[3]))
turns = [json.load(open(p)) for p in sorted(glob.glob(sess + "/turn_*.json"))]
exp["series"][node + "/" + turns[0]["agent"]["name"]] = {
    "sessions": 1, "turns": len(turns), "incomplete": sum(not t["complete"] for t in turns),
    "wall_ns": sum(t["end_ns"] - t["start_ns"] for t in turns)}
exp["nodes"][node] = {"dropped": sum(t["data_quality"]["dropped_events"] for t in turns),
                      "invalid_files": 0}
json.dump(exp, sys.stdout)
EOF
python3 fleet/check_fleet.py expect "$xperf" "$tree" "$tmp/expected.json" >"$tmp/metrics.json"

# The exporter picks a free port itself (port 0) and logs it: no race with other jobs.
"$xperf" fleet serve "$tree" --listen 127.0.0.1:0 --interval 1 2>"$tmp/serve.log" &
serve=$!
pids+=("$serve")
port=
for _ in $(seq 1 300); do # up to 30 s: a loaded machine starts it late
	port=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\) .*/\1/p' "$tmp/serve.log" 2>/dev/null)
	[ -n "$port" ] && break
	sleep 0.1
done
[ -n "$port" ] || { echo "FAIL: exporter did not start: $(cat "$tmp/serve.log")"; exit 1; }
cat >"$tmp/prometheus.yml" <<EOF
global:
  scrape_interval: 2s
  scrape_timeout: 2s
scrape_configs:
  - job_name: xperf
    static_configs:
      - targets: ["127.0.0.1:$port"]
EOF
# Prometheus' port: a free one now; retried if another process takes it first.
for attempt in 1 2 3; do
	pport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])')
	timeout 280 prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
		--web.listen-address="127.0.0.1:$pport" --log.level=warn 2>"$tmp/prometheus.log" &
	prom=$!
	pids+=("$prom")
	for _ in $(seq 1 200); do
		curl -sf "http://127.0.0.1:$pport/-/ready" >/dev/null 2>&1 && break 2
		kill -0 "$prom" 2>/dev/null || break
		sleep 0.3
	done
	kill "$prom" 2>/dev/null || true
	echo "prometheus attempt $attempt failed: $(tail -n 2 "$tmp/prometheus.log")"
done

url=http://127.0.0.1:$pport
ready=0
deadline=$((SECONDS + 180)) # generous: the build machines are shared and often loaded
while ((SECONDS < deadline)); do
	if curl -sf "$url/api/v1/query?query=up%7Bjob%3D%22xperf%22%7D%3D%3D1" 2>/dev/null |
		grep -q '"value"' && curl -sf "$url/api/v1/query?query=xperf_turns_total" |
		grep -q '"value"'; then
		ready=1
		break
	fi
	sleep 0.5
done
if [ "$ready" != 1 ]; then
	echo "FAIL: Prometheus never scraped the exporter"
	tail -n 5 "$tmp/prometheus.log" "$tmp/serve.log"
	exit 1
fi
python3 fleet/check_fleet.py prom "$tmp/metrics.json" "$url" || { echo "FAIL: scraped values"; exit 1; }

# HTTP semantics: content type, routes, methods; a second server on the same port fails.
m=http://127.0.0.1:$port
curl -sfI "$m/metrics" | grep -qi '^content-type: text/plain; version=0.0.4' ||
	{ echo "FAIL: content type of /metrics"; exit 1; }
[ "$(curl -s -o /dev/null -w '%{http_code}' "$m/")" = 200 ] || { echo "FAIL: / not 200"; exit 1; }
[ "$(curl -s -o /dev/null -w '%{http_code}' "$m/x")" = 404 ] || { echo "FAIL: /x not 404"; exit 1; }
curl -s -D - -o /dev/null -X POST "$m/metrics" | grep -qi '^allow: GET, HEAD' ||
	{ echo "FAIL: POST not 405 with Allow"; exit 1; }
rc=0
timeout 10 "$xperf" fleet serve "$tree" --listen "127.0.0.1:$port" 2>"$tmp/busy.log" || rc=$?
if [ "$rc" != 1 ] || ! grep -q "cannot listen on 127.0.0.1:$port" "$tmp/busy.log"; then
	echo "FAIL: a busy port gave exit $rc: $(cat "$tmp/busy.log")"
	exit 1
fi

kill -TERM "$serve"
rc=0
timeout 10 tail --pid="$serve" -f /dev/null || { echo "FAIL: exporter ignored SIGTERM"; exit 1; }
wait "$serve" || rc=$?
[ "$rc" = 0 ] || { echo "FAIL: exporter exited $rc after SIGTERM"; exit 1; }
grep -q "stopped" "$tmp/serve.log" || { echo "FAIL: no clean stop in the log"; exit 1; }
echo "PASS: Prometheus scraped the exporter; values equal the ground truth"
