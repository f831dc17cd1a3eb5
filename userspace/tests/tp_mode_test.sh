#!/usr/bin/env bash
# tp_mode_test.sh - which tracepoint programs the kernel really runs, read
# back with bpftool while xperf-bpf traces a sleeper: tp_btf by default on
# this kernel, only raw_tp twins with --raw-tp (the fallback for kernels
# without tp_btf, otherwise never exercised here).
source "$(dirname "$(realpath "$0")")/lib.sh"

"$XB" record -q "${XB_OPTS[@]}" -- "$WL" sleep 3000 > /dev/null &
xb=$!
trap 'kill -INT $xb 2>/dev/null || true' EXIT
# Only the programs this xperf-bpf holds (other tracers may run on the
# machine); the sched object's switch handler is among the last loaded.
for _ in $(seq 100); do
	: > "$T/progs.jsonl"
	for id in $(cat /proc/$xb/fdinfo/* 2>/dev/null | sed -n 's/^prog_id:\s*//p' | sort -u); do
		bpftool prog show id "$id" -j >> "$T/progs.jsonl" 2>/dev/null && echo >> "$T/progs.jsonl"
	done
	grep -qE '"name":"switch_(btf|raw)"' "$T/progs.jsonl" && break
	sleep 0.05
done
wait $xb
trap - EXIT

want=btf
[[ " ${XB_OPTS[*]} " == *" --raw-tp "* ]] && want=raw
python3 - "$T/progs.jsonl" "$want" <<'PY'
import json, sys
progs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
want = sys.argv[2]
ours = {p["name"]: p["type"] for p in progs if p["type"] in ("tracing", "raw_tracepoint")}
kind = {"btf": "tracing", "raw": "raw_tracepoint"}
other = "raw" if want == "btf" else "btf"
print("tracepoint programs:", ours)
bad = [n for n in ours if n.endswith("_" + other)]
wrong = [n for n, t in ours.items() if n.endswith("_" + want) and t != kind[want]]
ok = "switch_" + want in ours and not bad and not wrong
print("PASS" if ok else "FAIL: want %s programs only (stray %s, wrong type %s)" % (want, bad, wrong))
sys.exit(not ok)
PY
