#!/usr/bin/env bash
# tp_mode_test.sh - which tracepoint programs the kernel really runs, read
# back with bpftool while xperf-bpf traces a sleeper: tp_btf by default on
# this kernel, only raw_tp twins with --raw-tp (the fallback for kernels
# without tp_btf, otherwise never exercised here).
source "$(dirname "$(realpath "$0")")/lib.sh"

"$XB" record -q "${XB_OPTS[@]}" -- "$WL" sleep 3000 > /dev/null &
xb=$!
trap 'kill -INT $xb 2>/dev/null || true' EXIT
# The sched object's switch handler is loaded last of the tracepoints.
for _ in $(seq 100); do
	bpftool prog show -j > "$T/progs.json"
	grep -qE '"name":"switch_(btf|raw)"' "$T/progs.json" && break
	sleep 0.05
done
wait $xb
trap - EXIT

want=btf
[[ " ${XB_OPTS[*]} " == *" --raw-tp "* ]] && want=raw
python3 - "$T/progs.json" "$want" <<'PY'
import json, sys
progs, want = json.load(open(sys.argv[1])), sys.argv[2]
ours = {p["name"]: p["type"] for p in progs
        if p.get("name", "").split("_")[0] in ("fork", "exec", "exit", "switch", "wakeup")}
kind = {"btf": "tracing", "raw": "raw_tracepoint"}
other = "raw" if want == "btf" else "btf"
print("tracepoint programs:", ours)
bad = [n for n in ours if n.endswith("_" + other)]
wrong = [n for n, t in ours.items() if n.endswith("_" + want) and t != kind[want]]
ok = "switch_" + want in ours and not bad and not wrong
print("PASS" if ok else "FAIL: want %s programs only (stray %s, wrong type %s)" % (want, bad, wrong))
sys.exit(not ok)
PY
