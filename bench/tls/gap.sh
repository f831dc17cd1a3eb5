#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gap.sh [N] [REPEATS] - where xperf's cost per traced SSL_write goes, against
# bpftrace's uprobe + uretprobe on the same calls (issue #16's target: xperf's
# added CPU per call <= bpftrace's). Root, from anywhere.
#
# Table 1, REPEATS interleaved runs of N SSL_writes of 100 bytes each (the C
# writer on private copies of libssl/libcrypto, the Go sink: run.sh): the
# writer's CPU ns per call, bare; under bpftrace (uprobe + uretprobe, each
# counting); traced by xperf's TLS and socket tiers (tlscap: the same probes
# and programs as `xperf-bpf record`, its consumer writing the capture); and
# traced with the consumer stopped (SIGSTOP 0.2 s into the writes, until they
# end: nothing reads the ring, so what the producers pay for a lagging
# consumer shows, e.g. ring wakeups). With BUILDS="LABEL=/path/to/tlscap ..."
# the traced row is also run with each of those builds (other commits),
# interleaved, as xperf_traced_LABEL: A/B of a change in one run. "vs
# bpftrace" is the row's added ns over bpftrace's added ns; drops are the
# ring's counted losses (summed over the runs).
#
# Table 2: the time inside each BPF program (kernel.bpf_stats_enabled) on the
# traced writer itself, per build: 1 s windows in the middle of long traced
# runs (WINDOWS per build, default 3, interleaved), each program's ns per run
# and ns per SSL_write (its time over the writes of the window), medians, and
# the spread of all programs' ns per SSL_write over the windows; also the
# uprobe links tlscap holds (a doubled link would trap twice). Absolute ns
# grow with the machine's load (a preempted vCPU's time counts): compare
# builds within one run. The "bpftrace" column is bpftrace's counting pair on
# an untraced writer, the same way: what its own programs cost per call, so
# that xperf's added ns minus bpftrace's can be read as the programs' difference
# (the traps are the same two).
set -euo pipefail
N=${1:-50000}
R=${2:-5}
cd "$(dirname "$0")/../.."
bazel build -c opt //bench/tls:ssl_bench //tests/tls:tlscap >/dev/null 2>&1
bench=$(readlink -f bazel-bin/bench/tls/ssl_bench)
tlscap=$(readlink -f bazel-bin/tests/tls/tlscap)
declare -A build=()
for b in ${BUILDS:-}; do build[${b%%=*}]=${b#*=}; done
. bench/tls/sink.sh
. bench/bpf_progs.sh
. bench/tls/writer.sh
mkdir "$tmp/cap"
stats_was=$(sysctl -n kernel.bpf_stats_enabled)
trap 'kill $sink 2>/dev/null || true; sysctl -qw kernel.bpf_stats_enabled=$stats_was;
      rm -rf "$tmp"' EXIT

drops() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["drops"])' \
	"$tmp/cap/summary.json"; }

bpftrace_pair() {
	bpftrace_start
	echo "$("$bench" "$port" "$N") 0"
	stop $bt
}

traced() {	# traced TLSCAP
	local line
	line=$("$1" -o "$tmp/cap" -- "$bench" "$port" "$N" 2>/dev/null)
	echo "$line $(drops)"
}

consumer_stopped() {
	"$tlscap" -o "$tmp/cap" -- "$bench" "$port" "$N" > "$tmp/st.out" 2>/dev/null &
	local t=$! w=
	until w=$(pgrep -x ssl_bench -P $t); do sleep 0.01; done
	sleep 0.2
	kill -STOP $t
	while st=$(ps -o stat= -p "$w") && [[ $st != Z* ]]; do sleep 0.05; done	# tlscap's zombie
	kill -CONT $t
	wait $t || true
	echo "$(cat "$tmp/st.out") $(drops)"
}

rows=(bare bpftrace_pair xperf_traced xperf_consumer_stopped)
for b in "${!build[@]}"; do rows+=("xperf_traced_$b"); done
for _ in $(seq "$R"); do
	for row in "${rows[@]}"; do
		case $row in
		bare) line="$("$bench" "$port" "$N") 0" ;;
		bpftrace_pair) line=$(bpftrace_pair) ;;
		xperf_traced) line=$(traced "$tlscap") ;;
		xperf_consumer_stopped) line=$(consumer_stopped) ;;
		xperf_traced_*) line=$(traced "${build[${row#xperf_traced_}]}") ;;
		esac
		echo "$row $line" >> "$tmp/t1"
	done
done

