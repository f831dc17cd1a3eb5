#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_export.py - check an `xperf export` output against the turn files it came from.

usage: check_export.py chrome OUT.json INPUT...
       check_export.py otlp OFFSET_NS OUT.json INPUT...
INPUT: the turn files and session directories given to xperf export (read here with json).
Prints one line per kind of check and what it counted; exits 1 on the first failure.
"""
import collections
import json
import os
import re
import sys
from decimal import Decimal

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


def us(ns):
    return Decimal(ns) / 1000


def is_ns_precise(d):
    """ts/dur written as us with exactly three decimals (ns kept)."""
    return isinstance(d, Decimal) and d.as_tuple().exponent == -3


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


def check_chrome(out_path, inputs):
    doc = json.load(open(out_path), parse_float=Decimal)
    check(doc.get("displayTimeUnit") == "ms", "displayTimeUnit")
    evs = doc["traceEvents"]
    by_ph = collections.defaultdict(list)
    for e in evs:
        by_ph[e["ph"]].append(e)
    procs = {e["args"]["name"]: e["pid"] for e in by_ph["M"] if e["name"] == "process_name"}
    threads = {(e["pid"], e["tid"]) for e in by_ph["M"] if e["name"] == "thread_name"}
    for e in by_ph["X"]:
        check(is_ns_precise(e["ts"]) and is_ns_precise(e["dur"]), "ts/dur not us.nnn: %s" % e)
        check((e["pid"], e["tid"]) in threads, "no thread_name for %s" % e)
        check(e["pid"] in procs.values(), "no process_name for %s" % e)
    turns = turns_of(inputs)

    def pid_of(t):
        key = "%s %s" % (t["agent"]["name"], t["session_id"])
        check(key in procs, "no process named %r" % key)
        return procs[key]

    # every span exactly once, at its times; every turn once
    want, got = collections.Counter(), collections.Counter()
    for t in turns:
        p = pid_of(t)
        want[(p, "turn", "turn %d" % t["turn_index"], us(t["start_ns"]), us(t["end_ns"] - t["start_ns"]))] += 1
        for s in t["spans"]:
            want[(p, s["id"], s["stage"], us(s["start_ns"]), us(s["end_ns"] - s["start_ns"]))] += 1
    for e in by_ph["X"]:
        if e["cat"] == "gpu":
            continue
        key = "turn" if e["cat"] == "turn" else e["args"]["id"]
        stage = e["name"] if e["cat"] == "turn" else e["args"]["stage"]
        got[(e["pid"], key, stage, e["ts"], e["dur"])] += 1
    check(want == got, "spans differ: missing %s, extra %s" % (want - got, got - want))
    nspans = sum(len(t["spans"]) for t in turns)
    # the cat is the domain, the name the stage (+ tool), the category and L3 home in args
    for e in by_ph["X"]:
        if e["cat"] not in ("gpu", "turn"):
            check(e["cat"] in ("compute", "intelligent", "fused"), "cat %s" % e)
            check(e["name"].split(" ")[0] == e["args"]["stage"] and "category" in e["args"], str(e))
            check("l3_home" in e["args"] or e["args"].get("custom_stage"), "no l3_home: %s" % e)
    ntracks = chrome_nesting(by_ph["X"])
    print("chrome: %d turns, %d spans once each at exact ts/dur, %d tracks nested" %
          (len(turns), nspans, ntracks))

    # a span's track: where its X event is (for marks)
    track = {}
    for e in by_ph["X"]:
        if e["cat"] not in ("gpu", "turn"):
            track[(e["pid"], e["args"]["id"], e["ts"])] = e["tid"]
    want, got = collections.Counter(), collections.Counter()
    for t in turns:
        p = pid_of(t)
        spans = {s["id"]: s for s in t["spans"]}
        for cat in ("waste", "fused"):
            for m in t[cat + "_marks"]:
                sp = spans.get(m.get("span"))
                tid = track[(p, sp["id"], us(sp["start_ns"]))] if sp else None
                want[(p, tid, "%s: %s" % (cat, m["kind"]), us(m["t_ns"]))] += 1
    for e in by_ph["i"]:
        got[(e["pid"], e["tid"] if e["s"] == "t" else None, e["name"], e["ts"])] += 1
    check(want == got, "marks differ: missing %s, extra %s" % (want - got, got - want))
    print("chrome: %d marks as instants at their times, on their span's track" % sum(want.values()))

    # token arrivals: the counter reaches k at the k-th token's time
    counters = {(e["pid"], e["ts"], e["args"]["tokens"]) for e in by_ph["C"]}
    ntok = 0
    for t in turns:
        for s in t["spans"]:
            for k, tn in enumerate(s.get("attributes", {}).get("xperf.token_times_ns", []), 1):
                check((pid_of(t), us(tn), k) in counters, "no token counter %d at %d" % (k, tn))
                ntok += 1
    print("chrome: %d token arrivals on the counter" % ntok)

    # GPU activities on device tracks, flows from launches to device work
    want, got = collections.Counter(), collections.Counter()
    nflow_want = 0
    for t in turns:
        acts = t.get("gpu", {}).get("activities", [])
        launches = {a.get("correlation_id") for a in acts if a["kind"] == "launch"}
        for a in acts:
            tid = "host" if a["kind"] in HOST_KINDS else a.get("stream", 0)
            want[(GPU_PID_BASE + a.get("device", 0), tid, a.get("name", a["kind"]),
                  us(a["start_ns"]), us(a["end_ns"] - a["start_ns"]))] += 1
            if a["kind"] not in HOST_KINDS and a.get("correlation_id") in launches and a.get("correlation_id"):
                nflow_want += 1
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in by_ph["M"] if e["name"] == "thread_name"}
    starts = {}
    for e in by_ph["X"]:
        if e["cat"] == "gpu":
            kind = "host" if names[(e["pid"], e["tid"])].startswith("host calls") else e["args"].get("stream", 0)
            got[(e["pid"], kind, e["name"], e["ts"], e["dur"])] += 1
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


def check_otlp(offset, out_path, inputs):
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
    for t in turns:
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
    print("otlp: times = file ns + %d, %d file attributes with their values and types, "
          "%d marks as events, %d spans status ERROR" % (offset, nattr, nev, nerr))


def main():
    if sys.argv[1] == "chrome":
        check_chrome(sys.argv[2], sys.argv[3:])
    else:
        check_otlp(int(sys.argv[2]), sys.argv[3], sys.argv[4:])


if __name__ == "__main__":
    main()
