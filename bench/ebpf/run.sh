#!/usr/bin/env bash
# bench/ebpf/run.sh - what xperf-bpf's process + scheduler tracing costs the
# traced program, and the event rate its consumer sustains before drops.
#
#   bench/ebpf/run.sh [REPS]     (root; builds what it needs with Bazel, -c opt)
#
# Table 1: the workload measures itself (no start-up or BPF load time):
# wall time of its loop and CPU time of its processes (getrusage self +
# children). Modes run interleaved (bare, traced, totals, ... REPS times)
# so that load from other jobs hits each alike; medians, min-max, ratios
# of medians. CPU time is the steadier measure on a shared machine.
#   pingpong: 2 processes exchange a byte over pipes; every step is a context
#             switch: the worst case for the scheduler probes;
#   syscalls: write(2) of 1 byte to /dev/null in a loop: no switches;
#   mmaps:    mmap(PROT_EXEC) + munmap of a page of a file in a loop: what the
#             map watch (bpf/map_watch.bpf.h, in the socket tier's sys_exit)
#             adds.
# Modes: bare; traced (totals + one record per state change, the default);
# totals (--no-sched-events: in-kernel totals only); other (xperf-bpf traces
# an idle process meanwhile: the filter's cost to everyone else; these runs
# are paired with extra bare runs of their own, in the same medians);
# other_sock (the same with --no-plaintext: no TLS uprobes, no map watch:
# other minus other_sock is the map watch's cost to everyone else).
#
# Table 2: the in-kernel cost of each program, from the kernel's own BPF
# run-time statistics (kernel.bpf_stats_enabled is turned on for this table
# only and restored): ns per call while xperf-bpf traces the pingpong
# ("traced": the filter matches; "totals": the same with --no-sched-events)
# and while it traces an idle process during
# a bare pingpong ("other": every call is a filter miss). Unlike table 1,
# this does not move with the load of other jobs.
#
# Table 3: the pingpong paced at increasing rates for 2 s, traced with a
# 1 MiB ring, by two consumers: count-only (`record -o DIR`: records are
# counted, capture.json written at the end) and `record --raw` (every record
# becomes a JSON line). Offered = delivered + lost, per second of the run.
set -euo pipefail
cd "$(dirname "$0")/../.."
REPS=${1:-7}
bazel build -c opt //cli:xperf-bpf //userspace/testing:workload >/dev/null 2>&1
XB=$PWD/bazel-bin/cli/xperf-bpf
WL=$PWD/bazel-bin/userspace/testing/workload
T=$(mktemp -d)
sleeper=
stats_was=$(sysctl -n kernel.bpf_stats_enabled)
trap '[ -n "$sleeper" ] && kill $sleeper 2>/dev/null; sysctl -qw kernel.bpf_stats_enabled=$stats_was;
      rm -rf "$T"' EXIT

field() {	# field NAME < JSON line
	python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())[sys.argv[1]])' "$1"
}

run_mode() {	# run_mode MODE WORKLOAD-ARGS... -> "wall_ns cpu_ns"
	local mode=$1 line
	shift
	case $mode in
	bare | other) line=$("$WL" "$@") ;;
	traced) line=$("$XB" record -q -- "$WL" "$@") ;;
	totals) line=$("$XB" record -q --no-sched-events -- "$WL" "$@") ;;
	esac
	echo "$(field ns <<< "$line") $(field cpu_ns <<< "$line")"
}

for _ in $(seq "$REPS"); do
	for mode in bare traced totals; do
		echo "pingpong(20000) $mode $(run_mode $mode pingpong 20000)" >> "$T/t1"
		echo "syscalls(500000) $mode $(run_mode $mode syscalls 500000)" >> "$T/t1"
		echo "mmaps(100000) $mode $(run_mode $mode mmaps 100000)" >> "$T/t1"
	done
