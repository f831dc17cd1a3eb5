#!/usr/bin/env bash
# bench/ebpf/run.sh - what xperf-bpf costs the process it traces and every
# other process on the machine, by socket-tier mechanism, and how fast its
# consumer takes records. Results and the targets table: bench/ebpf/README.md.
#
#   bench/ebpf/run.sh [REPS]     (root; builds what it needs with Bazel, -c opt; REPS >= 5)
#
# Table 1: the workload measures itself (no start-up or BPF load time): wall
# time of its loop and CPU time of its processes (getrusage self + children).
# Every mode runs once per repeat, interleaved, so load from other jobs hits
# each alike; medians, min-max, ratios of medians to bare. CPU time is the
# steadier measure on a shared machine.
#   syscalls: write(2) of 1 byte to /dev/null in a loop: no switches, no socket;
#   pingpong: 2 processes exchange a byte over pipes; every step is a context
#             switch: the worst case for the scheduler probes;
#   mmaps:    mmap(PROT_EXEC) + munmap of a page of a file in a loop: what the
#             map watch (bpf/map_watch.bpf.h) adds.
# Modes: bare; traced (`record`, the default: socket tracepoints on this
# kernel); traced_syscalls (`--socket-hooks syscalls`, the raw_syscalls
# fallback); other, other_syscalls (xperf-bpf traces an idle process
# meanwhile, with those hooks: the cost to everyone else; each such run is
# paired with a bare run of its own, in the same medians); other_nowatch
# (`--no-plaintext --no-cuda`: no map watch; other minus other_nowatch is
# its cost to everyone else).
#
# Table 2: the in-kernel cost of each program per call, from the kernel's own
# BPF run-time statistics (kernel.bpf_stats_enabled on for this table only):
# traced (xperf-bpf traces the workload), other and other_syscalls (it
# traces an idle process while the workload runs: every call is a filter
# miss). Unlike table 1, this does not move with the load of other jobs.
#
# Table 3: the consumer, fed by a synthetic producer (flood.bpf.c: 48-byte
# scheduler records written into xperf-bpf's ring through the probes' own
# reserve/submit path) at asked rates for 2 s, REPS runs interleaved:
# `record -o DIR` (records counted, the turn assembler fed, capture.json at
# the end) and `record --raw FILE` (every record a JSON line too). Offered =
# produced per second of the flood, delivered = offered - lost; consumer CPU
# per record from xperf-bpf's /proc/PID/stat across the flood.
set -euo pipefail
cd "$(dirname "$0")/../.."
. bench/bpf_progs.sh
REPS=${1:-5}
bazel build -c opt //cli:xperf-bpf //userspace/testing:workload \
	//bench/ebpf:flood_producer >/dev/null 2>&1
XB=$PWD/bazel-bin/cli/xperf-bpf
WL=$PWD/bazel-bin/userspace/testing/workload
FL=$PWD/bazel-bin/bench/ebpf/flood_producer
T=$(mktemp -d)
sleeper=
stats_was=$(sysctl -n kernel.bpf_stats_enabled)
trap '[ -n "$sleeper" ] && kill $sleeper 2>/dev/null; sysctl -qw kernel.bpf_stats_enabled=$stats_was;
      rm -rf "$T"' EXIT
sleep 100000 &
sleeper=$!

field() {	# field NAME < JSON line
	python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())[sys.argv[1]])' "$1"
}

hooks_of() {	# the xperf-bpf options of a mode
	case $1 in
	*_syscalls) echo --socket-hooks syscalls ;;
	*_nowatch) echo --no-plaintext --no-cuda ;;
	esac
}

run_mode() {	# run_mode MODE WORKLOAD-ARGS... -> "wall_ns cpu_ns"
	local mode=$1 line xb
	shift
	quiet_probes "sys_enter|sys_exit" syscall
	case $mode in
	bare) line=$("$WL" "$@") ;;
	traced*) line=$("$XB" record -q $(hooks_of $mode) -- "$WL" "$@") ;;
	other*)
		"$XB" attach -q $(hooks_of $mode) --pid $sleeper -o "$T/attached" &
		xb=$!
		steady_prog_ids $xb 1 > /dev/null
		line=$("$WL" "$@")
		kill -INT $xb
		wait $xb || true ;;
	esac
	echo "$(field ns <<< "$line") $(field cpu_ns <<< "$line")"
}

WORKLOADS=("syscalls(500000) syscalls 500000" "pingpong(20000) pingpong 20000")
# the mmap loop is no target row of its own (targets.sh sets NO_MMAPS=1: a third less time)
[ -n "${NO_MMAPS:-}" ] || WORKLOADS+=("mmaps(100000) mmaps 100000")
for _ in $(seq "$REPS"); do
	for w in "${WORKLOADS[@]}"; do
		set -- $w
		for mode in bare traced traced_syscalls; do
			echo "$1 $mode $(run_mode $mode "$2" "$3")" >> "$T/t1"
		done
		for mode in other other_syscalls other_nowatch; do
			echo "$1 bare $(run_mode bare "$2" "$3")" >> "$T/t1"
			echo "$1 $mode $(run_mode $mode "$2" "$3")" >> "$T/t1"
		done
	done
done

prog_stats() {	# prog_stats MODE WORKLOAD IDS...: "mode workload name calls ns" per program
	local mode=$1 wl=$2 id
	shift 2
	for id in "$@"; do
		bpftool prog show id "$id" -j 2>/dev/null | python3 -c '
import json, sys
p = json.load(sys.stdin)
if "name" in p and p.get("run_cnt"):  # gone meanwhile: bpftool answers {"error": ...}
    print(sys.argv[1], sys.argv[2], p["name"], p["run_cnt"], p.get("run_time_ns", 0))' \
			"$mode" "$wl" || true
	done
}

