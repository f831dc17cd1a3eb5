#!/usr/bin/env python3
# make_fixtures.py - writes the fleet test tree testdata/fleet/<node>/<session>/turn_NNN.json
# and testdata/expected.json: the figures this generator knows by construction (turns,
# wall time, incomplete turns, dropped events, invalid files per node and agent), which
# the tests compare with `xperf fleet report` and with what Prometheus scraped.
import importlib.util
import json
import os
import shutil
import sys

MS = 1000000
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "fleet")
_spec = importlib.util.spec_from_file_location(
    "analyze_fixtures", os.path.join(HERE, "../../analyze/testdata/make_fixtures.py"))
_fx = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_fx)
span = _fx.span  # span(id, stage, domain, start_ms, end_ms, cat=, sched=(on, runq, blocked), attrs=)


def turn(sess, idx, agent, wall, failed_tool=False, slow_ttft=False, complete=True,
         dropped=0):
    """An LLM turn: prompt assembly, inference (TTFT mark), a tool call, orchestration."""
    t1, t2 = wall // 10, wall * 6 // 10
    ttft = (t2 - t1) * (9 if slow_ttft else 2) // 10
    spans = [
        span(1, "prompt_assembly", "compute", 0, t1, sched=(t1, 0, 0),
             attrs={"gen_ai.usage.input_tokens": 1000 * idx}),
        span(2, "llm_inference", "intelligent", t1, t2,
             attrs={"gen_ai.usage.input_tokens": 1000 * idx,
                    "gen_ai.usage.output_tokens": 50, "xperf.ttft_ns": ttft * MS,
                    "http.response.status_code": 200}),
        span(3, "tool_call", "compute", t2, wall - 10, sched=(wall - 10 - t2 - 5, 0, 5),
             attrs={"tool.name": "bash", "process.exit.code": 1 if failed_tool else 0}),
        span(4, "orchestration", "compute", wall - 10, wall, sched=(10, 0, 0)),
    ]
    marks = [{"kind": "failed_tool_call", "l3": "compute.waste.failed_tool_call", "span": 3,
              "t_ns": (wall - 10) * MS}] if failed_tool else []
    return {"schema_version": "1.0", "session_id": sess, "turn_index": idx,
            "complete": complete, "source": "ebpf" if dropped else "sdk",
            "clock": "CLOCK_MONOTONIC", "start_ns": 0, "end_ns": wall * MS,
            "agent": {"name": agent, "pid": 4242},
            "spans": spans,
            "fused_marks": [{"kind": "ttft", "t_ns": (t1 + ttft) * MS, "span": 2,
                             "attributes": {"ttft_ns": ttft * MS}}],
            "waste_marks": marks,
            "data_quality": {"tier": "plaintext" if dropped else "sdk",
                             "dropped_events": dropped, "truncated_payloads": 0,
                             "warnings": []}}


TRUNCATED = '{"schema_version": "1.0", "spans": [\n'
# node -> session -> list of turns (dicts) or invalid texts
TREE = {
    "gpu-node-a": {
        "sess-a1": [turn("sess-a1", 1, "claude-code", 6000),
                    turn("sess-a1", 2, "claude-code", 9000, failed_tool=True),
                    turn("sess-a1", 3, "claude-code", 4500, slow_ttft=True)],
        "sess-a2": [turn("sess-a2", 1, "aider", 5000, slow_ttft=True),
                    TRUNCATED,
                    turn("sess-a2", 3, "aider", 12000, failed_tool=True, slow_ttft=True)],
    },
    "gpu-node-b": {
        "sess-b1": [turn("sess-b1", 1, "claude-code", 7500, dropped=3),
                    turn("sess-b1", 2, "claude-code", 1500, complete=False, dropped=2)],
        "sess-b2": [TRUNCATED.replace("1.0", "2.0")],
    },
}


def main():
    shutil.rmtree(ROOT, ignore_errors=True)
    exp = {"sessions": 0, "turns": 0, "incomplete": 0, "wall_ns": 0, "dropped": 0,
           "invalid_files": 0, "failed_sessions": 0, "series": {}, "nodes": {}}
    for node, sessions in TREE.items():
        nd = exp["nodes"].setdefault(node, {"dropped": 0, "invalid_files": 0})
        for sess, turns in sessions.items():
            d = os.path.join(ROOT, node, sess)
            os.makedirs(d)
            valid = [t for t in turns if isinstance(t, dict)]
            for i, t in enumerate(turns, 1):
                with open(os.path.join(d, "turn_%03d.json" % i), "w") as f:
                    f.write(json.dumps(t, indent=1) + "\n" if isinstance(t, dict) else t)
            nd["invalid_files"] += len(turns) - len(valid)
            exp["invalid_files"] += len(turns) - len(valid)
            if not valid:
                exp["failed_sessions"] += 1
                continue
            key = node + "/" + valid[0]["agent"]["name"]
            se = exp["series"].setdefault(key, {"sessions": 0, "turns": 0, "incomplete": 0,
                                                "wall_ns": 0})
            se["sessions"] += 1
            exp["sessions"] += 1
            for t in valid:
                wall = t["end_ns"] - t["start_ns"]
                for k, v in (("turns", 1), ("incomplete", not t["complete"]),
                             ("wall_ns", wall)):
                    se[k] += v
                    exp[k] += v
                nd["dropped"] += t["data_quality"]["dropped_events"]
                exp["dropped"] += t["data_quality"]["dropped_events"]
    # Files that are not sessions: the walker must ignore them.
    with open(os.path.join(ROOT, "gpu-node-a", "sess-a1.analysis.json"), "w") as f:
        f.write("{}\n")
    hidden = os.path.join(ROOT, "gpu-node-b", ".partial")
    os.makedirs(hidden)
    with open(os.path.join(hidden, "turn_001.json"), "w") as f:
        f.write(json.dumps(turn("partial", 1, "hidden", 9000)) + "\n")
    with open(os.path.join(HERE, "expected.json"), "w") as f:
        json.dump(exp, f, indent=1, sort_keys=True)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
