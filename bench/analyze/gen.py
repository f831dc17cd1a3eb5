#!/usr/bin/env python3
# gen.py N DIR [JOBS] - writes a session of N TurnTrace turns (about 20 spans each, the
# shape of a coding agent's turn: orchestration around prompt assembly, an
# LLM call with TTFT and token times, response parsing, five tool calls with
# scheduler data and counters, state saves) into DIR/turn_NNN.json.
# Deterministic (each turn seeded by its index), compact JSON, valid against
# schema/turntrace.schema.json; JOBS processes write disjoint index ranges.
import json
import multiprocessing
import os
import random
import sys

MS = 1000000
NO_PMU = "no hardware PMU: perf_event_open ENOENT"
HW = ("instructions", "cycles", "l1d_misses", "llc_misses", "branch_misses",
      "branch_instructions")


def sched(dur, on):
    return {"on_cpu_ns": on, "runq_ns": (dur - on) // 10, "blocked_ns": dur - on - (dur - on) // 10}


def counters(on, rnd):
    return {"values": {"task_clock_ns": on, "context_switches": rnd.randint(1, 400),
                       "cpu_migrations": rnd.randint(0, 20), "page_faults": rnd.randint(10, 5000),
                       "major_faults": 0},
            "unavailable": {h: NO_PMU for h in HW}}


def turn(i, rnd):
    t, spans, marks, sid = 0, [], [], [0]

    def add(stage, dom, dur, parent=1, cat="processing", on=None, **extra):
        nonlocal t
        sid[0] += 1
        s = {"id": sid[0], "parent": parent, "stage": stage, "domain": dom, "category": cat,
             "start_ns": t, "end_ns": t + dur, "tid": 4242}
        if on is not None:
            s["sched"] = sched(dur, on)
            s["counters"] = counters(on, rnd)
        s.update(extra)
        spans.append(s)
        t += dur
        return s

    root = {"id": 1, "parent": None, "stage": "orchestration", "domain": "compute",
            "category": "processing", "start_ns": 0, "end_ns": 0}
    spans.append(root)
    sid[0] = 1
    inp = 2000 + 400 * i
    add("prompt_assembly", "compute", rnd.randint(2, 20) * MS, on=rnd.randint(1, 2) * MS,
        attributes={"gen_ai.usage.input_tokens": inp})
    add("context_compress", "compute", rnd.randint(1, 5) * MS, on=MS)
    add("prompt_transfer", "fused", rnd.randint(5, 40) * MS, cat="supply")
    ttft = rnd.randint(300, 2500) * MS
    dur = ttft + rnd.randint(500, 4000) * MS
    out = rnd.randint(50, 400)
    start = t
    toks = sorted(start + ttft + rnd.randint(0, dur - ttft) for _ in range(12))
    add("llm_inference", "intelligent", dur, attributes={
        "gen_ai.provider.name": "anthropic", "gen_ai.request.model": "m",
        "gen_ai.usage.input_tokens": inp, "gen_ai.usage.output_tokens": out,
        "gen_ai.usage.cache_read.input_tokens": inp // 2, "xperf.ttft_ns": ttft,
        "http.response.status_code": 200, "xperf.stream": True, "xperf.token_times_ns": toks})
    add("response_parse", "compute", rnd.randint(1, 4) * MS, on=MS,
        attributes={"gen_ai.usage.output_tokens": out})
    for k in range(5):
        d = rnd.randint(20, 900) * MS
        failed = rnd.random() < 0.1
        s = add("tool_call", "compute", d, on=rnd.randint(1, d // MS) * MS,
                attributes={"tool.name": "bash", "process.command_line": "make test %d" % k,
                            "process.exit.code": 2 if failed else 0})
        if failed:
            marks.append({"kind": "failed_tool_call", "l3": "compute.waste.failed_tool_call",
                          "span": s["id"], "t_ns": s["end_ns"], "counts": {"failed_calls": 1},
                          "attributes": {}})
        add("orchestration", "compute", rnd.randint(1, 3) * MS, on=MS)
    add("state_serialize", "compute", rnd.randint(1, 6) * MS, on=MS)
    add("memory_ops", "compute", rnd.randint(1, 6) * MS, on=MS)
    add("waiting", "compute", rnd.randint(1, 50) * MS, cat="supply", on=0)
    root["end_ns"] = t
    return {"schema_version": "1.0", "session_id": "bench", "turn_index": i, "complete": True,
            "source": "sdk", "clock": "CLOCK_MONOTONIC", "start_ns": 0, "end_ns": t,
            "agent": {"name": "bench", "pid": 4242}, "spans": spans,
            "fused_marks": [{"kind": "ttft", "t_ns": start + ttft, "span": 5,
                             "attributes": {"ttft_ns": ttft}}],
            "waste_marks": marks,
            "data_quality": {"tier": "sdk", "dropped_events": 0, "truncated_payloads": 0,
                             "warnings": []}}


def write(args):
    d, first, last, width = args
    for i in range(first, last + 1):
        with open(os.path.join(d, "turn_%0*d.json" % (width, i)), "w") as f:
            json.dump(turn(i, random.Random(i)), f, separators=(",", ":"))


def main():
    n, d = int(sys.argv[1]), sys.argv[2]
    jobs = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    os.makedirs(d, exist_ok=True)
    width = max(3, len(str(n)))
    step = (n + jobs - 1) // jobs
    parts = [(d, a, min(n, a + step - 1), width) for a in range(1, n + 1, step)]
    with multiprocessing.Pool(jobs) as pool:
        pool.map(write, parts)
    return 0


if __name__ == "__main__":
    sys.exit(main())
