#!/bin/bash
# SPDX-License-Identifier: MIT
# cmd_gpu_test.sh - `xperf gpu` end to end on real records: xperf-bpf's cuda
# module (the uprobe fallback) traces a real libcudart program, a turn whose
# intelligent span covers the run gets the records merged (and stays valid
# for `xperf validate`), and the breakdown charges exactly the host's time inside sync
# calls to idle_sync and the rest to host wait (there are no device
# activities without a GPU). Bad inputs give exit 2 with the file's name.
set -u
XPERF=cli/xperf
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. gpu/check_lib.sh

# pause 1 s: the program's calls come after its probes (gpu/README.md)
cli/xperf-bpf record -q -o "$T" -- gpu/cuda_calls 50 1000 >/dev/null 2>"$T/rec.err"
gpu/xpgpu-dump "$T/gpu" >"$T/dump.json"
python3 - "$T/dump.json" gpu/testdata/turn_minimal.json "$T/turn.json" "$T/expect" <<'PY'
import json, sys
acts = json.load(open(sys.argv[1]))["activities"]
t0 = min(a["start_ns"] for a in acts) - 1000
t1 = max(a["end_ns"] for a in acts) + 1000
turn = json.load(open(sys.argv[2]))
turn.update(start_ns=t0, end_ns=t1, spans=[
    {"id": 1, "parent": None, "stage": "llm_inference", "domain": "intelligent",
     "category": "processing", "start_ns": t0, "end_ns": t1}])
json.dump(turn, open(sys.argv[3], "w"))
# idle_sync = length of the union of the sync calls
iv = sorted((a["start_ns"], a["end_ns"]) for a in acts if a["kind"] == "sync")
total, cur = 0, None
for s, e in iv:
    if cur and s <= cur[1]:
        cur[1] = max(cur[1], e)
    else:
        total += cur[1] - cur[0] if cur else 0
        cur = [s, e]
total += cur[1] - cur[0]
open(sys.argv[4], "w").write(f"{len(acts)} {t1 - t0} {total}\n")
PY
read -r nacts window sync <"$T/expect"

gpu/gpu_check_stats "$T/gpu" >"$T/stats"
check "gpu_check_stats: 150 launch and 100 sync calls, none dropped" \
	test "$(grep -E '^(launch|sync)_count=|^dropped=' "$T/stats" | tr '\n' ' ')" = \
	"sync_count=100 launch_count=150 dropped=0 "
"$XPERF" gpu merge --gpu-dir "$T/gpu" "$T/turn.json" >"$T/merge.out"
check "merge: exit 0" test $? -eq 0
check "merge: all $nacts records of the run merged" \
	grep -q ": $nacts GPU activities merged" "$T/merge.out"
check "merged turn is valid TurnTrace" "$XPERF" validate "$T/turn.json"
check "merged turn is mode 0600" test "$(stat -c %a "$T/turn.json")" = 600

"$XPERF" gpu breakdown --json "$T/turn.json" >"$T/b.json"
check "breakdown: exit 0" test $? -eq 0
check "breakdown: window, sync and host wait exact" python3 - "$T/b.json" "$window" "$sync" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))[0]
ns = {s["name"]: s["ns"] for s in b["shares"]}
w, sync = int(sys.argv[2]), int(sys.argv[3])
print("shares:", ns)
sys.exit(0 if b["window_ns"] == w and ns["idle_sync"] == sync and
         ns["idle_host_wait"] == w - sync and ns["compute"] == 0 else 1)
PY
"$XPERF" gpu breakdown "$T/turn.json" | grep -q 'intelligent.processing.gpu_sync'
check "breakdown: text names the L3 points" test $? -eq 0

# Per stream: the timeline of attribute_test.c's test_per_stream in a turn (a
# device-wide sync and another thread's sync on stream 1 only).
python3 - "$T/turn.json" "$T/streams.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
t0 = t["start_ns"]
def act(kind, name, s, e, corr, stream):
    return {"kind": kind, "name": name, "start_ns": t0 + s, "end_ns": t0 + e, "device": 0,
            "stream": stream, "correlation_id": corr, "bytes": 0}
t["spans"][0]["end_ns"] = t["end_ns"] = t0 + 1000
t["gpu"]["activities"] = [
    act("launch", "cudaLaunchKernel", 0, 10, 1, 0), act("kernel", "a", 10, 300, 1, 1),
    act("launch", "cudaLaunchKernel", 600, 610, 2, 0), act("kernel", "a", 620, 1000, 2, 1),
    act("launch", "cudaLaunchKernel", 5, 8, 3, 0), act("kernel", "b", 20, 200, 3, 2),
    act("sync", "cudaDeviceSynchronize", 200, 500, 0, 4294967295),
    act("sync", "cudaStreamSynchronize", 320, 350, 0, 1),
    act("launch", "cudaLaunchKernel", 700, 710, 4, 0), act("kernel", "b", 720, 900, 4, 2)]
json.dump(t, open(sys.argv[2], "w"))
PY
"$XPERF" gpu breakdown --json "$T/streams.json" >"$T/s.json"
check "per stream: each stream's shares exact (JSON)" python3 - "$T/s.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))[0]
got = [(s["stream"], s["kernels"], s["ns"]) for s in b["streams"]]
print("streams:", got)
want = [(1, 2, {"compute": 670, "noncompute": 0, "idle_host_wait": 100,
                "idle_launch_overhead": 30, "idle_sync": 200, "idle_other": 0}),
        (2, 2, {"compute": 360, "noncompute": 0, "idle_host_wait": 305,
                "idle_launch_overhead": 35, "idle_sync": 300, "idle_other": 0})]
sys.exit(0 if got == want and b["streams_omitted"] == 0 else 1)
PY
"$XPERF" gpu breakdown "$T/streams.json" >"$T/s.txt"
check "per stream: text rows 0:1 and 0:2" \
	test "$(awk '$1 ~ /^0:[12]$/ { print $1, $2, $3 }' "$T/s.txt" | tr '\n' ' ')" = \
	"0:1 2 0.001 0:2 2 0.000 "

printf '{"schema_version": "1.0",\n "spans": [' >"$T/cut.json"
"$XPERF" gpu breakdown "$T/cut.json" 2>"$T/cut.err"
check "truncated turn: exit 2" test $? -eq 2
check "truncated turn: file:line:col named" grep -q "cut.json:2:" "$T/cut.err"
mkdir "$T/badgpu"
printf 'XPGPU\0\7\0' >"$T/badgpu/gpu-1.xpgpu"
head -c 64 /dev/zero >>"$T/badgpu/gpu-1.xpgpu"
"$XPERF" gpu merge --gpu-dir "$T/badgpu" "$T/turn.json" 2>"$T/bad.err"
check "bad .xpgpu: exit 2" test $? -eq 2
check "bad .xpgpu: file and offset named" \
	grep -q "gpu-1.xpgpu: offset 0: unsupported .xpgpu version" "$T/bad.err"
"$XPERF" gpu frobnicate 2>/dev/null
check "unknown verb: usage exit 64" test $? -eq 64
exit $fail