sysctl -qw kernel.bpf_stats_enabled=1
for w in "syscalls 500000" "pingpong 20000"; do
	set -- $w
	rm -f "$T/wl.out"
	"$XB" record -q -- sh -c "\"$WL\" $1 $2 > \"$T/wl.out\"; sleep 5" &
	xb=$!
	until [ -s "$T/wl.out" ]; do sleep 0.05; done
	prog_stats traced "$1" $(steady_prog_ids $xb 0.5) >> "$T/t2"
	wait $xb
	for mode in other other_syscalls; do
		"$XB" attach -q $(hooks_of $mode) --pid $sleeper &
		xb=$!
		ids=$(steady_prog_ids $xb 0.5)
		"$WL" "$1" "$2" > /dev/null
		prog_stats $mode "$1" $ids >> "$T/t2"
		kill -INT $xb
		wait $xb || true
	done
done
sysctl -qw kernel.bpf_stats_enabled="$stats_was"

cpu_ticks() { awk '{print $14 + $15}' /proc/"$1"/stat; }
for _ in $(seq "$REPS"); do
	for consumer in count raw; do
		for rate in 250000 500000 1000000 0; do
			out=(-o "$T/o")
			[ $consumer = raw ] && out=(--raw "$T/raw.jsonl" -o "$T/o")
			XPERF_SESSION_ID=flood "$XB" record -q "${out[@]}" -- sleep 5 &
			xb=$!
			until pgrep -x sleep -P $xb > /dev/null; do sleep 0.05; done
			a=$(cpu_ticks $xb)
			line=$("$FL" $xb $rate 2)
			sleep 0.3	# what was pending when the flood stopped
			b=$(cpu_ticks $xb)
			kill $(pgrep -x sleep -P $xb)
			wait $xb || true
			echo "$consumer $rate $(field produced <<< "$line") $(field lost <<< "$line")" \
				"$(field seconds <<< "$line") $((b - a)) $(getconf CLK_TCK)" >> "$T/t3"
		done
	done
done

python3 - "$T/t1" "$T/t2" "$T/t3" "$REPS" <<'PY'
import statistics, sys
t1, t2, t3, reps = sys.argv[1:5]
med = statistics.median

def spread(v, fmt="%.1f"):
    return (fmt + "-" + fmt) % (min(v), max(v))

rows = {}
for line in open(t1):
    name, mode, wall, cpu = line.split()
    rows.setdefault(name, {}).setdefault(mode, []).append((int(wall) / 1e6, int(cpu) / 1e6))
print("Table 1: cost to the traced program and to everyone else (medians of %s interleaved runs)"
      % reps)
print()
print("| workload | mode | wall ms | wall min-max | wall ratio | CPU ms | CPU min-max | CPU ratio |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
for name, modes in rows.items():
    bw = med(w for w, _ in modes["bare"])
    bc = med(c for _, c in modes["bare"])
    for mode in ("bare", "traced", "traced_syscalls", "other", "other_syscalls", "other_nowatch"):
        v = modes.get(mode)
        if not v:
            continue
        w = [x for x, _ in v]
        c = [y for _, y in v]
        print("| %s | %s | %.1f | %s | %.2f | %.1f | %s | %.2f |" % (
            name, mode, med(w), spread(w), med(w) / bw, med(c), spread(c), med(c) / bc))
print()
print("Table 2: in-kernel cost per program call (kernel BPF run-time statistics)")
print()
print("| workload | program | traced: calls | ns/call | other: calls | ns/call "
      "| other_syscalls: calls | ns/call |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
progs = {}
for line in open(t2):
    mode, wl, name, calls, ns = line.split()
    progs.setdefault((wl, name), {})[mode] = (int(calls), int(ns))
for (wl, name), m in sorted(progs.items()):
    cells = []
    for mode in ("traced", "other", "other_syscalls"):
        calls, ns = m.get(mode, (0, 0))
        cells += [str(calls), "%.0f" % (ns / calls) if calls else "-"]
    print("| %s | %s | %s |" % (wl, name, " | ".join(cells)))
print()
print("Table 3: consumer throughput, synthetic producer, 2 s per run (medians of %s interleaved "
      "runs, min-max)" % reps)
print()
print("| consumer | rate asked/s | offered/s | offered min-max | delivered/s | lost (all runs) "
      "| consumer CPU ns/record | min-max |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
cons = {}
for line in open(t3):
    consumer, rate, produced, lost, secs, ticks, hz = line.split()
    produced, lost, secs, ticks, hz = int(produced), int(lost), float(secs), int(ticks), int(hz)
    # produced: records that entered the ring; lost: the ones the full ring refused
    cons.setdefault((consumer, int(rate)), []).append(
        ((produced + lost) / secs, produced / secs, lost, ticks / hz * 1e9 / max(produced, 1)))
for (consumer, rate), v in sorted(cons.items(), key=lambda kv: (kv[0][0], kv[0][1] or 1e12)):
    off = [x[0] for x in v]
    dlv = [x[1] for x in v]
    cpu = [x[3] for x in v]
    print("| %s | %s | %.0f | %s | %.0f | %d | %.0f | %s |" % (
        consumer, rate or "max", med(off), spread(off, "%.0f"), med(dlv), sum(x[2] for x in v),
        med(cpu), spread(cpu, "%.0f")))
PY
