#!/usr/bin/env python3
# make_fixtures.py - writes the analyzer's hand-computed test turns and sessions.
# Times are given in ms here and written as integer ns. The expected answers,
# computed by hand from the rules in analyze/README.md, are in analyze_test.c
# (each fixture's comment there shows the arithmetic).
import json
import os
import sys

MS = 1000000
HERE = os.path.dirname(os.path.abspath(__file__))
NO_PMU = "no hardware PMU: perf_event_open ENOENT"


def span(i, stage, dom, a, b, parent=None, cat="processing", sched=None, attrs=None, **kw):
    s = {"id": i, "parent": parent, "stage": stage, "domain": dom, "category": cat,
         "start_ns": a * MS, "end_ns": b * MS}
    if sched:
        s["sched"] = {"on_cpu_ns": sched[0] * MS, "runq_ns": sched[1] * MS,
                      "blocked_ns": sched[2] * MS}
    if attrs:
        s["attributes"] = attrs
    s.update(kw)
    return s


def waste(kind, l3, span_id, t):
    return {"kind": kind, "l3": l3, "span": span_id, "t_ns": t * MS, "counts": {},
            "attributes": {}}


def turn(spans, wall, idx=1, source="sdk", marks=(), gpu=None, sess="t", complete=True,
         tier="sdk"):
    d = {"schema_version": "1.0", "session_id": sess, "turn_index": idx, "complete": complete,
         "source": source, "clock": "CLOCK_MONOTONIC", "start_ns": 0, "end_ns": wall * MS,
         "agent": {"name": "fixture", "pid": 1}, "spans": spans, "fused_marks": [],
         "waste_marks": list(marks),
         "data_quality": {"tier": tier, "dropped_events": 0, "truncated_payloads": 0,
                          "warnings": []}}
    if gpu:
        d["gpu"] = {"activities": gpu, "dropped_records": 0, "source": "cupti"}
    return d


def act(kind, a, b):
    return {"kind": kind, "name": kind, "start_ns": a * MS, "end_ns": b * MS, "device": 0,
            "stream": 7, "correlation_id": 1, "bytes": 0}


def llm(i, a, b, out, inp=None, ttft=None, status=200, parent=None, stage="llm_inference"):
    at = {"gen_ai.usage.output_tokens": out, "http.response.status_code": status}
    if inp is not None:
        at["gen_ai.usage.input_tokens"] = inp
    if ttft is not None:
        at["xperf.ttft_ns"] = ttft * MS
    return span(i, stage, "intelligent", a, b, parent=parent, attrs=at)


