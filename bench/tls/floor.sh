#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# floor.sh [N] [REPS] - what a traced SSL_write can cost at the least, against
# what xperf's costs (issue #16's target: xperf's added CPU per call <=
# bpftrace's uprobe + uretprobe): the writer (ssl_bench, N SSL_writes of 100
# bytes to the Go sink, on private copies of libssl: writer.sh) bare; under
# bpftrace's counting uprobe + uretprobe; under an empty uprobe + uretprobe
# pair of our own (tls_floor.bpf.c, libbpf, per library like xperf's); under
# the least capture pair (capture: the entry keeps the buffer pointer in task
# storage, the return copies the 100 bytes into a fixed-size ring record; a
# consumer drains the ring every 100 ms), and that pair writing records of
# their exact size as xperf must (scratch: built in per-CPU scratch, then
# copied into the ring; dynptr: reserved at that size, the bytes read straight
# in); and traced by xperf (tlscap: the TLS and socket tiers, their consumer).
# REPS rounds (default 7), the modes in a rotating order within each, so that
# other jobs' load hits each alike.
# Table 1: the writer's CPU ns per call (median, min-max), added over bare, and
# that over bpftrace's added; the capture pair's records read (all of them:
# the floor loses none). Table 2: each program's ns per run and all of a
# mode's programs per SSL_write, on the writer itself (kernel.bpf_stats, 1 s
# windows of long runs, WINDOWS per mode, default 3, interleaved; medians).
# Root; builds what it needs (-c opt).
set -euo pipefail
N=${1:-20000}
REPS=${2:-7}
cd "$(dirname "$0")/../.."
bazel build -c opt //bench/tls:ssl_bench //bench/tls:tls_floor_attach //tests/tls:tlscap \
	>/dev/null 2>&1
bench=$(readlink -f bazel-bin/bench/tls/ssl_bench)
floor=$(readlink -f bazel-bin/bench/tls/tls_floor_attach)
tlscap=$(readlink -f bazel-bin/tests/tls/tlscap)
. bench/tls/sink.sh
. bench/bpf_progs.sh
. bench/tls/writer.sh
stats_was=$(sysctl -n kernel.bpf_stats_enabled)
trap 'kill $sink 2>/dev/null || true; sysctl -qw kernel.bpf_stats_enabled=$stats_was;
      rm -rf "$tmp"' EXIT

# start_mode MODE: its programs loaded and attached, their holder's pid in $holder
start_mode() {
	case $1 in
	bpftrace) bpftrace_start; holder=$bt ;;
	empty|capture|scratch|dynptr)
		"$floor" "$1" "$lib" > "$tmp/floor.out" &
		holder=$!
		until grep -q attached "$tmp/floor.out" 2>/dev/null; do
			kill -0 $holder 2>/dev/null || exit 1	# it could not load: said on stderr
			sleep 0.05
		done
		sleep 0.5 ;;
	esac
}

# stop_mode MODE: unloaded; the capture pairs' records read, "-" for the others
stop_mode() {
	stop "$holder"
	case $1 in
	capture|scratch|dynptr) awk '/^records/ {print $2}' "$tmp/floor.out" ;;
	*) echo - ;;
	esac
}

# run MODE: "CPU-NS WALL-NS RECORDS" of one run of N writes
run() {
	case $1 in
	bare) echo "$("$bench" "$port" "$N") -" ;;
	xperf) echo "$("$tlscap" -o "$tmp/cap" -- "$bench" "$port" "$N" 2>/dev/null) -" ;;
	*) start_mode "$1"; local line; line=$("$bench" "$port" "$N"); echo "$line $(stop_mode "$1")" ;;
	esac
}

