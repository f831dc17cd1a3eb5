# shellcheck shell=bash
# lib.sh - shared by the fault tests (sourced): the mock provider on loopback,
# a private copy of libssl (so only this test's tracer plants uprobes in it,
# whatever else runs on the machine), the agent, and the checks.
set -euo pipefail
run=$TEST_SRCDIR/$TEST_WORKSPACE
XB=$run/cli/xperf-bpf
XPERF=$run/cli/xperf
HERE=$run/tests/fault
T=$(mktemp -d "${TEST_TMPDIR:-/tmp}/fault.XXXXXX")
PIDS=()

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	if mountpoint -q "$T/mnt" 2>/dev/null; then umount "$T/mnt"; fi
}
trap cleanup EXIT

start_mock() {
	python3 "$run/demo/mock_provider.py" --dir "$T/mock" --scenario simple > "$T/mock.out" 2>&1 &
	PIDS+=($!)
	for _ in $(seq 200); do [ -f "$T/mock/port" ] && break; sleep 0.05; done
	[ -f "$T/mock/port" ] || fail "the mock provider did not start"
	mkdir -p "$T/lib"
	cp /lib/x86_64-linux-gnu/libssl.so.3 "$T/lib/"
}

# agent LOG [ARGS...]: the agent command line (run it, or give it to record).
agent_cmd() {
	local log=$1
	shift
	AGENT=(env LD_LIBRARY_PATH="$T/lib" /usr/bin/python3 "$HERE/agent.py" --port "$(cat "$T/mock/port")"
		--ca "$T/mock/ca.pem" --log "$log" "$@")
}

# ids PID KIND: BPF program (prog_id) or link (link_id) ids the process holds.
ids() {
	cat /proc/"$1"/fdinfo/* 2>/dev/null | sed -n "s/^$2:\s*//p" | sort -un | tr '\n' ' ' || true
}

# gone "PROG_IDS" "LINK_IDS": none of them is left in the kernel (within 3 s).
gone() {
	local left
	for _ in $(seq 30); do
		left=$( (bpftool prog show | sed -n 's/^\([0-9]*\): .*/prog \1/p'
			bpftool link show | sed -n 's/^\([0-9]*\): .*/link \1/p') |
			grep -xF -f <(for id in $1; do echo "prog $id"; done; for id in $2; do echo "link $id"; done
				echo "none") || true)
		[ -z "$left" ] && break
		sleep 0.1
	done
	[ -z "$left" ] || fail "left in the kernel: $left"
	for ev in /sys/kernel/tracing/uprobe_events /sys/kernel/debug/tracing/uprobe_events; do
		if [ -r "$ev" ] && grep -q "$T" "$ev"; then fail "uprobe_events still names $T"; fi
	done
}

# released WHAT: no process holds a uprobe on $T/lib (bpftool perf) within 30 s;
# prints "uprobes gone N ms after". A killed tracer's detacher (links.c) may still be
# removing them: seconds on a loaded machine, where each removal waits for the others
# (dup_mmap_sem).
released() {
	local t0
	t0=$(date +%s%N)
	for _ in $(seq 300); do
		bpftool perf show 2> /dev/null | grep -F "$T/lib" > "$T/holders" || true
		[ -s "$T/holders" ] || break
		sleep 0.1
	done
	[ -s "$T/holders" ] && fail "$1: uprobes on $T/lib still held 30 s later: $(cat "$T/holders")"
	echo -n "uprobes gone $(( ($(date +%s%N) - t0) / 1000000 )) ms after"
}

# boot_s: now, in the kernel log's clock (seconds since boot).
boot_s() {
	cut -d' ' -f1 /proc/uptime
}

# unleaked WHAT SINCE "TIDS": the kernel's log has no "failed to unregister, leaking
# uprobe" line since SINCE (boot_s) from one of these threads (a killed tracer's:
# bpf/uprobe_attach.h; thread ids are reused, so older lines do not count).
unleaked() {
	local tid
	for tid in $3; do
		! dmesg 2> /dev/null | awk -v t="$2" -F'[][]' '$2 + 0 >= t' |
			grep -q "uprobe: xperf-bpf:$tid failed to unregister" ||
			fail "$1: the kernel leaked a uprobe of the killed run (thread $tid)"
	done
}

# untrapped WHAT: a fresh process mapping the traced library finds no int3 in its
# SSL_write (no uprobe left on it); else names who holds one (bpftool perf).
untrapped() {
	python3 -c 'import ctypes, sys
f = ctypes.CDLL(sys.argv[1]).SSL_write
sys.exit(ctypes.string_at(ctypes.cast(f, ctypes.c_void_p).value, 1) == b"\xcc")' \
		"$T/lib/libssl.so.3" ||
		fail "$1: int3 left in SSL_write; uprobes on it: $(bpftool perf show 2> /dev/null |
			grep -F "$T/lib" || echo none)"
}
