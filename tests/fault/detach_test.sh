#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# detach_test.sh [N] - N (default 12) SIGKILLs of xperf-bpf while it detaches its
# uprobes: `attach --duration 1` to a long-running agent, killed the moment the
# first of its BPF links is gone (the detach has begun), plus 0-3 ms at random
# (kill_at_detach.py).
# A removal the kernel sees interrupted by a fatal signal is given up and the
# uprobe leaked for good (README.md). After each: exit 137; within 30 s no
# process holds a uprobe on the agent's library (bpftool perf: the killed run's
# detacher child finishes its removals); no program or link the run held left,
# the int3 gone from the agent's SSL_write for its next call
# and never back (its private libssl: only this test plants uprobes there, so a
# leaked one is seen exactly; the kernel's "leaking uprobe" lines are printed,
# not counted: other runs on the machine write them too); the agent unharmed.
# FAULT_SEED replays a run.
source "$(dirname "$(realpath "$0")")/lib.sh"
N=${1:-12}
seed=${FAULT_SEED:-$RANDOM}
echo "seed $seed (FAULT_SEED=$seed replays this run)"
start_mock
agent_cmd "$T/agent.jsonl"
"${AGENT[@]}" > "$T/agent.out" &
agent=$!
PIDS+=("$agent")
RANDOM=$seed
leaks_before=$(dmesg 2> /dev/null | grep -c "leaking uprobe" || true)
hit=0
for i in $(seq "$N"); do
	sid=detach-$i
	XPERF_SESSION_ID=$sid "$XB" attach --pid "$agent" --duration 1 -q -o "$T/out" 2> "$T/$sid.err" &
	xb=$!
	for _ in $(seq 100); do links=$(ids $xb link_id); [ -n "$links" ] && break; sleep 0.05; done
	progs=$(ids $xb prog_id)
	delay=$((RANDOM % 3000))
	read -r n left < <(python3 "$HERE/kill_at_detach.py" $xb $delay || echo "0 0")
	rc=0
	wait $xb || rc=$?
	[ $rc = 137 ] && [ "$left" -gt 0 ] && hit=$((hit + 1))
	echo -n "$sid: SIGKILL ${delay} us into the detach, $left of $n links left, exit $rc: "
	released "$sid"
	echo -n " the tracer's end; "
	python3 "$HERE/check.py" cycle "$XPERF" "$T/out/$sid" KILL "$T/agent.jsonl"
	gone "$progs" "$links"
done
leaks=$(( $(dmesg 2> /dev/null | grep -c "leaking uprobe" || true) - leaks_before ))
echo "info: $leaks \"leaking uprobe\" line(s) in the kernel log meanwhile, from any process"
[ "$hit" -ge $((N / 2)) ] || fail "only $hit of $N kills landed inside the detach"
kill -0 "$agent" || fail "the agent died"
python3 "$HERE/check.py" calls "$T/agent.jsonl" --min 5
echo "PASS: $hit of $N SIGKILLs inside the detach, no int3 left, $(wc -l < "$T/agent.jsonl") agent calls all answered"
