# SPDX-License-Identifier: MIT
# record_check.sh - sourced by gpu_check.sh (uses W, check, val, keep): the two
# check programs under `xperf-bpf record --cupti`, with the CUPTI collector
# injected and xperf-bpf's cuda uprobes at once, while an LLM call to the mock provider
# waits for its first token (scenario slow: 2 s). Each program holds its first
# CUDA call until xperf-bpf -v says its libcudart probes are in. Checks: the
# collector's records reach <trace dir>/gpu and merge into the turn (every
# kernel both programs ran), `xperf gpu breakdown` shows the turn's GPU time,
# and per process the uprobe call counts equal CUPTI's API records.
if [ -n "${XPERF_BIN:-}" ]; then
	XBPF=$XPERF_BIN/xperf-bpf XP=$XPERF_BIN/xperf DUMP=$XPERF_BIN/xpgpu-dump
else
	XBPF=bazel-bin/cli/xperf-bpf XP=bazel-bin/cli/xperf DUMP=bazel-bin/gpu/xpgpu-dump
fi
XLIB=
[ -n "${XPERF_BIN:-}" ] && [ -d "$XPERF_BIN/lib" ] && XLIB=$(realpath "$XPERF_BIN/lib")

# x PROGRAM ARGS...: an xperf binary, with its carried libraries (and no one else's)
x() { LD_LIBRARY_PATH=$XLIB "$@"; }

# wait_line FILE PATTERN SECONDS: until an extended regex matches a line of FILE.
wait_line() {
	local i
	for ((i = 0; i < $3 * 20; i++)); do grep -qE "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done
	return 1
}

