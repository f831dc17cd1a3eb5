#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# kill_test.sh [N] - N (default 30) SIGKILLs and SIGTERMs of xperf-bpf at random
# instants (0-1.6 s after it starts: loading, attaching, tracing) while it
# traces an agent streaming LLM answers over TLS: `attach` to one long-running
# agent, and every sixth time `record` of a short one. After each: the exit status
# (137 for SIGKILL, 0 for SIGTERM: a clean stop), every turn file valid and
# capture.json valid (there, with no temporary file, after SIGTERM), no BPF
# program or link the run held left in the kernel, no uprobe_events entry, no
# "leaking uprobe" line from one of its threads in the kernel log, no
# int3 in the agent's SSL_write for its next call; the agents never harmed
# (every call answered whole, every tool run). FAULT_SEED replays a run.
source "$(dirname "$(realpath "$0")")/lib.sh"
N=${1:-30}
seed=${FAULT_SEED:-$RANDOM}
echo "seed $seed (FAULT_SEED=$seed replays this run)"
start_mock
agent_cmd "$T/agent.jsonl"
"${AGENT[@]}" > "$T/agent.out" &
agent=$!
PIDS+=("$agent")

python3 - "$seed" "$N" > "$T/plan" <<'PY'
import random, sys
r = random.Random(int(sys.argv[1]))
for i in range(int(sys.argv[2])):
    print(r.choice(["KILL", "KILL", "TERM"]), "record" if i % 6 == 5 else "attach", "%.2f" % r.uniform(0, 1.6))
PY
i=0
while read -r sig mode delay; do
	i=$((i + 1))
	sid=fault-$i
	since=$(boot_s)
	if [ "$mode" = attach ]; then
		XPERF_SESSION_ID=$sid "$XB" attach --pid "$agent" -q -o "$T/out" 2> "$T/$sid.err" &
	else
		agent_cmd "$T/$sid.jsonl" --calls 12 # outlives the fault: see README.md
		XPERF_SESSION_ID=$sid "$XB" record -q -o "$T/out" -- "${AGENT[@]}" > /dev/null 2> "$T/$sid.err" &
	fi
	xb=$!
	sleep "$delay"
	cmd=$(pgrep -P $xb || true) # record: the command it started
	progs=$(ids $xb prog_id)
	links=$(ids $xb link_id)
	tids=$(ls /proc/$xb/task 2> /dev/null || true)
	want=0
	[ "$sig" = KILL ] && want=137
	kill -"$sig" $xb 2> /dev/null || want=0 # it ended before the fault
	rc=0
	wait $xb || rc=$?
	[ $rc = $want ] || fail "$sid: SIG$sig at $delay s: exit $rc, not $want: $(cat "$T/$sid.err")"
	echo -n "$sid: $mode, SIG$sig at $delay s ($(wc -w <<< "$progs") programs): "
	if [ "$mode" = record ]; then # the command runs on, untraced, to its end
		for _ in $(seq 150); do [ -n "$cmd" ] && kill -0 "$cmd" 2> /dev/null && sleep 0.1; done
		[ -z "$cmd" ] || ! kill -0 "$cmd" 2> /dev/null || fail "$sid: the command still runs 15 s later"
	fi
	python3 "$HERE/check.py" cycle "$XPERF" "$T/out/$sid" "$sig" "$T/agent.jsonl" \
		$([ "$mode" = record ] && echo "$T/$sid.jsonl 12")
	gone "$progs" "$links"
	unleaked "$sid" "$since" "$tids"
done < "$T/plan"
kill -0 "$agent" || fail "the agent died"
python3 "$HERE/check.py" calls "$T/agent.jsonl" --min 10
echo "PASS: $N faults, $(wc -l < "$T/agent.jsonl") agent calls all answered"
