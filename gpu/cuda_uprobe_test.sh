#!/bin/bash
# SPDX-License-Identifier: MIT
# cuda_uprobe_test.sh - the cuda module of xperf-bpf (the zero-injection GPU
# fallback) against a real program linked to libcudart (gpu/cuda_calls),
# started by `record` and attached to by `attach --pid`. Ground truth is the
# program's own report: the call counts must match exactly; the module's
# blocking time of each function lies inside the program's (entry/return
# probes fire inside the program's timed interval: so is the median call),
# and the median call's difference, the uprobe+uretprobe trap cost, is at
# most 40 us on this VM kind (2-15 us measured). The median, not the totals:
# a stall outside the probed interval counts in the program's clock only (at
# a load average of 20, 300 cudaDeviceSynchronize calls took 16.9 ms by the
# program's clock, 0.33 ms inside the probes, 1.5 us/call for the other
# four functions; the first probed call once took 100 ms, likely the kernel
# setting up the uprobe out-of-line page). The --raw records, the gpu-<pid>.uprobe.xpgpu file and,
# when the calls happen inside an LLM call, the turn's gpu object must all
# hold the same calls; a forced overflow must count every call it loses.
# The probes are per traced process: the program waits before its first call
# until the test sees they are in, as a library mapped after exec gets its
# probes later (gpu/README.md), and an untraced process using the same
# libcudart at the same time carries no breakpoint (the program reads its
# own code) and yields no record.
set -u
XPERF_BPF=$(realpath cli/xperf-bpf)
XPERF=$(realpath cli/xperf)
HOST=$(realpath gpu/cuda_calls)
DUMP=$(realpath gpu/xpgpu-dump)
MOCK=$(realpath demo/mock_provider.py)
N=300
T=$(mktemp -d)
mock=
trap '[ -n "$mock" ] && kill $mock 2>/dev/null; rm -rf "$T"' EXIT
. gpu/check_lib.sh

