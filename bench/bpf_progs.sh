# shellcheck shell=bash
# bpf_progs.sh - sourced by the benchmarks that measure BPF programs
# (bench/ebpf, bench/tls; from the repository root): which programs a process
# holds, once they are steady, their run-time statistics for bpf_progs.py, and
# a wait for other sessions' probes to go.

# prog_ids PID: the ids of the BPF programs PID holds, one a line
prog_ids() {
	cat /proc/"$1"/fdinfo/* 2>/dev/null | sed -n 's/^prog_id:\s*//p' | sort -u || true
}

# steady_prog_ids PID SECONDS: prog_ids PID once they stayed the same for SECONDS:
# xperf-bpf loads and attaches for seconds, and enabling a tracepoint or a uprobe
# interrupts every CPU, which a workload overlapping it would pay (sched_floor.sh
# measured it)
steady_prog_ids() {
	local now last=-1
	while :; do
		now=$(prog_ids "$1")
		[ -n "$now" ] && [ "$now" = "$last" ] && break
		last=$now
		sleep "$2"
	done
	echo "$now"
}

# prog_stats_json IDS...: bpftool's JSON of each program, one a line (bpf_progs.py: load)
prog_stats_json() {
	local id
	for id in "$@"; do bpftool prog show id "$id" -j; echo; done
}

# quiet_probes REGEX WHAT: other sessions on this machine may load probes of their own
# (xperf-bpf tests): wait, 60 s at most, until no program named REGEX is loaded, so that
# bare rows stay bare
quiet_probes() {
	for _ in $(seq 300); do
		bpftool prog show | grep -qE "name ($1) " || return 0
		sleep 0.2
	done
	echo "$(basename "$0"): foreign $2 probes stay loaded; results are not clean" >&2
}
