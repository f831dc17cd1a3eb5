#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_export.py - check an `xperf export` output against the turn files it came from.

usage: check_export.py chrome|otlp OFFSET OUT.json INPUT...
OFFSET: the --clock-offset-ns given to xperf export, or "anchors" (none given: each boot's first
clock anchor dates its turns).
INPUT: the turn files and session directories given to xperf export (read here with json).
Prints one line per kind of check and what it counted; exits 1 on the first failure.
"""
import collections
import json
import os
import re
import sys

GPU_PID_BASE = 1 << 30
HOST_KINDS = {"launch", "sync", "overhead"}
CLIENT_STAGES = {"llm_inference"}
# OpenTelemetry GenAI semantic conventions: stage -> (operation, subject attributes)
OPERATIONS = {"llm_inference": ("chat", ["gen_ai.request.model", "gen_ai.response.model"]),
              "tool_call": ("execute_tool", ["tool.name"])}
COMPLETION_PATHS = ("/api/generate", "/v1/completions")  # text_completion, not chat
RENAMES = {"tool.name": "gen_ai.tool.name",
           "gen_ai.server.time_to_first_token": "gen_ai.response.time_to_first_chunk"}


def otel_name(span, agent):
    """The span name and gen_ai.operation.name the conventions give a file span."""
    a = span.get("attributes", {})
    if span["stage"] not in OPERATIONS:
        tool = a.get("tool.name")
        return span["stage"] + (" " + tool if tool else ""), None
    op, subjects = OPERATIONS[span["stage"]]
    if any(a.get("url.path", "").endswith(p) for p in COMPLETION_PATHS):
        op = "text_completion"
    subject = next((a[k] for k in subjects if k in a), None)
    if subject is None and span["stage"] in CLIENT_STAGES:
        subject = agent.get("model")
    return op + (" " + subject if subject else ""), op


def otel_attrs(span):
    """The file's attributes as OpenTelemetry names them: {name: (value, file name)}."""
    a = span.get("attributes", {})
    out = {}
    for k, v in a.items():
        if span["stage"] not in OPERATIONS and k.startswith("gen_ai.usage."):
            out["xperf.usage." + k[len("gen_ai.usage."):]] = (v, k)
        elif k in RENAMES:
            if RENAMES[k] not in a:
                out[RENAMES[k]] = (v, k)
        elif k == "server.address":
            m = re.fullmatch(r"\[?(.*?)\]?:(\d+)", v)
            out[k] = (m.group(1) if m else v, k)
            if m and "server.port" not in a:
                out["server.port"] = (int(m.group(2)), k)
        else:
            out[k] = (v, k)
    return out


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def turns_of(inputs):
    """The turns in the order xperf export reads them."""
    out = []
    for p in inputs:
        if os.path.isdir(p):
            names = [n for n in os.listdir(p) if re.fullmatch(r"turn_\d+\.json", n)]
            for n in sorted(names, key=lambda n: int(n[5:-5])):
                out.append(json.load(open(os.path.join(p, n))))
        else:
            out.append(json.load(open(p)))
    return out


def offsets(turns, given):
    """Unix-epoch ns - CLOCK_MONOTONIC ns of each turn, as xperf export dates it: the given
    offset, or ("anchors") the first clock anchor of each boot in export order."""
    if given != "anchors":
        return [int(given)] * len(turns)
    first, out = {}, []
    for t in turns:
        a = t["clock_anchor"]
        off = a["realtime_ns"] - a["monotonic_ns"]
        out.append(first.setdefault(a["boot_id"], off) if "boot_id" in a else off)
    return out


def failed(span):
    a = span.get("attributes", {})
    return a.get("http.response.status_code", 0) >= 400 or a.get("process.exit.code", 0) != 0


# ---------------------------------------------------------------- chrome
def chrome_nesting(slices):
    tracks = collections.defaultdict(list)
    for e in slices:
        tracks[(e["pid"], e["tid"])].append((e["ts"], e["ts"] + e["dur"], e["name"]))
    for key, evs in tracks.items():
        evs.sort(key=lambda x: (x[0], -x[1]))
        stack = []
        for start, end, name in evs:
            while stack and stack[-1][1] <= start:
                stack.pop()
            check(not stack or end <= stack[-1][1],
                  "track %s: %s [%s, %s] overlaps %s without nesting" %
                  (key, name, start, end, stack[-1] if stack else None))
            stack.append((start, end, name))
    return len(tracks)


