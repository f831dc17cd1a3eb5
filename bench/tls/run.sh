#!/usr/bin/env bash
# run.sh [N] [REPEATS] - added cost per SSL_write of 100 bytes, side by side
# in one run: bare; bpftrace with a counting uprobe on SSL_write; bpftrace
# with uprobe + uretprobe; xperf's TLS tier tracing the writer (entry +
# return probe, copy, ring record, consumer running); xperf loaded but the
# writer not traced (the in-kernel filter's cost for everyone else); xperf
# with --no-plaintext (the socket tier alone: two syscall tracepoints).
# Configurations alternate within each repeat; prints medians, min-max and
# the ratio to bare. Run as root from the repository root.
set -euo pipefail
N=${1:-20000}
R=${2:-5}
cd "$(dirname "$0")/../.."
bazel build -c opt //bench/tls:ssl_bench //tests/tls:tlscap >/dev/null 2>&1
bench=$(readlink -f bazel-bin/bench/tls/ssl_bench)
tlscap=$(readlink -f bazel-bin/tests/tls/tlscap)
lib=$(ldd "$bench" | awk '/libssl/ {print $3}')
tmp=$(mktemp -d)
trap 'kill $sink 2>/dev/null || true; rm -rf "$tmp"' EXIT
tests/tls/certs.sh "$tmp/certs"
(cd "$tmp" && cp "$OLDPWD/bench/tls/sink.go" . && GOCACHE=$tmp/gocache GO111MODULE=off go build -o sink sink.go)
"$tmp/sink" "$tmp/certs/leaf.pem" "$tmp/certs/leaf.key" > "$tmp/port" &
sink=$!
for _ in $(seq 50); do [ -s "$tmp/port" ] && break; sleep 0.1; done
port=$(cat "$tmp/port")

# Run "$@" (a bpftrace script or nothing) in the background, then time the writer.
with_bpftrace() {
	bpftrace -e "$1" > "$tmp/bt.log" 2>&1 &
	local bt=$!
	for _ in $(seq 100); do grep -q Attaching "$tmp/bt.log" 2>/dev/null && break; sleep 0.1; done
	sleep 0.5
	"$bench" "$port" "$N"
	kill -INT $bt; wait $bt 2>/dev/null || true
}

untraced() {
	"$tlscap" -o "$tmp/cap" -- sleep 3 2>/dev/null &
	local t=$!
	sleep 1
	"$bench" "$port" "$N"
	wait $t || true
}

declare -A res
names=(bare bpftrace_uprobe bpftrace_uprobe_uretprobe xperf_traced xperf_untraced xperf_sock_only)
mkdir -p "$tmp/cap"
for r in $(seq "$R"); do
	res[bare]+="$("$bench" "$port" "$N"),"
	res[bpftrace_uprobe]+="$(with_bpftrace "uprobe:$lib:SSL_write { @n = count(); }"),"
	res[bpftrace_uprobe_uretprobe]+="$(with_bpftrace "uprobe:$lib:SSL_write { @n = count(); } uretprobe:$lib:SSL_write { @r = count(); }"),"
	res[xperf_traced]+="$("$tlscap" -o "$tmp/cap" -- "$bench" "$port" "$N" 2>/dev/null),"
	res[xperf_untraced]+="$(untraced),"
	res[xperf_sock_only]+="$("$tlscap" -n -o "$tmp/cap" -- "$bench" "$port" "$N" 2>/dev/null),"
done
python3 - "$N" "$R" "${names[@]}" <<PY
import statistics, sys
n, r, names = sys.argv[1], sys.argv[2], sys.argv[3:]
res = {$(for k in "${names[@]}"; do printf '"%s": "%s",' "$k" "${res[$k]}"; done)}
runs = {k: [tuple(map(float, x.split())) for x in v.split(",") if x.strip()] for k, v in res.items()}
cpu = {k: sorted(c for c, _ in v) for k, v in runs.items()}
wall = {k: statistics.median(w for _, w in v) for k, v in runs.items()}
bare = statistics.median(cpu["bare"])
print("SSL_write of 100 bytes, %s writes x %s repeats: CPU ns per call of the writer" % (n, r))
print("| configuration | median CPU ns | min-max | added ns | ratio | median wall ns |")
print("|---|---|---|---|---|---|")
for k in names:
    m = statistics.median(cpu[k])
    print("| %s | %.0f | %.0f-%.0f | %+.0f | %.2f | %.0f |" % (k, m, cpu[k][0], cpu[k][-1], m - bare, m / bare, wall[k]))
PY