# compare PROGRAM_OUT RAW_JSONL: per function, exact counts, nested times
# (totals and medians), the medians at most 40 us apart.
compare() {
	python3 - "$1" "$2" "$N" <<'PY'
import json, re, sys
prog = {m[0]: tuple(map(int, m[1:])) for m in
        re.findall(r"^(\w+) calls=(\d+) total_ns=(\d+) median_ns=(\d+)",
                   open(sys.argv[1]).read(), re.M)}
seen = {}
for line in open(sys.argv[2]):
    r = json.loads(line)
    if r["type"] == "cuda_call":
        seen.setdefault(r["fn"], []).append(r["duration_ns"])
n, bad = int(sys.argv[3]), 0
for fn, (calls, ns, med) in prog.items():
    d = sorted(seen.get(fn, []))
    pc, pns, pmed = len(d), sum(d), d[len(d) // 2] if d else 0
    ok = pc == calls == n and 0 < pns <= ns and 0 < pmed <= med and med - pmed <= 40000
    print(f"{'ok' if ok else 'FAIL'}: {fn}: program {calls} calls {ns} ns (median {med}), "
          f"xperf-bpf {pc} calls {pns} ns (median {pmed}), trap cost {(med - pmed) / 1000:.1f} "
          f"us/call (median), {(ns - pns) / calls / 1000:.1f} (mean)")
    bad += not ok
sys.exit(1 if bad or len(prog) != 5 or len(seen) != 5 else 0)
PY
}

# same_calls RAW_JSONL GPU_DIR: the .xpgpu records are the raw records (per
# function: count and total time), source uprobe, and the dropped count is the
# ring's cuda_call drops.
same_calls() {
	"$DUMP" "$2" >"$2.json" && python3 - "$1" "$2.json" <<'PY'
import json, sys
raw, d = {}, json.load(open(sys.argv[2]))
drops = 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["type"] == "cuda_call":
        c, ns = raw.get(r["fn"], (0, 0))
        raw[r["fn"]] = (c + 1, ns + r["duration_ns"])
    if r["type"] == "end":
        drops = r["drops"].get("cuda_call", 0)
got = {}
for a in d["activities"]:
    c, ns = got.get(a["name"], (0, 0))
    got[a["name"]] = (c + 1, ns + a["end_ns"] - a["start_ns"])
print("records:", d["counts"], "source", d["source"], "dropped", d["dropped_records"])
sys.exit(0 if got == raw and d["source"] == "uprobe" and d["dropped_records"] == drops else 1)
PY
}

# wait_for FILE: until it exists.
wait_for() {
	for _ in $(seq 400); do [ -e "$1" ] && return 0; sleep 0.05; done
	return 1
}

# per_call FILE: ns per cudaLaunchKernel call in a program's report.
per_call() {
	awk -F'[ =]' '$1 == "cudaLaunchKernel" { print int($5 / $3) }' "$1"
}

# A program's probes are attached by xperf-bpf after the program maps
# libcudart, or after `attach` starts up: from a few ms to seconds under load
# (xperf-bpf's start-up took over 2 s, one uprobe's perf_event_open 0.7-2.7 s,
# contended in the kernel, at a load average of 15-18). So the program pauses
# (60 s at most) until the test sees its probes are in and sends SIGUSR1.
# go PID: SIGUSR1 to PID once its handler is set (SigCgt bit 10).
go() {
	for _ in $(seq 200); do
		(( 0x$(awk '/^SigCgt/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0) & 0x200 )) && break
		sleep 0.05
	done
	kill -USR1 "$1"
}

# wait_said LOG TEXT: until xperf-bpf's stderr says TEXT ("tracing pid PID";
# with -v, "cuda: 10 probes on /proc/PID/root/..." once a process's probes are in).
wait_said() {
	for _ in $(seq 1200); do grep -qF "$2" "$1" && return 0; sleep 0.05; done
	return 1
}

# child_of PID: the cuda_calls that PID (xperf-bpf record) started.
child_of() {
	local c
	for _ in $(seq 400); do c=$(pgrep -P "$1" -x cuda_calls) && break; sleep 0.05; done
	echo "$c"
}
export -f go wait_said

echo "1. record starts the command"
XPERF_SESSION_ID=rec "$XPERF_BPF" record -v -o "$T/rec" --raw "$T/rec.jsonl" -- "$HOST" "$N" 60000 \
	>"$T/prog.out" 2>"$T/rec.err" &
xb=$!
prog=$(child_of $xb)
wait_said "$T/rec.err" "cuda: 10 probes on /proc/$prog/root/" && go "$prog"
wait $xb
rc=$?
check "record: exit 0 ($(grep -v '^libbpf' "$T/rec.err" | head -c 300))" test $rc -eq 0
check "record: counts exact, times nested" compare "$T/prog.out" "$T/rec.jsonl"
check "record: the 5 functions carry a breakpoint in the traced process" \
	grep -qx breakpoints=5 "$T/prog.out"
check "record: capture.json counts 1 process, 1 library, 10 probes, its exit seen" \
	python3 - "$T/rec/rec/capture.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))["modules"]["cuda"]
print("modules.cuda:", m)
sys.exit(0 if (m["processes"], m["libraries"], m["probes"], m["exited"]) == (1, 1, 10, 1)
         and m["map_records"] > 0 and m["rescans"] <= m["map_records"] else 1)
PY
check "record: no cuda_call lost" grep -q '"type":"end".*"drops":{}' "$T/rec.jsonl"
check "record: the .xpgpu file holds the same calls" same_calls "$T/rec.jsonl" "$T/rec/gpu"
check "record: launch 3N, sync 2N" python3 -c "import json,sys; c=json.load(open('$T/rec/gpu.json'))['counts']; sys.exit(c['launch'] != 3 * $N or c['sync'] != 2 * $N)"
check "record: the file is mode 0600" \
	test "$(stat -c %a "$T"/rec/gpu/gpu-*.uprobe.xpgpu 2>/dev/null)" = 600

echo "2. an untraced process using the same libcudart while one is traced"
"$HOST" "$N" >"$T/bare.out"
"$XPERF_BPF" record -v -o "$T/two" --raw "$T/two.jsonl" -- "$HOST" "$N" 60000 >"$T/traced.out" \
	2>"$T/two.err" &
xb=$!
prog=$(child_of $xb)
wait_said "$T/two.err" "cuda: 10 probes on /proc/$prog/root/"
"$HOST" "$N" >"$T/untraced.out" &
other=$!
wait "$other"
go "$prog"
wait "$xb"
check "untraced: no breakpoint in its libcudart" grep -qx breakpoints=0 "$T/untraced.out"
check "untraced: no record of its pid $other" \
	test "$(grep -c "\"tgid\":$other," "$T/two.jsonl")" = 0
check "traced meanwhile: counts exact, its breakpoints in place" \
	eval 'compare "$T/traced.out" "$T/two.jsonl" && grep -qx breakpoints=5 "$T/traced.out"'
echo "info: ns per cudaLaunchKernel: bare $(per_call "$T/bare.out"), untraced during the trace" \
	"$(per_call "$T/untraced.out"), traced $(per_call "$T/traced.out")"

echo "3. attach to a running process by pid"
"$HOST" "$N" 60000 >"$T/prog2.out" &
pid=$!
"$XPERF_BPF" attach --pid "$pid" -o "$T/att" --raw "$T/att.jsonl" 2>"$T/att.err" &
xb=$!
wait_said "$T/att.err" "xperf-bpf: tracing pid $pid" && go "$pid"
wait "$xb"
rc=$?
check "attach: exit 0 ($(head -c 300 "$T/att.err"))" test $rc -eq 0
wait "$pid"
check "attach: counts exact, times nested" compare "$T/prog2.out" "$T/att.jsonl"
check "attach: file named by pid" test -s "$T/att/gpu/gpu-$pid.uprobe.xpgpu"

echo "4. forced overflow: a one-page ring, xperf-bpf stopped while the calls run"
"$HOST" 2000 60000 >/dev/null &
pid=$!
"$XPERF_BPF" attach --ring-size 4096 --pid "$pid" -o "$T/small" --raw "$T/small.jsonl" \
	2>"$T/small.err" &
xb=$!
wait_said "$T/small.err" "xperf-bpf: tracing pid $pid"
kill -STOP "$xb"
go "$pid"
wait "$pid"
kill -CONT "$xb"
wait "$xb"
check "overflow: delivered + lost == 5 x 2000 calls, lost > 0" python3 - "$T/small.jsonl" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
got = sum(r["type"] == "cuda_call" for r in recs)
lost = recs[-1]["drops"].get("cuda_call", 0)
print(f"delivered {got}, lost {lost}")
sys.exit(0 if got + lost == 10000 and lost > 0 else 1)
PY
check "overflow: the loss is in the .xpgpu file" same_calls "$T/small.jsonl" "$T/small/gpu"
check "overflow: xperf-bpf reported it" grep -q 'records lost (ring full:.*cuda_call' "$T/small.err"

echo "5. --no-cuda"
"$XPERF_BPF" record -q --no-cuda -o "$T/off" --raw "$T/off.jsonl" -- "$HOST" 10 >/dev/null 2>&1
check "--no-cuda: exit 0" test $? -eq 0
check "--no-cuda: no cuda_call record" test "$(grep -c '"type":"cuda_call"' "$T/off.jsonl")" = 0
check "--no-cuda: no .xpgpu file" test ! -e "$T/off/gpu"

echo "6. the calls, made while an LLM call waits, reach the turn"
mkdir -p "$T/mock"
python3 "$MOCK" --dir "$T/mock" --scenario slow --log "$T/mock/log.jsonl" &
mock=$!
wait_for "$T/mock/port"
url=https://localhost:$(cat "$T/mock/port")/v1/chat/completions
# (the program is probed first: that took over 2 s, the mock's answer's wait)
XPERF_SESSION_ID=cuda "$XPERF_BPF" record -v -o "$T/turns" -- bash -c "
	'$HOST' $N 60000 >'$T/prog5.out' &
	prog=\$!
	wait_said '$T/turns.err' \"cuda: 10 probes on /proc/\$prog/root/\"
	curl -sS --cacert '$T/mock/ca.pem' '$url' -H 'content-type: application/json' \
		-d '{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}' >/dev/null &
	until grep -q request_received '$T/mock/log.jsonl'; do sleep 0.02; done
	go \$prog
	wait" 2>"$T/turns.err"
rc=$?
check "turn: record exit 0 ($(grep -v '^libbpf' "$T/turns.err" | head -c 300))" test $rc -eq 0
check "turn: the turn file is valid TurnTrace" "$XPERF" validate "$T/turns/cuda/turn_001.json"
check "turn: gpu.activities hold every call the program made" python3 - \
	"$T/turns/cuda/turn_001.json" "$T/prog5.out" <<'PY'
import json, re, sys
t = json.load(open(sys.argv[1]))
prog = {m[0]: int(m[1]) for m in
        re.findall(r"^(\w+) calls=(\d+)", open(sys.argv[2]).read(), re.M)}
got = {}
for a in t.get("gpu", {}).get("activities", []):
    got[a["name"]] = got.get(a["name"], 0) + 1
print("turn:", got, "program:", prog, "source", t.get("gpu", {}).get("source"))
sys.exit(0 if got == prog and len(prog) == 5 and t["gpu"]["source"] == "uprobe" else 1)
PY
# The probes come from the map record (the parent's dlopen) and from each fork
# record, late as above (a child forked while xperf-bpf attached its parent's
# waited for that too): each process waits for xperf-bpf -v to say its probes
# are in before its calls.
echo "7. a libcudart loaded late (dlopen) and 3 children forked without exec, one after the other, with --no-plaintext"
CUDART=$(ldd "$HOST" | awk '/libcudart/ { print $3 }')
XPERF_SESSION_ID=late "$XPERF_BPF" record -v --no-plaintext -o "$T/late" --raw "$T/late.jsonl" \
	-- python3 -c "
import ctypes, os, sys, time
def wait_probed():
    said, end = 'cuda: 10 probes on /proc/%d/root/' % os.getpid(), time.monotonic() + 60
    while said not in open('$T/late.err', errors='replace').read():
        if time.monotonic() > end: sys.exit('no probes after 60 s')
        time.sleep(0.01)
time.sleep(0.3)
lib = ctypes.CDLL('$CUDART')
wait_probed()
for _ in range($N): lib.cudaDeviceSynchronize()
kids = []
for _ in range(3):
    kids.append(os.fork())
    if kids[-1] == 0:
        wait_probed()
        for _ in range($N): lib.cudaStreamSynchronize(None)
        os._exit(0)
    os.waitpid(kids[-1], 0)
print(os.getpid(), *kids)" >"$T/late.out" 2>"$T/late.err"
rc=$?
check "late: record exit 0 ($(grep -v '^libbpf\|probes on' "$T/late.err" | head -c 300))" test $rc -eq 0
check "late: N device syncs from the parent, N stream syncs from each child, nothing else" \
	python3 - "$T/late.jsonl" "$T/late.out" "$N" "$T/late/late/capture.json" <<'PY'
import collections, json, sys
parent, *kids = map(int, open(sys.argv[2]).read().split())
n = int(sys.argv[3])
got = collections.Counter((r["tgid"], r["fn"]) for r in map(json.loads, open(sys.argv[1]))
                          if r["type"] == "cuda_call")
m = json.load(open(sys.argv[4]))["modules"]["cuda"]
print("calls:", dict(got), "modules.cuda:", m)
want = {(parent, "cudaDeviceSynchronize"): n}
want.update({(k, "cudaStreamSynchronize"): n for k in kids})
sys.exit(0 if got == want and m["processes"] == 4 and m["libraries"] == 4
         and m["exited"] == 4 and m["rescans"] >= 1 else 1)
PY
exit $fail
