#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# disk_test.sh - the output directory fails under a traced agent:
#   read-only (a tmpfs mounted ro): refused before the command starts, exit 1,
#     one line naming the directory, nothing loaded or written, the command
#     never run;
#   full (a 128 KiB tmpfs with 28 KiB left): the turns that fit are written
#     whole, the first that does not is named on stderr with "No space left on
#     device" (capture.json too), every turn not written is counted on stderr
#     ("N of M turns", the M - N others written), no partial or temporary file
#     is left, exit 1; the agent runs every call to the end, answered whole;
#   full, then freed while the agent runs: the turns after it are written
#     again, and capture.json's data_quality counts the turns missing, as
#     stderr does; exit 1;
#   stale temporary files of a killed run in the session directory: the next
#     run of the session removes those of dead writers, and keeps one whose
#     writer (another process holding its lock) lives.
# After each: no BPF program or link the run held left, no int3 in a process
# that maps the library afterwards.
source "$(dirname "$(realpath "$0")")/lib.sh"
start_mock
mkdir -p "$T/mnt"

echo "== read-only output directory"
mount -t tmpfs -o size=64k,ro tmpfs "$T/mnt"
agent_cmd "$T/ro.jsonl" --calls 2
rc=0
XPERF_SESSION_ID=ro "$XB" record -q -o "$T/mnt" -- "${AGENT[@]}" > /dev/null 2> "$T/ro.err" || rc=$?
[ $rc = 1 ] || fail "read-only: exit $rc, not 1"
[ "$(wc -l < "$T/ro.err")" = 1 ] && grep -q "$T/mnt.*Read-only file system" "$T/ro.err" ||
	fail "read-only: not one line naming the directory: $(cat "$T/ro.err")"
[ ! -e "$T/ro.jsonl" ] || fail "read-only: the command ran"
[ -z "$(ls -A "$T/mnt")" ] || fail "read-only: something was written"
echo "refused: $(cat "$T/ro.err")"
umount "$T/mnt"

echo "== disk full"
mount -t tmpfs -o size=128k tmpfs "$T/mnt"
head -c 102400 /dev/zero > "$T/mnt/filler"
agent_cmd "$T/full.jsonl" --calls 15
XPERF_SESSION_ID=full "$XB" record -q -o "$T/mnt" -- "${AGENT[@]}" > /dev/null 2> "$T/full.err" &
xb=$!
for _ in $(seq 100); do progs=$(ids $xb prog_id); [ -n "$progs" ] && break; sleep 0.05; done
links=$(ids $xb link_id)
rc=0
wait $xb || rc=$?
[ $rc = 1 ] || fail "disk full: exit $rc, not 1: $(cat "$T/full.err")"
grep -q "turn_[0-9]*\.json: .*No space left on device" "$T/full.err" ||
	fail "disk full: no line names the turn not written: $(cat "$T/full.err")"
grep -q "capture.json: No space left on device" "$T/full.err" ||
	fail "disk full: capture.json's failure not named: $(cat "$T/full.err")"
python3 "$HERE/check.py" session "$XPERF" "$T/mnt/full"
ls "$T/mnt/full" | grep -q '\.tmp\.' && fail "disk full: temporary files left: $(ls "$T/mnt/full")"
python3 "$HERE/check.py" calls "$T/full.jsonl" --min 15
python3 "$HERE/check.py" unwritten "$T/mnt/full" "$T/full.err" 10
gone "$progs" "$links"
untrapped "disk full"
sed 's/^/stderr: /' "$T/full.err"
umount "$T/mnt"

echo "== disk full, then freed"
mount -t tmpfs -o size=128k tmpfs "$T/mnt"
head -c 102400 /dev/zero > "$T/mnt/filler"
agent_cmd "$T/freed.jsonl" --calls 15
XPERF_SESSION_ID=freed "$XB" record -q -o "$T/mnt" -- "${AGENT[@]}" > /dev/null 2> "$T/freed.err" &
xb=$!
for _ in $(seq 300); do grep -q "No space left" "$T/freed.err" && break; sleep 0.05; done
rm "$T/mnt/filler"
rc=0
wait $xb || rc=$?
[ $rc = 1 ] || fail "freed: exit $rc, not 1: $(cat "$T/freed.err")"
python3 "$HERE/check.py" session "$XPERF" "$T/mnt/freed" --clean
python3 "$HERE/check.py" unwritten "$T/mnt/freed" "$T/freed.err" 10 --freed
sed 's/^/stderr: /' "$T/freed.err"
umount "$T/mnt"

echo "== stale temporary files of a killed run"
s=$T/out/stale
mkdir -p "$s"
sh -c 'exit 0' & dead=$!
wait $dead
echo '{"par' > "$s/turn_003.json.tmp.$dead.0"
echo '{"rec' > "$s/capture.json.tmp.$dead.1"
echo '{"liv' > "$s/turn_009.json.tmp.$dead.2"
flock "$s/turn_009.json.tmp.$dead.2" sleep 60 & PIDS+=($!) # a writer the sweep cannot see die
for _ in $(seq 50); do flock -n "$s/turn_009.json.tmp.$dead.2" true || break; sleep 0.05; done
agent_cmd "$T/stale.jsonl" --calls 1
XPERF_SESSION_ID=stale "$XB" record -o "$T/out" -- "${AGENT[@]}" > /dev/null 2> "$T/stale.err" ||
	fail "stale: record failed: $(cat "$T/stale.err")"
grep -q "^xperf-bpf: $s: 2 temporary file(s) of a killed run removed$" "$T/stale.err" ||
	fail "stale: no line says 2 were removed: $(head -3 "$T/stale.err")"
left=$(cd "$s" && ls | grep '\.tmp\.' | tr '\n' ' ')
[ "$left" = "turn_009.json.tmp.$dead.2 " ] || fail "stale: left: '$left', not the locked one alone"
python3 "$HERE/check.py" session "$XPERF" "$s"
echo "removed 2 of a dead writer, kept the one whose lock is held"
echo PASS