# Table 2: long traced runs, one per build and repeat (interleaved); bpf_stats
# over a 1 s window of each: "LABEL DELTA-FILE" lines in $tmp/t2.
# TLSCAP "bpftrace": bpftrace's pair on an untraced long writer (its programs' own cost).
window() {	# window TLSCAP LABEL I
	local t ids w
	if [ "$1" = bpftrace ]; then
		bpftrace_start
		"$bench" "$port" $((N * 100)) > /dev/null 2>&1 &
		t=$bt w=$!
	else
		"$1" -o "$tmp/cap" -- "$bench" "$port" $((N * 100)) > /dev/null 2>&1 &
		t=$!
		until w=$(pgrep -x ssl_bench -P $t); do sleep 0.05; done
	fi
	sleep 1
	ids=$(prog_ids $t)
	bpftool link show | awk -v ids=" $(echo $ids) " \
		'$2 == "perf_event" && index(ids, " " $4 " ")' | wc -l > "$tmp/links.$2"
	prog_stats_json $ids > "$tmp/s1.$2.$3"
	sleep 1
	prog_stats_json $ids > "$tmp/s2.$2.$3"
	kill "$w" 2>/dev/null || true
	if [ "$1" = bpftrace ]; then wait "$w" || true; stop $bt; else wait $t || true; fi
	echo "$2 $tmp/s1.$2.$3 $tmp/s2.$2.$3" >> "$tmp/t2"
}
sysctl -qw kernel.bpf_stats_enabled=1
for i in $(seq "${WINDOWS:-3}"); do
	window "$tlscap" this $i
	for b in "${!build[@]}"; do window "${build[$b]}" "$b" $i; done
	window bpftrace bpftrace $i
done
sysctl -qw kernel.bpf_stats_enabled="$stats_was"

python3 - "$tmp" "$N" "$R" <<'PY'
import os, statistics, sys
sys.path.insert(0, "bench")
from bpf_progs import load
tmp, n, r = sys.argv[1:4]
med = statistics.median
runs = {}
for line in open(tmp + "/t1"):
    row, cpu, wall, drops = line.split()
    runs.setdefault(row, []).append((float(cpu), float(wall), int(drops)))
cpu = {k: sorted(c for c, _, _ in v) for k, v in runs.items()}
bare = med(cpu["bare"])
bt_added = med(cpu["bpftrace_pair"]) - bare
print("Table 1: SSL_write of 100 bytes, %s writes x %s interleaved runs: the writer's CPU ns"
      " per call" % (n, r))
print()
print("| configuration | median CPU ns | min-max | added ns | ratio to bare | vs bpftrace "
      "| median wall ns | drops |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
for k, v in runs.items():
    m = med(cpu[k])
    print("| %s | %.0f | %.0f-%.0f | %+.0f | %.2f | %s | %.0f | %d |" % (
        k, m, cpu[k][0], cpu[k][-1], m - bare, m / bare,
        "%.2f" % ((m - bare) / bt_added) if k.startswith("xperf") and bt_added > 0 else "-",
        med(w for _, w, _ in v), sum(d for _, _, d in v)))

# per build: program -> [ns per SSL_write of each window], [ns per run]
per_write, per_run, writes = {}, {}, {}
for line in open(tmp + "/t2"):
    label, f1, f2 = line.split()
    a, b = load(f1), load(f2)
    # SSL_writes of the window: xperf's entry program's runs; bpftrace's programs run once each
    w = max((b[k][0] - a.get(k, (0, 0))[0] for k in b
             if k == "ssl_write_enter" or label == "bpftrace"), default=0)
    if w <= 0:
        continue
    writes.setdefault(label, []).append(w)
    total = 0
    for name in b:
        c = b[name][0] - a.get(name, (0, 0))[0]
        t = b[name][1] - a.get(name, (0, 0))[1]
        if c > 0:
            per_write.setdefault(label, {}).setdefault(name, []).append(t / w)
            per_run.setdefault(label, {}).setdefault(name, []).append(t / c)
            total += t / w
    per_write[label].setdefault("all", []).append(total)
labels = sorted(per_write, key=lambda l: (l != "this", l))
print()
print("Table 2: BPF program time on the traced writer (kernel.bpf_stats, 1 s windows of long"
      " traced runs, %s per build, interleaved): ns per run and ns per SSL_write, medians"
      % min(len(v) for v in writes.values()))
print()
for l in labels:
    held = "bpftrace's pair (perf events, no links)" if l == "bpftrace" else \
        "%s uprobe links held" % open("%s/links.%s" % (tmp, l)).read().strip()
    every = sorted(per_write[l]["all"])
    print("- %s: %s, %.0f SSL_writes per window, all programs %.0f-%.0f ns per SSL_write"
          % (l, held, med(writes[l]), every[0], every[-1]))
print()
print("| program | " + " | ".join("%s ns/run | %s ns/SSL_write" % (l, l) for l in labels) + " |")
print("| --- |" + " --- | --- |" * len(labels))
names = sorted({k for l in labels for k in per_write[l]}, key=lambda k: (k == "all", k))
for name in names:
    cells = []
    for l in labels:
        pr = per_run[l].get(name)
        pw = per_write[l].get(name)
        cells += ["%.0f" % med(pr) if pr else "-", "%.0f" % med(pw) if pw else "-"]
    print("| %s | %s |" % (name, " | ".join(cells)))
PY
