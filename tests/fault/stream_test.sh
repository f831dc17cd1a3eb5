#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# stream_test.sh - faults on the agent's side of a traced run:
#   the agent SIGKILLs itself in the middle of a streamed answer (its 4th call,
#     after the first bytes): xperf-bpf sees it go and ends by itself, exit 0,
#     every turn file valid, capture.json there, the cut exchange marked
#     (aborted_stream) in the last turn, which says `complete: false` (the
#     turns before it `true`);
#   the ring forced to overflow (--ring-size 4096 and 3000 threads started
#     beside the agent): records are lost, and the loss is counted the same in
#     capture.json (per type, adding up), in the raw dump's end record and on
#     stderr; the turn files stay valid and the agent is unharmed.
# After each: no BPF program or link the run held left, no int3 left.
source "$(dirname "$(realpath "$0")")/lib.sh"
WL=$run/userspace/testing/workload
start_mock

# run NAME XPERF-BPF-OPTIONS... -- COMMAND...: record in the background, keep its ids
run() {
	local name=$1
	shift
	XPERF_SESSION_ID=$name "$XB" record -q -o "$T/out" "$@" > /dev/null 2> "$T/$name.err" &
	xb=$!
	for _ in $(seq 100); do progs=$(ids $xb prog_id); [ -n "$progs" ] && break; sleep 0.05; done
	links=$(ids $xb link_id)
}

echo "== the agent killed mid-stream"
agent_cmd "$T/cut.jsonl" --die-mid-stream 4
run cut -- "${AGENT[@]}"
rc=0
timeout 30 tail --pid=$xb -f /dev/null || fail "cut: xperf-bpf still runs 30 s after the agent died"
wait $xb || rc=$?
[ $rc = 0 ] || fail "cut: exit $rc: $(cat "$T/cut.err")"
python3 "$HERE/check.py" session "$XPERF" "$T/out/cut" --clean
python3 "$HERE/check.py" calls "$T/cut.jsonl" --min 3
python3 - "$T/out/cut" <<'PY' || fail "cut: the last turn is not marked cut, or an earlier one is"
import glob, json, sys
turns = [json.load(open(f)) for f in sorted(glob.glob(sys.argv[1] + "/turn_*.json"))]
last = turns[-1]
kinds = [m.get("kind") for m in last["waste_marks"]]
print("turns complete %s; last turn's waste marks %s" % ([t["complete"] for t in turns], kinds))
sys.exit("aborted_stream" not in kinds or last["complete"] is not False
         or not all(t["complete"] is True for t in turns[:-1]))
PY
gone "$progs" "$links"
untrapped cut

echo "== the ring overflows"
agent_cmd "$T/ring.jsonl" --calls 10
run ring --ring-size 4096 --raw "$T/ring.raw" -- sh -c "\"$WL\" threads 3000 > /dev/null & $(printf '%q ' "${AGENT[@]}"); wait"
rc=0
wait $xb || rc=$?
[ $rc = 0 ] || fail "ring: exit $rc: $(cat "$T/ring.err")"
lost=$(python3 -c 'import json, sys; print(json.loads(open(sys.argv[1]).readlines()[-1])["dropped"])' "$T/ring.raw")
[ "$lost" -gt 0 ] || fail "ring: nothing lost with a 4 KiB ring"
grep -q "^xperf-bpf: warning: $lost records lost (ring full: " "$T/ring.err" ||
	fail "ring: stderr does not count the $lost lost records: $(cat "$T/ring.err")"
python3 "$HERE/check.py" session "$XPERF" "$T/out/ring" --clean --losses "$lost"
python3 "$HERE/check.py" calls "$T/ring.jsonl" --min 10
gone "$progs" "$links"
untrapped ring
echo "$lost records lost, counted alike in capture.json, the raw dump and on stderr"
echo PASS
