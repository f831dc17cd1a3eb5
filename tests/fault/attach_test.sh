#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# attach_test.sh [N] - N (default 12) SIGKILLs of xperf-bpf while it plants its
# TLS uprobes: `attach` to one of 600 bystanders (sleep, LD_PRELOAD) that map the
# test's private libssl, killed once it is seen reading a libssl or holding K of
# its uprobe links, K random in the first half (kill_at_attach.py). A uprobe is registered by perf_event_open(), which plants
# its int3 in every process mapping the file (the system libssl: most of the
# machine; the private one: the 600), in the calling task; once that task has a
# SIGKILL pending its page walks fail, the kernel undoes the registration with
# the same walk, which fails too, and leaks the uprobe with its int3 left
# ("uprobe: xperf-bpf:TID failed to unregister, leaking uprobe"). The tracer has
# the events opened by a helper process no SIGKILL of it reaches
# (bpf/uprobe_attach.h). After each: exit 137; no such line naming a thread of
# the killed run; within 30 s no process holds a uprobe on the private library
# (bpftool perf); no program or link the run held left; no int3 in any
# bystander's SSL_write or SSL_read. FAULT_SEED replays a run.
source "$(dirname "$(realpath "$0")")/lib.sh"
N=${1:-12}
B=${FAULT_BYSTANDERS:-600}
seed=${FAULT_SEED:-$RANDOM}
echo "seed $seed (FAULT_SEED=$seed replays this run)"
RANDOM=$seed
mkdir -p "$T/lib"
cp /lib/x86_64-linux-gnu/libssl.so.3 "$T/lib/"
for _ in $(seq $B); do # small processes mapping the library: each uprobe is planted in all
	LD_PRELOAD=$T/lib/libssl.so.3 sleep 1000000 &
	PIDS+=($!)
done
for _ in $(seq 100); do
	[ "$(grep -lF "$T/lib/libssl.so.3" /proc/"${PIDS[-1]}"/maps 2> /dev/null)" ] && break
	sleep 0.1
done
target=${PIDS[0]}
# a run left alone: how many uprobe links a whole attach makes
"$XB" attach --pid "$target" -q -o "$T/out" 2> "$T/whole.err" &
xb=$!
all=0
for _ in $(seq 100); do
	n=$(python3 "$HERE/kill_at_attach.py" $xb)
	[ "$n" -gt 0 ] && [ "$n" = "$all" ] && break
	all=$n
	sleep 0.3
done
kill -INT $xb
wait $xb || fail "the whole run: $(cat "$T/whole.err")"
[ "$all" -gt 0 ] || fail "no uprobe link in the whole run"
hit=0
for i in $(seq "$N"); do
	sid=attach-$i
	since=$(boot_s)
	XPERF_SESSION_ID=$sid "$XB" attach --pid "$target" -q -o "$T/out" 2> "$T/$sid.err" &
	xb=$!
	at=$((RANDOM % (all / 2 + 1)))
	read -r left tids < <(python3 "$HERE/kill_at_attach.py" $xb $at) ||
		fail "$sid: no libssl read nor uprobe within 30 s: $(cat "$T/$sid.err")"
	progs=$(ids $xb prog_id)
	links=$(ids $xb link_id)
	rc=0
	wait $xb || rc=$?
	[ $rc = 137 ] || fail "$sid: exit $rc, not 137"
	echo -n "$sid: SIGKILL at $at links ($left of $all uprobes in): "
	released "$sid"
	echo -n "; "
	unleaked "$sid" "$since" "$tids"
	gone "$progs" "$links"
	python3 "$HERE/int3.py" "$T/lib/libssl.so.3" "${PIDS[@]}" > "$T/int3"
	[ -s "$T/int3" ] && fail "$sid: int3 left in bystanders: $(tr '\n' ' ' < "$T/int3")"
	echo "no int3 in $B bystanders"
	[ "$left" -lt "$all" ] && hit=$((hit + 1)) # killed before the last was in
done
[ "$hit" -ge $((N / 2)) ] || fail "only $hit of $N kills landed inside the attach"
echo "PASS: $N SIGKILLs, $hit of them inside the attach, no int3 left in $B bystanders"
