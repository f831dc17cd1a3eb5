#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run.sh [N] [REPEATS] - added cost per SSL_write of 100 bytes, side by side
# in one run: bare; bpftrace with a counting uprobe on SSL_write; bpftrace
# with uprobe + uretprobe; xperf's TLS tier tracing the writer (entry +
# return probe, copy, ring record, consumer running); xperf loaded but the
# writer not traced (the in-kernel filter's cost for everyone else); xperf
# with --no-plaintext (the socket tier alone); the traced row again with the
# socket tier on the raw syscall fallback (-S syscalls); and the same two
# xperf rows with uprobes per traced process (per_pid). Then
# the same writes through Go's crypto/tls (go_writer.go, no symbols used):
# bare, and traced with (*Conn).Write located from .gopclntab (entry
# uprobe + uprobes on its RETs), and through Bun's BoringSSL (bun_writer.js,
# `bun build --compile`: SSL_write located by analysis, uprobe + uretprobe)
# and through rustls (rustls_writer.rs, stripped, from Debian's crates by
# tests/tls/rust_client.sh: send_appdata_encrypt located by analysis,
# uprobe + uretprobe); their ratios are to go_bare, bun_bare, rustls_bare.
# Configurations alternate within each repeat; prints medians, min-max and
# the ratio to bare. Then one traced run with kernel.bpf_stats_enabled=1:
# the time inside each BPF program per run (what is ours, apart from the
# uprobe traps). Run as root from the repository root.
set -euo pipefail
N=${1:-20000}
R=${2:-5}
cd "$(dirname "$0")/../.."
bazel build -c opt //bench/tls:ssl_bench //tests/tls:tlscap >/dev/null 2>&1
bench=$(readlink -f bazel-bin/bench/tls/ssl_bench)
tlscap=$(readlink -f bazel-bin/tests/tls/tlscap)
. bench/tls/sink.sh
. bench/bpf_progs.sh
# The writer maps private copies of libssl and libcrypto (other inodes): uprobes
# other sessions on this machine put on the system libssl (every mapper traps)
# would otherwise tax the bare rows too.
mkdir "$tmp/lib"
for l in $(ldd "$bench" | awk '/libssl|libcrypto/ {print $3}'); do cp "$l" "$tmp/lib/"; done
export LD_LIBRARY_PATH=$tmp/lib
lib=$(ldd "$bench" | awk '/libssl/ {print $3}')
(cd "$tmp" && cp "$OLDPWD/bench/tls/go_writer.go" . &&
	GOCACHE=$tmp/gocache GO111MODULE=off go build -ldflags='-s -w' -o go_writer go_writer.go)
gow=$tmp/go_writer
(cd "$tmp" && "$OLDPWD/third_party/npm/node_modules/bun/bin/bun.exe" build --compile \
	"$OLDPWD/bench/tls/bun_writer.js" --outfile bun_writer > /dev/null)
bunw=$tmp/bun_writer
rustw=$(tests/tls/rust_client.sh rustls_writer)

# Run "$@" (a bpftrace script or nothing) in the background, then time the writer.
with_bpftrace() {
	bpftrace -e "$1" > "$tmp/bt.log" 2>&1 &
	local bt=$!
	for _ in $(seq 100); do grep -q Attaching "$tmp/bt.log" 2>/dev/null && break; sleep 0.1; done
	sleep 0.5
	"$bench" "$port" "$N"
	kill -INT $bt; wait $bt 2>/dev/null || true
}

# xperf traces another process that maps the writer's libssl (probed per library,
# or per process with -P), while the writer runs untraced.
untraced() {
	"$tlscap" -o "$tmp/cap" "$@" -- python3 -c "import ctypes, time
ctypes.CDLL('$lib'); time.sleep(3)" 2>/dev/null &
	local t=$!
	sleep 1
	"$bench" "$port" "$N"
	wait $t || true
}

# Other sessions on this machine may load the same probes (xperf-bpf tests):
# wait until none is loaded before each measurement, so rows stay clean.
quiet() { quiet_probes "ssl_[a-z_]*|sys_enter|sys_exit|sock_send|sock_recv" TLS/syscall; }

declare -A res
names=(bare bpftrace_uprobe bpftrace_uprobe_uretprobe xperf_traced xperf_traced_syscalls
       xperf_untraced xperf_per_pid_traced xperf_per_pid_untraced xperf_sock_only go_bare
       go_xperf_traced bun_bare bun_xperf_traced rustls_bare rustls_xperf_traced)