TURNS = {
    "overlap": turn([
        span(1, "prompt_assembly", "compute", 0, 600, sched=(600, 0, 0),
             attrs={"gen_ai.usage.input_tokens": 1000000}),
        span(2, "tool_call", "compute", 400, 900, sched=(100, 100, 300),
             attrs={"process.exit.code": 0})], 1000),
    "waste_in_llm": turn([
        llm(1, 0, 1000, 40, ttft=600),
        llm(2, 0, 300, 0, status=500, parent=1)], 1000,
        marks=[waste("llm_error", "intelligent.waste.llm_error", 2, 300)]),
    "missing_counters": turn([
        span(1, "tool_call", "compute", 0, 1000, sched=(900, 0, 100),
             attrs={"process.exit.code": 1},
             counters={"values": {"task_clock_ns": 900 * MS, "context_switches": 5000,
                                  "page_faults": 100, "major_faults": 0, "cpu_migrations": 10},
                       "unavailable": {c: NO_PMU for c in (
                           "instructions", "cycles", "l1d_misses", "llc_misses",
                           "branch_misses", "branch_instructions")}})], 1000),
    "hw_counters": turn([
        span(1, "tool_call", "compute", 0, 1000, sched=(1000, 0, 0),
             attrs={"process.exit.code": 3},
             counters={"values": {"task_clock_ns": 1000 * MS, "context_switches": 10,
                                  "cpu_migrations": 1, "page_faults": 50, "major_faults": 2,
                                  "instructions": 2e9, "cycles": 4e9, "l1d_misses": 5e7,
                                  "l1d_loads": 6e8, "llc_misses": 1e6, "llc_loads": 1e7,
                                  "branch_misses": 2e7, "branch_instructions": 4e8},
                       "unavailable": {}})], 1000),
    "no_spans": turn([], 500),
    "all_idle": turn([span(1, "waiting", "compute", 0, 1000, cat="supply",
                           sched=(0, 0, 1000))], 1000),
    "nested_tools": turn([
        span(1, "orchestration", "compute", 0, 1000),
        span(2, "tool_call", "compute", 100, 700, parent=1, sched=(300, 0, 300),
             attrs={"process.exit.code": 0}),
        span(3, "tool_call", "compute", 200, 400, parent=2, sched=(200, 0, 0),
             attrs={"process.exit.code": 2})], 1000,
        marks=[waste("failed_tool_call", "compute.waste.failed_tool_call", 3, 400)]),
    "ebpf": turn([
        span(1, "prompt_assembly", "compute", 0, 100, sched=(100, 0, 0)),
        span(2, "prompt_transfer", "fused", 100, 150, cat="supply", sched=(10, 0, 40)),
        span(3, "ttft", "fused", 150, 650, cat="supply", sched=(0, 0, 500)),
        span(4, "decode", "intelligent", 650, 1450, sched=(50, 0, 750),
             attrs={"gen_ai.usage.output_tokens": 20}),
        span(5, "streaming_gap", "fused", 900, 1100, cat="supply", sched=(0, 0, 200)),
        span(6, "response_parse", "intelligent", 1450, 1500, sched=(50, 0, 0)),
        span(7, "tool_call", "compute", 1500, 1800, sched=(60, 40, 200)),
        span(8, "orchestration", "compute", 1800, 1900, sched=(100, 0, 0)),
        span(9, "waiting", "compute", 1900, 2000, cat="supply", sched=(0, 0, 100))],
        2000, source="ebpf", tier="plaintext"),
    "ciphertext": dict(turn([
        span(1, "prompt_assembly", "compute", 0, 100, sched=(100, 0, 0)),
        span(2, "llm_inference", "intelligent", 100, 1500, attrs={"xperf.ttft_ns": 500 * MS}),
        span(3, "prompt_transfer", "fused", 100, 150, parent=2, cat="supply"),
        span(4, "ttft", "fused", 150, 650, parent=2, cat="supply"),
        span(5, "decode", "intelligent", 650, 1500, parent=2),
        span(6, "agent_subprocess", "compute", 1500, 1800, sched=(300, 0, 0),
             attrs={"process.exit.code": 1}),
        span(7, "waiting", "compute", 1800, 2000, cat="supply", sched=(0, 0, 200))],
        2000, source="ebpf", tier="ciphertext")),
    "measurability": turn([
        span(1, "waiting", "compute", 0, 400, cat="supply", sched=(0, 0, 400)),
        span(2, "tool_call", "compute", 400, 1000, sched=(600, 0, 0),
             attrs={"process.exit.code": 0})], 1000),
    "gpu": turn([llm(1, 0, 1000, 20, stage="decode")], 1000, gpu=[
        act("kernel", 100, 400), act("kernel", 300, 500), act("memcpy", 600, 700),
        act("sync", 700, 800), act("launch", 90, 100)]),
    "custom_stage": turn([span(1, "repo_index", "intelligent", 0, 1000, custom_stage=True)],
                         1000),
}


def session(name, turns):
    d = os.path.join(HERE, name)
    os.makedirs(d, exist_ok=True)
    for fname, t in turns:
        with open(os.path.join(d, fname), "w") as f:
            f.write(t if isinstance(t, str) else json.dumps(t, indent=1) + "\n")


def growth_turn(i, wall, ttft, inp):
    return turn([llm(1, 0, wall, 10, inp=inp, ttft=ttft)], wall, idx=i, sess="growth")


def ebpf_turn(i, failed, complete=True):
    spans = [span(1, "orchestration", "compute", 0, 200, sched=(200, 0, 0)),
             span(2, "tool_call", "compute", 200, 1000, sched=(700, 0, 100))]
    marks = [waste("failed_tool_call", "compute.waste.failed_tool_call", 2, 1000)] if failed else []
    return turn(spans, 1000, idx=i, source="ebpf", marks=marks, sess="ebpf",
                complete=complete, tier="ciphertext")


TURNS["ciphertext"]["data_quality"].update(non_llm_requests=1, tool_identity="unknown")


def main():
    for name, t in TURNS.items():
        with open(os.path.join(HERE, name + ".json"), "w") as f:
            json.dump(t, f, indent=1)
            f.write("\n")
    session("session_growth", [("turn_001.json", growth_turn(1, 1000, 100, 1000)),
                               ("turn_002.json", growth_turn(2, 3000, 200, 1500)),
                               ("turn_003.json", growth_turn(3, 2000, 300, 3000))])
    session("session_skip", [("turn_001.json", growth_turn(1, 1000, 100, 1000)),
                             ("turn_002.json", '{"schema_version": "1.0", "spans": [\n'),
                             ("turn_003.json", growth_turn(3, 2000, 300, 3000)),
                             ("notes.txt", "not a turn\n")])
    session("session_ebpf", [("turn_0001.json", ebpf_turn(1, True)),
                             ("turn_0002.json", ebpf_turn(2, False)),
                             ("turn_0004.json", ebpf_turn(4, True, complete=False))])
    return 0


if __name__ == "__main__":
    sys.exit(main())