modes=(bare bpftrace empty capture scratch dynptr xperf)
mkdir "$tmp/cap"
for r in $(seq "$REPS"); do
	for i in "${!modes[@]}"; do
		mode=${modes[$(((r + i) % ${#modes[@]}))]}
		echo "$mode $(run $mode)" >> "$tmp/t1"
	done
done

# window MODE I: bpf_stats over 1 s of a long run of MODE ("MODE FILE1 FILE2" in $tmp/t2)
window() {
	local w
	if [ "$1" = xperf ]; then
		"$tlscap" -o "$tmp/cap" -- "$bench" "$port" $((N * 100)) > /dev/null 2>&1 &
		holder=$!
		until w=$(pgrep -x ssl_bench -P $holder); do sleep 0.05; done
	else
		start_mode "$1"
		"$bench" "$port" $((N * 100)) > /dev/null 2>&1 &
		w=$!
	fi
	sleep 1
	prog_stats_json $(prog_ids $holder) > "$tmp/s1.$1.$2"
	sleep 1
	prog_stats_json $(prog_ids $holder) > "$tmp/s2.$1.$2"
	kill "$w" 2>/dev/null || true
	if [ "$1" = xperf ]; then wait "$holder" || true; else wait "$w" || true; stop_mode "$1" >/dev/null; fi
	echo "$1 $tmp/s1.$1.$2 $tmp/s2.$1.$2" >> "$tmp/t2"
}
sysctl -qw kernel.bpf_stats_enabled=1
for i in $(seq "${WINDOWS:-3}"); do
	for mode in "${modes[@]:1}"; do window $mode "$i"; done
done
sysctl -qw kernel.bpf_stats_enabled="$stats_was"

python3 - "$tmp" "$N" "$REPS" <<'PY'
import statistics, sys
sys.path.insert(0, "bench")
from bpf_progs import load
tmp, n, reps = sys.argv[1:4]
med = statistics.median
modes = ("bare", "bpftrace", "empty", "capture", "scratch", "dynptr", "xperf")
cpu, recs = {}, {}
for line in open(tmp + "/t1"):
    mode, c, _, r = line.split()
    cpu.setdefault(mode, []).append(float(c))
    if r != "-":
        recs.setdefault(mode, []).append(int(r))
bare = med(cpu["bare"])
bt_added = med(cpu["bpftrace"]) - bare
print("Table 1: SSL_write of 100 bytes, %s writes x %s rounds (rotating order): the writer's"
      " CPU ns per call" % (n, reps))
print()
print("| mode | median CPU ns | min-max | added ns | added vs bpftrace's | records read |")
print("| --- | --- | --- | --- | --- | --- |")
for m in modes:
    v = sorted(cpu[m])
    added = med(v) - bare
    print("| %s | %.0f | %.0f-%.0f | %+.0f | %s | %s |" % (
        m, med(v), v[0], v[-1], added,
        "%.2f" % (added / bt_added) if m != "bare" and bt_added > 0 else "-",
        "%d-%d" % (min(recs[m]), max(recs[m])) if m in recs else "-"))

per_run, per_write = {}, {}
for line in open(tmp + "/t2"):
    mode, f1, f2 = line.split()
    a, b = load(f1), load(f2)
    d = {k: (b[k][0] - a.get(k, (0, 0))[0], b[k][1] - a.get(k, (0, 0))[1]) for k in b}
    # the window's SSL_writes: the entry program's runs (bpftrace's two run once each)
    w = max((c for k, (c, _) in d.items() if k.endswith("enter") or mode == "bpftrace"),
            default=0)
    if w <= 0:
        continue
    total = 0
    for k, (c, t) in d.items():
        if c > 0:
            per_run.setdefault(mode, {}).setdefault(k, []).append(t / c)
            total += t / w
    per_write.setdefault(mode, []).append(total)
print()
print("Table 2: BPF program time on the writer (kernel.bpf_stats, 1 s windows of long runs,"
      " medians of %s)" % min(len(v) for v in per_write.values()))
print()
print("| mode | program | ns per run |")
print("| --- | --- | --- |")
for m in modes[1:]:
    for k in sorted(per_run.get(m, {})):
        print("| %s | %s | %.0f |" % (m, k, med(per_run[m][k])))
    v = sorted(per_write.get(m, [0]))
    print("| %s | all, per SSL_write | %.0f (%.0f-%.0f) |" % (m, med(v), v[0], v[-1]))
PY
