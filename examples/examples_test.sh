#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# examples_test.sh - runs both example agents (C and Python) and checks their
# traces: three turns each, every file valid (`xperf validate`), the
# hostname task's first tool call failed (a failed_tool_call waste mark on a
# tool_call span with process.exit.code != 0, then a retry), and the tool
# really ran (its output is printed).
set -euo pipefail
root=$(pwd)
cli="$root/cli/xperf"
export XPERF_LIB="$root/sdk/libxperf.so" PYTHONPATH="$root/bindings/python"
preload=""
if nm -D "$XPERF_LIB" | grep " U __asan_init" >/dev/null; then # not -q: SIGPIPE + pipefail
	preload=$(clang -print-file-name=libclang_rt.asan-x86_64.so)
fi

check() { # name, trace dir, agent stdout
	local name=$1 dir=$2 out=$3 session
	session=$(sed -n 's/^traces: //p' <<<"$out")
	[ "$(ls "$session")" = "$(printf 'turn_001.json\nturn_002.json\nturn_003.json')" ] ||
		{ echo "$name: expected three turns in $session"; ls -l "$session"; exit 1; }
	"$cli" validate "$dir" || { echo "$name: invalid traces"; exit 1; }
	# the tool really ran: the agent printed what wc printed
	grep -A1 "task: How many accounts" <<<"$out" | grep -qx "$(wc -l </etc/passwd)" ||
		{ echo "$name: wrong tool output"; exit 1; }
	python3 - "$session/turn_003.json" "$name" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
kinds = [w["kind"] for w in doc["waste_marks"]]
assert kinds == ["failed_tool_call", "retry"], (sys.argv[2], kinds)
tools = [s for s in doc["spans"] if s["stage"] == "tool_call"]
assert [t["attributes"]["process.exit.code"] != 0 for t in tools] == [True, False], tools
assert tools[0]["category"] == "waste" and doc["waste_marks"][0]["span"] == tools[0]["id"]
llm = [s for s in doc["spans"] if s["stage"] == "llm_inference"]
assert len(llm) == 2 and llm[0]["attributes"]["gen_ai.provider.name"] == "anthropic"
assert all(s["end_ns"] - s["start_ns"] >= 15_000_000 for s in llm)  # the simulated wait
for s in llm:  # streamed: token times, ttft >= the 15 ms wait + one 4 ms token
    a = s["attributes"]
    assert len(a["xperf.token_times_ns"]) >= 5 and a["xperf.ttft_ns"] >= 19_000_000, a
ttft = [m for m in doc["fused_marks"] if m["kind"] == "ttft"]
assert [m["span"] for m in ttft] == [s["id"] for s in llm], ttft
print("%s: turn 3 ok (%d spans)" % (sys.argv[2], len(doc["spans"])))
PY
}

c_dir="$TEST_TMPDIR/c" py_dir="$TEST_TMPDIR/py"
out=$(XPERF_TRACE_DIR="$c_dir" "$root/examples/c_agent")
echo "$out"
check c_agent "$c_dir" "$out"
out=$(XPERF_TRACE_DIR="$py_dir" LD_PRELOAD="$preload" ASAN_OPTIONS=detect_leaks=0 \
	python3 -B "$root/examples/python_agent.py")
echo "$out"
check python_agent "$py_dir" "$out"