mkdir -p "$tmp/cap"
for r in $(seq "$R"); do
	quiet
	res[bare]+="$("$bench" "$port" "$N"),"
	quiet
	res[bpftrace_uprobe]+="$(with_bpftrace "uprobe:$lib:SSL_write { @n = count(); }"),"
	res[bpftrace_uprobe_uretprobe]+="$(with_bpftrace "uprobe:$lib:SSL_write { @n = count(); }
		uretprobe:$lib:SSL_write { @r = count(); }"),"
	quiet
	res[xperf_traced]+="$("$tlscap" -o "$tmp/cap" -- "$bench" "$port" "$N" 2>/dev/null),"
	quiet
	res[xperf_traced_syscalls]+="$("$tlscap" -S syscalls -o "$tmp/cap" -- "$bench" "$port" "$N" \
		2>/dev/null),"
	quiet
	res[xperf_untraced]+="$(untraced),"
	quiet
	res[xperf_per_pid_traced]+="$("$tlscap" -P -o "$tmp/cap" -- "$bench" "$port" "$N" 2>/dev/null),"
	quiet
	res[xperf_per_pid_untraced]+="$(untraced -P),"
	quiet
	res[xperf_sock_only]+="$("$tlscap" -n -o "$tmp/cap" -- "$bench" "$port" "$N" 2>/dev/null),"
	quiet
	res[go_bare]+="$("$gow" "$port" "$N"),"
	quiet
	res[go_xperf_traced]+="$(XPERF_CACHE_DIR=$tmp/locate "$tlscap" -o "$tmp/cap" -- "$gow" "$port" "$N" \
		2>/dev/null),"
	quiet
	res[bun_bare]+="$("$bunw" "$port" "$N"),"
	quiet
	res[bun_xperf_traced]+="$(XPERF_CACHE_DIR=$tmp/locate "$tlscap" -o "$tmp/cap" -- "$bunw" "$port" \
		"$N" 2>/dev/null),"
	quiet
	res[rustls_bare]+="$("$rustw" "$port" "$tmp/certs/ca.pem" "$N"),"
	quiet
	res[rustls_xperf_traced]+="$(XPERF_CACHE_DIR=$tmp/locate "$tlscap" -o "$tmp/cap" -- "$rustw" \
		"$port" "$tmp/certs/ca.pem" "$N" 2>/dev/null),"
done
python3 - "$N" "$R" "${names[@]}" <<PY
import statistics, sys
n, r, names = sys.argv[1], sys.argv[2], sys.argv[3:]
res = {$(for k in "${names[@]}"; do printf '"%s": "%s",' "$k" "${res[$k]}"; done)}
runs = {k: [tuple(map(float, x.split())) for x in v.split(",") if x.strip()]
        for k, v in res.items()}
cpu = {k: sorted(c for c, _ in v) for k, v in runs.items()}
wall = {k: statistics.median(w for _, w in v) for k, v in runs.items()}
print("SSL_write of 100 bytes, %s writes x %s repeats: CPU ns per call of the writer" % (n, r))
print("| configuration | median CPU ns | min-max | added ns | ratio | median wall ns |")
print("|---|---|---|---|---|---|")
for k in names:
    base = k.split("_")[0] + "_bare" if k.split("_")[0] in ("go", "bun", "rustls") else "bare"
    bare = statistics.median(cpu[base])
    m = statistics.median(cpu[k])
    print("| %s | %.0f | %.0f-%.0f | %+.0f | %.2f | %.0f |"
          % (k, m, cpu[k][0], cpu[k][-1], m - bare, m / bare, wall[k]))
PY

# Time inside the BPF programs themselves, per run (bpf_stats).
old=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -qw kernel.bpf_stats_enabled=1
# The writer on the system libssl here: tlscap probes it (standard directory) before
# the writer starts, and only our programs' statistics are read back (other
# sessions' uprobes on that file trap the writer but do not run our programs).
rm -f "$tmp/stats.done"
env -u LD_LIBRARY_PATH "$tlscap" -o "$tmp/cap" -- sh -c "'$bench' $port $N >/dev/null;
	touch '$tmp/stats.done'; sleep 2" 2>/dev/null &
t=$!
until [ -e "$tmp/stats.done" ] || ! kill -0 $t 2>/dev/null; do sleep 0.2; done
echo
echo "BPF program time, $N traced SSL_writes (kernel.bpf_stats;" \
	"sock_* count every socket call on the machine)"
echo "| program | runs | ns per run |"
echo "|---|---|---|"
for id in $(prog_ids $t); do
	bpftool prog show id "$id"
done | awk '/name (ssl_write_enter|ssl_rw_exit|sock_send|sock_recv) / {
	n = ""; t = 0; c = 0
	for (i = 1; i <= NF; i++) {
		if ($i == "name") n = $(i + 1)
		if ($i == "run_time_ns") t = $(i + 1)
		if ($i == "run_cnt") c = $(i + 1)
	}
	if (c) printf "| %s | %d | %.0f |\n", n, c, t / c }'
sysctl -qw kernel.bpf_stats_enabled="$old"
wait $t || true