done
# other: each run next to a bare one, with xperf-bpf attached to an idle
# process during the "other" run only.
sleep 1000 &
sleeper=$!
run_other() {	# run_other MODE NAME WORKLOAD-ARGS... [-- XPERF-OPTS...]
	local mode=$1 name=$2 xb
	shift 2
	local wl=() opts=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do wl+=("$1"); shift; done
	[ $# -gt 0 ] && shift && opts=("$@")
	"$XB" attach -q "${opts[@]}" --pid $sleeper -o "$T/attached" &
	xb=$!
	until [ -e /proc/$xb/fdinfo ] && grep -qs prog_id /proc/$xb/fdinfo/*; do sleep 0.05; done
	sleep 0.2
	echo "$name $mode $(run_mode other "${wl[@]}")" >> "$T/t1"
	kill -INT $xb
	wait $xb || true
}

for _ in $(seq "$REPS"); do
	for w in "pingpong(20000) pingpong 20000" "syscalls(500000) syscalls 500000" \
		"mmaps(100000) mmaps 100000"; do
		set -- $w
		echo "$1 bare $(run_mode bare "$2" "$3")" >> "$T/t1"
		run_other other "$1" "$2" "$3"
		echo "$1 bare $(run_mode bare "$2" "$3")" >> "$T/t1"
		run_other other_sock "$1" "$2" "$3" -- --no-plaintext
	done
done

prog_ids() {	# the BPF programs process $1 holds, once their number is steady
	local now last=-1
	while :; do
		now=$(cat /proc/"$1"/fdinfo/* 2>/dev/null | sed -n 's/^prog_id:\s*//p' | sort -u || true)
		[ -n "$now" ] && [ "$now" = "$last" ] && break
		last=$now
		sleep 0.5
	done
	echo "$now"
}

prog_stats() {	# prog_stats MODE IDS...: "mode name calls ns" per program
	local mode=$1 id
	shift
	for id in "$@"; do
		bpftool prog show id "$id" -j 2>/dev/null | python3 -c '
import json, sys
p = json.load(sys.stdin)
if "name" in p:  # gone meanwhile: bpftool answers {"error": ...}
    print(sys.argv[1], p["name"], p.get("run_cnt", 0), p.get("run_time_ns", 0))' "$mode" || true
	done
}

sysctl -qw kernel.bpf_stats_enabled=1
for mode in traced totals; do
	opt=()
	[ $mode = totals ] && opt=(--no-sched-events)
	rm -f "$T/pp.out"
	"$XB" record -q "${opt[@]}" -- sh -c "\"$WL\" pingpong 20000 > \"$T/pp.out\"; sleep 5" &
	xb=$!
	until [ -s "$T/pp.out" ]; do sleep 0.05; done
	prog_stats $mode $(prog_ids $xb) >> "$T/t3"
	wait $xb
done
"$XB" attach -q --pid $sleeper &
xb=$!
ids=$(prog_ids $xb)
"$WL" pingpong 20000 > /dev/null
prog_stats other $ids >> "$T/t3"
kill -INT $xb
wait $xb || true
sysctl -qw kernel.bpf_stats_enabled="$stats_was"

for consumer in count raw; do
	for rate in 5000 10000 20000 40000 0; do
		n=$((rate ? rate * 2 : 80000))
		out=(-o "$T/o")
		[ $consumer = raw ] && out=(--raw "$T/raw.jsonl" -o "$T/o")
		XPERF_SESSION_ID=bench "$XB" record -q --ring-size 1048576 "${out[@]}" -- \
			"$WL" pingpong $n $rate > "$T/out"
		python3 - "$T/o/bench/capture.json" "$consumer" "$rate" "$(field ns < "$T/out")" \
			>> "$T/t2" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
print(sys.argv[2], sys.argv[3], sum(c["records"].values()), c["dropped"], int(sys.argv[4]) / 1e9)
PY
	done
done

python3 - "$T/t1" "$T/t2" "$REPS" "$T/t3" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, mode, wall, cpu = line.split()
    rows.setdefault(name, {}).setdefault(mode, []).append((int(wall) / 1e6, int(cpu) / 1e6))
print("Table 1: cost to the traced program (median of %s interleaved runs)" % sys.argv[3])
print()
print("| workload | mode | wall ms | wall min-max | wall ratio | CPU ms | CPU min-max | CPU ratio |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
for name, modes in rows.items():
    bw = statistics.median(w for w, _ in modes["bare"])
    bc = statistics.median(c for _, c in modes["bare"])
    for mode in ("bare", "traced", "totals", "other", "other_sock"):
        v = modes.get(mode)
        if not v:
            continue
        w = [x for x, _ in v]
        c = [y for _, y in v]
        mw, mc = statistics.median(w), statistics.median(c)
        print("| %s | %s | %.1f | %.1f-%.1f | %.2f | %.1f | %.1f-%.1f | %.2f |" % (
            name, mode, mw, min(w), max(w), mw / bw, mc, min(c), max(c), mc / bc))
print()
print("Table 2: in-kernel cost per program call (kernel BPF run-time statistics, pingpong)")
print()
print("| program | traced: calls | traced: ns/call | totals: calls | totals: ns/call "
      "| other: calls | other: ns/call |")
print("| --- | --- | --- | --- | --- | --- | --- |")
progs = {}
for line in open(sys.argv[4]):
    mode, name, calls, ns = line.split()
    progs.setdefault(name, {})[mode] = (int(calls), int(ns))
for name, m in sorted(progs.items()):
    cells = []
    for mode in ("traced", "totals", "other"):
        calls, ns = m.get(mode, (0, 0))
        cells += [str(calls), "%.0f" % (ns / calls) if calls else "-"]
    print("| %s | %s |" % (name, " | ".join(cells)))
print()
print("Table 3: consumer throughput (1 MiB ring, paced pingpong, 2 s)")
print()
print("| consumer | round trips/s asked | records/s offered | records/s delivered | lost | lost % |")
print("| --- | --- | --- | --- | --- | --- |")
for line in open(sys.argv[2]):
    consumer, rate, got, lost, secs = line.split()
    got, lost, secs = int(got), int(lost), float(secs)
    total = got + lost
    print("| %s | %s | %.0f | %.0f | %d | %.1f |" % (
        consumer, rate if rate != "0" else "max", total / secs, got / secs, lost,
        100.0 * lost / total if total else 0))
PY