def token_series(turn, wall_us):
    """(ts, value) of the token counter for one turn: +1 per token, -n when a call ends."""
    steps = []
    for s in turn["spans"]:
        times = s.get("attributes", {}).get("xperf.token_times_ns", [])
        if times:
            steps += [(wall_us(s["start_ns"]), 0)] + [(wall_us(t), 1) for t in times]
            steps.append((wall_us(s["end_ns"]), -len(times)))
    steps.sort(key=lambda x: x[0])
    out, value = [], 0
    for k, (ts, d) in enumerate(steps):
        value += d
        if k + 1 == len(steps) or steps[k + 1][0] != ts:
            out.append((ts, value))
    return out


def check_chrome(offset, out_path, inputs):
    doc = json.load(open(out_path))
    check(doc.get("displayTimeUnit") == "ms", "displayTimeUnit")
    evs = doc["traceEvents"]
    by_ph = collections.defaultdict(list)
    for e in evs:
        by_ph[e["ph"]].append(e)
        if "ts" in e:  # viewers add ts + dur in floating point: whole microseconds only
            check(type(e["ts"]) is int and type(e.get("dur", 0)) is int, "ts/dur not whole us: %s" % e)
    check(all(e["dur"] > 0 for e in by_ph["X"]), "zero-length slice")
    procs = {e["args"]["name"]: e["pid"] for e in by_ph["M"] if e["name"] == "process_name"}
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in by_ph["M"] if e["name"] == "thread_name"}
    for e in by_ph["X"] + by_ph["i"]:
        check((e["pid"], e["tid"]) in names or e.get("s") == "p", "no thread_name for %s" % e)
        check(e["pid"] in procs.values(), "no process_name for %s" % e)
    turns = turns_of(inputs)
    offs = offsets(turns, offset)

    def pid_of(t):
        key = "%s %s" % (t["agent"]["name"], t["session_id"])
        check(key in procs, "no process named %r" % key)
        return procs[key]

    def slice_of(pid, key, name, start, end, off):
        a, b = (start + off) // 1000, (end + off) // 1000
        return (pid, key, name, a, b - a) if b > a else (pid, key, name, a, "instant")

    # every span exactly once, at its times (an instant when within one microsecond)
    want, got = collections.Counter(), collections.Counter()
    for t, off in zip(turns, offs):
        p = pid_of(t)
        want[slice_of(p, "turn", "turn %d" % t["turn_index"], t["start_ns"], t["end_ns"], off)] += 1
        for s in t["spans"]:
            want[slice_of(p, s["id"], s["stage"], s["start_ns"], s["end_ns"], off)] += 1
    spans = [e for e in by_ph["X"] + by_ph["i"] if e["cat"] == "turn" or "stage" in e.get("args", {})]
    for e in spans:
        key = "turn" if e["cat"] == "turn" else e["args"]["id"]
        stage = e["name"] if e["cat"] == "turn" else e["args"]["stage"]
        got[(e["pid"], key, stage, e["ts"], e["dur"] if e["ph"] == "X" else "instant")] += 1
    check(want == got, "spans differ: missing %s, extra %s" % (want - got, got - want))
    nspans = sum(len(t["spans"]) for t in turns)
    ninstant = sum(1 for e in spans if e["ph"] == "i")
    # the cat is the domain, the name the stage (+ tool), the category and L3 home in args;
    # a tool's own process is a track named after the tool
    main = {(pid_of(t), t["agent"]["pid"]) for t in turns}
    for e in spans:
        if e["cat"] != "turn":
            check(e["cat"] in ("compute", "intelligent", "fused"), "cat %s" % e)
            check(e["name"].split(" ")[0] == e["args"]["stage"] and "category" in e["args"], str(e))
            check("l3_home" in e["args"] or e["args"].get("custom_stage"), "no l3_home: %s" % e)
            tool = e["args"].get("attributes", {}).get("tool.name")
            name = names[(e["pid"], e["tid"])]
            if tool and (e["pid"], e["tid"]) not in main and "(overlap" not in name:
                check(name.startswith("tool %s (pid " % tool), "tool track named %r" % name)
    ntracks = chrome_nesting(by_ph["X"])
    print("chrome: %d turns, %d spans once each at their whole-us ts/dur (%d within 1 us: "
          "instants), %d tracks nested" % (len(turns), nspans, ninstant, ntracks))

    # a span's track: where its event is (for marks)
    track = {}
    for e in spans:
        if e["cat"] != "turn":
            track[(e["pid"], e["args"]["id"], e["ts"])] = e["tid"]
    want, got = collections.Counter(), collections.Counter()
    for t, off in zip(turns, offs):
        p = pid_of(t)
        by_id = {s["id"]: s for s in t["spans"]}
        for cat in ("waste", "fused"):
            for m in t[cat + "_marks"]:
                sp = by_id.get(m.get("span"))
                tid = track[(p, sp["id"], (sp["start_ns"] + off) // 1000)] if sp else None
                want[(p, tid, "%s: %s" % (cat, m["kind"]), (m["t_ns"] + off) // 1000)] += 1
    for e in by_ph["i"]:
        if "kind" in e["args"] and e["cat"] in ("waste", "fused"):
            got[(e["pid"], e["tid"] if e["s"] == "t" else None, e["name"], e["ts"])] += 1
    check(want == got, "marks differ: missing %s, extra %s" % (want - got, got - want))
    print("chrome: %d marks as instants at their times, on their span's track" % sum(want.values()))

    # tokens: +1 at each arrival, back to 0 when the calls in flight end
    want = collections.Counter()
    ntok = 0
    for t, off in zip(turns, offs):
        for ts, v in token_series(t, lambda ns: (ns + off) // 1000):
            want[(pid_of(t), ts, v)] += 1
        ntok += sum(len(s.get("attributes", {}).get("xperf.token_times_ns", [])) for s in t["spans"])
    got = collections.Counter((e["pid"], e["ts"], e["args"]["tokens"]) for e in by_ph["C"])
    check(want == got, "token counter differs: missing %s, extra %s" % (want - got, got - want))
    last = {}
    for e in by_ph["C"]:
        last[e["pid"]] = e["args"]["tokens"]
    check(all(v == 0 for v in last.values()), "token counter does not return to 0: %s" % last)
    print("chrome: %d token arrivals on the counter, back to 0 after each call" % ntok)

    # GPU activities on device tracks, flows from launches to device work
    want, got = collections.Counter(), collections.Counter()
    nflow_want = 0
    for t, off in zip(turns, offs):
        acts = t.get("gpu", {}).get("activities", [])
        launches = {a.get("correlation_id") for a in acts if a["kind"] == "launch"}
        for a in acts:
            tid = "host" if a["kind"] in HOST_KINDS else a.get("stream", 0)
            want[slice_of(GPU_PID_BASE + a.get("device", 0), tid, a.get("name", a["kind"]),
                          a["start_ns"], a["end_ns"], off)] += 1
            if a["kind"] not in HOST_KINDS and a.get("correlation_id") in launches and a.get("correlation_id"):
                nflow_want += 1
    starts = {}
    for e in by_ph["X"] + by_ph["i"]:
        if e["cat"] == "gpu":
            kind = "host" if names[(e["pid"], e["tid"])].startswith("host calls") else e["args"].get("stream", 0)
            got[(e["pid"], kind, e["name"], e["ts"], e["dur"] if e["ph"] == "X" else "instant")] += 1
            starts.setdefault((e["pid"], e["tid"], e["ts"]), e)
    check(want == got, "GPU differs: missing %s, extra %s" % (want - got, got - want))
    flows = collections.defaultdict(dict)
    for e in by_ph["s"] + by_ph["f"]:
        flows[e["id"]][e["ph"]] = e
    check(len(flows) == nflow_want, "%d flows, want %d" % (len(flows), nflow_want))
    for fid, f in flows.items():
        src, dst = starts.get((f["s"]["pid"], f["s"]["tid"], f["s"]["ts"])), \
            starts.get((f["f"]["pid"], f["f"]["tid"], f["f"]["ts"]))
        check(src and src["args"]["kind"] == "launch", "flow %s starts off a launch" % fid)
        check(dst and dst["args"]["kind"] not in HOST_KINDS and f["f"].get("bp") == "e",
              "flow %s ends off device work" % fid)
        check(src["args"]["correlation_id"] == dst["args"]["correlation_id"], "flow %s: ids" % fid)
    print("chrome: %d GPU activities on device tracks, %d launch->work flows" %
          (sum(want.values()), nflow_want))


# ---------------------------------------------------------------- otlp
ANY_KEYS = {"stringValue", "intValue", "doubleValue", "boolValue", "arrayValue"}


def any_value(v):
    check(isinstance(v, dict) and len(v) == 1 and set(v) <= ANY_KEYS, "AnyValue %r" % v)
    k, x = next(iter(v.items()))
    if k == "intValue":
        check(isinstance(x, str) and re.fullmatch(r"-?\d+", x), "intValue %r" % x)
        return int(x)
    if k == "arrayValue":
        return [any_value(e) for e in x["values"]]
    types = {"stringValue": str, "doubleValue": (int, float), "boolValue": bool}
    check(isinstance(x, types[k]) and (k == "boolValue") == isinstance(x, bool), "%s %r" % (k, x))
    return x


def attrs(span):
    out = {}
    for kv in span.get("attributes", []):
        check(kv["key"] not in out, "attribute %s twice" % kv["key"])
        out[kv["key"]] = any_value(kv["value"])
        out["@" + kv["key"]] = next(iter(kv["value"]))  # its type
    return out


def check_otlp(given, out_path, inputs):
    doc = json.load(open(out_path))
    spans = []
    for rs in doc["resourceSpans"]:
        res = attrs(rs["resource"])
        check(isinstance(res.get("service.name"), str), "resource without service.name")
        for ss in rs["scopeSpans"]:
            for sp in ss["spans"]:
                spans.append((res, sp))
    ids = set()
    traces = collections.defaultdict(list)
    for res, sp in spans:
        check(re.fullmatch(r"[0-9a-f]{32}", sp["traceId"]) and sp["traceId"] != "0" * 32, "traceId")
        check(re.fullmatch(r"[0-9a-f]{16}", sp["spanId"]) and sp["spanId"] != "0" * 16, "spanId")
        check("parentSpanId" not in sp or re.fullmatch(r"[0-9a-f]{16}", sp["parentSpanId"]), "parent")
        check(sp["spanId"] not in ids, "spanId %s twice" % sp["spanId"])
        ids.add(sp["spanId"])
        for k in ("startTimeUnixNano", "endTimeUnixNano"):
            check(isinstance(sp[k], str) and re.fullmatch(r"\d+", sp[k]), "%s %r" % (k, sp[k]))
        check(sp["kind"] in (1, 3), "kind %r" % sp["kind"])
        traces[sp["traceId"]].append((res, sp))
    # each trace a tree rooted at its turn span
    by_turn = {}
    for tid, members in traces.items():
        roots = [sp for _, sp in members if "parentSpanId" not in sp]
        check(len(roots) == 1, "trace %s has %d roots" % (tid, len(roots)))
        root = roots[0]
        ra = attrs(root)
        check(root["name"] == "invoke_agent %s" % ra["gen_ai.agent.name"] and
              ra["gen_ai.operation.name"] == "invoke_agent" and
              ra["gen_ai.conversation.id"] == ra["xperf.session_id"], "root %s" % root["name"])
        parent = {sp["spanId"]: sp.get("parentSpanId") for _, sp in members}
        for sid in parent:
            seen, cur = 0, sid
            while parent[cur] is not None:
                check(parent[cur] in parent, "parent %s outside trace %s" % (parent[cur], tid))
                cur, seen = parent[cur], seen + 1
                check(seen <= len(parent), "cycle in trace %s" % tid)
            check(cur == root["spanId"], "span %s not under the root" % sid)
        key = (ra["xperf.session_id"], ra["xperf.turn_index"])
        check(key not in by_turn, "turn %s in two traces" % (key,))
        by_turn[key] = (root, members)
    print("otlp: %d spans, ids valid hex and unique, %d traces each a tree under its turn span" %
          (len(spans), len(traces)))

    turns = turns_of(inputs)
    check(len(turns) == len(by_turn), "%d turns, %d traces" % (len(turns), len(by_turn)))
    nattr = nev = nerr = 0
    for t, offset in zip(turns, offsets(turns, given)):
        root, members = by_turn[(t["session_id"], t["turn_index"])]
        check(root["startTimeUnixNano"] == str(t["start_ns"] + offset) and
              root["endTimeUnixNano"] == str(t["end_ns"] + offset), "root times")
        by_id = {attrs(sp).get("xperf.span_id"): sp for _, sp in members if sp is not root}
        check(len(by_id) == len(t["spans"]), "turn %d: %d spans, want %d" %
              (t["turn_index"], len(by_id), len(t["spans"])))
        for s in t["spans"]:
            sp = by_id[s["id"]]
            a = attrs(sp)
            check(sp["startTimeUnixNano"] == str(s["start_ns"] + offset) and
                  sp["endTimeUnixNano"] == str(s["end_ns"] + offset), "span %d times" % s["id"])
            want_parent = by_id[s["parent"]]["spanId"] if s["parent"] else root["spanId"]
            check(sp["parentSpanId"] == want_parent, "span %d parent" % s["id"])
            check(sp["kind"] == (3 if s["stage"] in CLIENT_STAGES else 1), "span %d kind" % s["id"])
            name, op = otel_name(s, t["agent"])
            check(sp["name"] == name, "span %d named %r, want %r" % (s["id"], sp["name"], name))
            check(a.get("gen_ai.operation.name") == op and
                  (op is None or a["gen_ai.conversation.id"] == t["session_id"]),
                  "span %d gen_ai.operation.name %r" % (s["id"], a.get("gen_ai.operation.name")))
            check(a["xperf.stage"] == s["stage"] and a["xperf.domain"] == s["domain"] and
                  a["xperf.category"] == s["category"], "span %d xperf.*" % s["id"])
            if "tid" in s:
                check(a["thread.id"] == s["tid"] and a["@thread.id"] == "intValue", "thread.id")
            for k, (v, fk) in otel_attrs(s).items():
                check(a.get(k) == v, "span %d attribute %s: %r != %r" % (s["id"], k, a.get(k), v))
                want_type = {bool: "boolValue", str: "stringValue", list: "arrayValue",
                             float: "doubleValue"}.get(type(v), "intValue")
                if k == "gen_ai.response.time_to_first_chunk":
                    want_type = "doubleValue"
                elif isinstance(v, float) and v.is_integer():
                    want_type = "intValue"
                check(a["@" + k] == want_type, "span %d %s typed %s" % (s["id"], k, a["@" + k]))
                nattr += 1
            for k, v in s.get("sched", {}).items():
                check(a["xperf.sched." + k] == v, "sched %s" % k)
            for k, v in s.get("counters", {}).get("values", {}).items():
                check(a["xperf.counter." + k] == v, "counter %s" % k)
            st = sp.get("status")
            check((st or {}).get("code") == (2 if failed(s) else None), "span %d status %r" % (s["id"], st))
            nerr += failed(s)
        # marks as events on their span, or the root
        want, got = collections.Counter(), collections.Counter()
        for cat in ("waste", "fused"):
            for m in t[cat + "_marks"]:
                owner = by_id[m["span"]] if m.get("span") else root
                want[(owner["spanId"], "xperf.%s.%s" % (cat, m["kind"]), str(m["t_ns"] + offset))] += 1
        for _, sp in members:
            for ev in sp.get("events", []):
                attrs(ev)
                got[(sp["spanId"], ev["name"], ev["timeUnixNano"])] += 1
        check(want == got, "turn %d events: missing %s, extra %s" % (t["turn_index"], want - got, got - want))
        nev += sum(want.values())
    print("otlp: times = file ns + %s, %d file attributes with their values and types, "
          "%d marks as events, %d spans status ERROR" % (given, nattr, nev, nerr))


def main():
    check = check_chrome if sys.argv[1] == "chrome" else check_otlp
    check(sys.argv[2], sys.argv[3], sys.argv[4:])


if __name__ == "__main__":
    main()
