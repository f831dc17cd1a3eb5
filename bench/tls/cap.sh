#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# cap.sh [N] [REPEATS] - what the per-call payload cap (xperf-bpf --payload-cap)
# costs for LLM-sized request bodies: N SSL_writes of 400 KiB and of 1 MiB
# (one call each, as node sends a request), paced at 100/s and back to back,
# untraced and under `xperf-bpf record` with caps of 64 KiB, 1 MiB and 4 MiB
# (default 16 MiB ring), alternating within each repeat. Per configuration:
# the writer's CPU ns per call (median, min-max, ratio to untraced), xperf-bpf's
# own CPU (user + system, ms per run), the bytes each call puts in the ring,
# and tls_data records delivered and dropped (capture.json). Run as root from
# the repository root.
set -euo pipefail
N=${1:-300}
R=${2:-3}
cd "$(dirname "$0")/../.."
bazel build -c opt //bench/tls:ssl_bench //cli:xperf-bpf >/dev/null 2>&1
bench=$(readlink -f bazel-bin/bench/tls/ssl_bench)
xb=$(readlink -f bazel-bin/cli/xperf-bpf)
. bench/tls/sink.sh

# One run; prints "writer_cpu_ns xperf_cpu_ms tls_records tls_drops".
run() {	# run SIZE RATE CAP (CAP 0: untraced)
	if [ "$3" = 0 ]; then
		echo "$("$bench" "$port" "$N" "$1" "$2" | cut -d' ' -f1) 0 0 0"
		return
	fi
	rm -rf "$tmp/o"
	XPERF_SESSION_ID=cap /usr/bin/time -f "%U %S" -o "$tmp/time" \
		"$xb" record -q --payload-cap "$3" -o "$tmp/o" -- "$bench" "$port" "$N" "$1" "$2" \
		> "$tmp/out" 2> /dev/null
	python3 - "$tmp/o/cap/capture.json" "$tmp/time" "$(cut -d' ' -f1 "$tmp/out")" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
u, s = map(float, open(sys.argv[2]).read().split()[-2:])
print(sys.argv[3], round((u + s) * 1000), c["records"].get("tls_data", 0), c["drops"].get("tls_data", 0))
PY
}

declare -A res
keys=()
for size in 409600 1048576; do
	for rate in 100 0; do
		for cap in 0 65536 1048576 4194304; do
			keys+=("$size $rate $cap")
		done
	done
done
for r in $(seq "$R"); do
	for k in "${keys[@]}"; do
		res[$k]+="$(run $k);"
	done
done
python3 - "$N" "$R" "${keys[@]}" <<PY
import statistics, sys
n, r, keys = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
res = {$(for k in "${keys[@]}"; do printf '"%s": "%s",' "$k" "${res[$k]}"; done)}
print("%d SSL_writes per run, %s repeats; writer CPU ns per call, xperf-bpf CPU ms per run" % (n, r))
print("| body | rate/s | cap | ring bytes/call | writer CPU ns (min-max) | ratio | xperf-bpf CPU ms | tls_data records | dropped |")
print("|---|---|---|---|---|---|---|---|---|")
for k in keys:
    size, rate, cap = map(int, k.split())
    runs = [tuple(map(float, x.split())) for x in res[k].split(";") if x.strip()]
    w = sorted(x[0] for x in runs)
    bare = statistics.median(float(x.split()[0]) for x in res["%d %d 0" % (size, rate)].split(";") if x.strip())
    med = lambda i: statistics.median(x[i] for x in runs)
    ring = min(size, cap) if cap else 0
    print("| %d KiB | %s | %s | %d | %.0f (%.0f-%.0f) | %.2f | %.0f | %.0f | %.0f |" % (
        size >> 10, rate or "max", ("%d KiB" % (cap >> 10)) if cap else "untraced", ring,
        statistics.median(w), w[0], w[-1], statistics.median(w) / bare, med(1), med(2), med(3)))
PY
