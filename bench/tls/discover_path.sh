#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# discover_path.sh [N] [REPEATS] - what the daemon's `path` rules inside TLS
# (bpf/discover_path.bpf.h) cost an untraced process: N SSL_writes of 100 bytes
# ('x': no request line) by ssl_bench on the system libssl (the daemon probes it
# at start), bare, under `xperf-bpf daemon` with one `exe` rule that matches
# nothing (no path rule: the write is not read), and with one `path` rule (each
# untraced write's first bytes read and rejected), alternating within each
# repeat. Prints the writer's CPU ns per call (median, min-max) and the time
# inside ssl_write_enter per run (kernel.bpf_stats; it counts every SSL_write on
# the machine through that libssl). XPERF_BPF_BASE: another build (before the
# change) timed the same way, in the same repeats, rows base_*.
# Run as root from the repository root.
set -euo pipefail
N=${1:-20000}
R=${2:-5}
cd "$(dirname "$0")/../.."
bazel build -c opt //bench/tls:ssl_bench //cli:xperf-bpf >/dev/null 2>&1
bench=$(readlink -f bazel-bin/bench/tls/ssl_bench)
xperf=$(readlink -f bazel-bin/cli/xperf-bpf)
base=${XPERF_BPF_BASE:-}
. bench/tls/sink.sh
. bench/bpf_progs.sh
old=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -qw kernel.bpf_stats_enabled=1

# daemon XPERF RULE: the writer untraced under a daemon with that one rule; "CPU wall ns_per_run"
daemon() {
	printf '%s\n' "$2" > "$tmp/rules"
	rm -rf "$tmp/out"
	XPERF_CACHE_DIR=$tmp/locate "$1" daemon -o "$tmp/out" --node bench --rules "$tmp/rules" \
		2> "$tmp/daemon.err" &
	local d=$!
	until grep -q ready "$tmp/daemon.err"; do kill -0 $d; sleep 0.1; done
	echo "$("$bench" "$port" "$N") $(prog_ns $d)"
	kill -TERM $d
	wait $d || true
}

# prog_ns PID: ns per run of PID's ssl_write_enter
prog_ns() {
	for id in $(prog_ids "$1"); do
		bpftool prog show id "$id"
	done | awk '/name ssl_write_enter / {
		for (i = 1; i <= NF; i++) {
			if ($i == "run_time_ns") t = $(i + 1)
			if ($i == "run_cnt") c = $(i + 1)
		}
		printf "%.0f", c ? t / c : 0 }'
}

declare -A res
names=(bare no_path_rule path_rule ${base:+base_no_path_rule base_path_rule})
for _ in $(seq "$R"); do
	res[bare]+="$("$bench" "$port" "$N") 0,"
	res[no_path_rule]+="$(daemon "$xperf" 'exe no-such-agent-xyz'),"
	res[path_rule]+="$(daemon "$xperf" 'path /v1/never'),"
	[ -z "$base" ] && continue
	res[base_no_path_rule]+="$(daemon "$base" 'exe no-such-agent-xyz'),"
	res[base_path_rule]+="$(daemon "$base" 'path /v1/never'),"
done
sysctl -qw kernel.bpf_stats_enabled="$old"
python3 - "$N" "$R" "${names[@]}" <<PY
import statistics, sys
n, r, names = sys.argv[1], sys.argv[2], sys.argv[3:]
res = {$(for k in "${names[@]}"; do printf '"%s": "%s",' "$k" "${res[$k]}"; done)}
runs = {k: [tuple(map(float, x.split())) for x in v.split(",") if x.strip()]
        for k, v in res.items()}
print("untraced SSL_write of 100 bytes, %s writes x %s repeats" % (n, r))
print("| daemon | writer CPU ns median | min-max | added ns | ssl_write_enter ns/run median | min-max |")
print("|---|---|---|---|---|---|")
bare = statistics.median(c for c, _, _ in runs["bare"])
for k in names:
    cpu = sorted(c for c, _, _ in runs[k])
    prog = sorted(p for _, _, p in runs[k])
    m = statistics.median(cpu)
    print("| %s | %.0f | %.0f-%.0f | %+.0f | %.0f | %.0f-%.0f |"
          % (k, m, cpu[0], cpu[-1], m - bare, statistics.median(prog), prog[0], prog[-1]))
PY