record_check() {
	local mock rc a b
	if [ ! -x "$XBPF" ] || [ ! -x "$XP" ] || [ ! -x "$DUMP" ]; then
		echo "gpu_check: record part SKIPPED: no xperf binaries (bazel build //cli:all //gpu:all, or XPERF_BIN)"
		return
	fi
	if [ "$(id -u)" != 0 ]; then
		echo "gpu_check: record part SKIPPED: xperf-bpf needs root"
		return
	fi
	echo "gpu_check: under xperf-bpf record (collector + cuda uprobes) during an LLM call"
	mkdir -p "$W/mock" "$W/bin"
	# The mock makes its certificates with the openssl tool; a carried one serves where none is.
	command -v openssl >/dev/null || [ ! -x "${XPERF_BIN:-/}/openssl" ] ||
		printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s "$@"\n' "$XLIB" \
			"$(realpath "$XPERF_BIN/openssl")" >"$W/bin/openssl"
	chmod +x "$W/bin/openssl" 2>/dev/null
	PATH=$W/bin:$PATH python3 demo/mock_provider.py --dir "$W/mock" --scenario slow \
		--log "$W/mock/log.jsonl" 2>"$W/mock.err" &
	mock=$!
	wait_line "$W/mock/port" . 20
	check "mock provider up ($(head -c 200 "$W/mock.err"))" test -s "$W/mock/port"
	cat >"$W/llm_call.py" <<'PY'
import json, ssl, sys, urllib.request
d = sys.argv[1]
ctx = ssl.create_default_context(cafile=d + "/ca.pem")
body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode()
url = "https://localhost:%s/v1/chat/completions" % open(d + "/port").read().strip()
req = urllib.request.Request(url, data=body, headers={"content-type": "application/json"})
print("llm answer bytes", len(urllib.request.urlopen(req, context=ctx).read()))
PY
	XPERF_SESSION_ID=gpurec x "$XBPF" record -v --cupti="$W/libxperf_cupti.so" -o "$W/rec" -- \
		env -u LD_LIBRARY_PATH bash -c "
		$(declare -f wait_line)
		export CHECK_APP_GO_FILE='$W/go'
		'$W/check_app' 50 >'$W/rec_app.out' 2>&1 &
		a=\$!
		'$W/streams_app' 20 >'$W/rec_str.out' 2>&1 &
		b=\$!
		for p in \$a \$b; do
			wait_line '$W/rec.err' \"cuda: [0-9]+ probes on /proc/\$p/root/.*libcudart\" 60 ||
				echo \"no libcudart probes for \$p\" >&2
			wait_line '$W/rec.err' \"cuda: [0-9]+ probes on /proc/\$p/root/.*libcuda\\.so\" 5 ||
				echo \"no libcuda probes for \$p\" >&2
		done
		unset CUDA_INJECTION64_PATH
		python3 '$W/llm_call.py' '$W/mock' &
		c=\$!
		wait_line '$W/mock/log.jsonl' request_received 20
		touch '$W/go'
		wait \$a \$b \$c" >"$W/rec.out" 2>"$W/rec.err"
	rc=$?
	kill "$mock" 2>/dev/null
	keep "$W/rec.err" record-stderr.txt
	grep -v '^libbpf' "$W/rec.err" | grep -v 'probes on' | head -20 | sed 's/^/    /'
	cat "$W/rec.out" "$W/rec_app.out" "$W/rec_str.out" | sed 's/^/    /'
	check "record exits 0" test $rc -eq 0
	ls "$W/rec/gpu" | sed 's/^/    gpu dir: /'
	for f in "$W"/rec/gpu/*.xpgpu; do keep "$f" "record-$(basename "$f")"; done
	keep "$W/rec/gpurec/turn_001.json" record-turn_001.json
	check "the turn file is valid TurnTrace" x "$XP" validate "$W/rec/gpurec/turn_001.json"
	x "$XP" gpu breakdown "$W/rec/gpurec/turn_001.json" | tee "$W/rec.breakdown" | sed 's/^/    /'
	check "xperf gpu breakdown shows compute time" \
		awk '$1 == "compute" && $2 > 0 { ok = 1 } END { exit !ok }' "$W/rec.breakdown"
	a=$(tr ' ' '\n' <"$W/rec_app.out" | sed -n 's/^kernels=//p')
	b=$(tr ' ' '\n' <"$W/rec_str.out" | sed -n 's/^kernels_[ab]=//p' | awk '{ s += $1 } END { print s }')
	check "the turn holds every kernel both programs ran ($a + $b)" python3 - \
		"$W/rec/gpurec/turn_001.json" "$((a + b))" <<'PY'
import json, sys
g = json.load(open(sys.argv[1])).get("gpu", {})
k = sum(a["kind"] == "kernel" for a in g.get("activities", []))
print("    turn gpu: source", g.get("source"), "kernels", k, "dropped", g.get("dropped_records"))
sys.exit(0 if k == int(sys.argv[2]) and g.get("source") == "cupti" else 1)
PY
	for f in "$W"/rec/gpu/gpu-*.uprobe.xpgpu; do
		local pid=${f##*/gpu-}
		pid=${pid%%.*}
		mkdir -p "$W/u$pid" "$W/c$pid"
		cp "$f" "$W/u$pid/" && cp "$W/rec/gpu/gpu-$pid.xpgpu" "$W/c$pid/" 2>/dev/null
		x "$DUMP" "$W/u$pid" >"$W/u$pid.json"
		x "$DUMP" "$W/c$pid" >"$W/c$pid.json"
		check "pid $pid: uprobe call counts equal CUPTI's" python3 - "$W/u$pid.json" \
			"$W/c$pid.json" <<'PY'
import collections, json, sys
def calls(path, kinds):
    d = json.load(open(path))
    # CUDA 13's <<<>>> calls __cudaLaunchKernel, which jumps into cudaLaunchKernel (one call)
    c = collections.Counter(a["name"].lstrip("_") for a in d["activities"] if a["kind"] in kinds)
    return c, d.get("dropped_records")
# the uprobes' sync calls are kind sync; CUPTI's host calls are all API records (kind launch),
# its sync records are the device-side view of the same calls
up, ud = calls(sys.argv[1], ("launch", "sync"))
cu, cd = calls(sys.argv[2], ("launch",))
names = sorted(set(up) | {n for n in cu if n in ("cudaLaunchKernel", "cudaMemcpy", "cudaMemcpyAsync",
        "cudaStreamSynchronize", "cudaDeviceSynchronize", "cuLaunchKernel", "cuLaunchKernelEx")})
bad = 0
for n in names:
    ok = up[n] == cu[n]
    bad += not ok
    print("    %-4s %-24s uprobe %6d  cupti %6d" % ("ok" if ok else "DIFF", n, up[n], cu[n]))
print("    dropped: uprobe", ud, "cupti", cd, "| cupti names:", dict(cu))
sys.exit(1 if bad or not names else 0)
PY
	done
}
record_check
