#!/usr/bin/env python3
# check_fleet.py - the figures a fleet tree must give, from ground truth, compared with
# what xperf produced:
#   check_fleet.py expect XPERF ROOT EXPECTED_JSON > metrics.json
#       every metric sample {name, labels, value}: per node/agent counts from the fixture
#       generator's expected.json (what it wrote into the files); per-category and per-L3
#       figures summed over `xperf analyze session` reports of each session (the fleet
#       must equal the sum of its sessions).
#   check_fleet.py report METRICS_JSON REPORT_JSON   the JSON fleet report agrees
#   check_fleet.py prom METRICS_JSON PROM_URL         a Prometheus server scraped them all
#   check_fleet.py usage XPERF PRICES SCRAPE SESSION_DIR...
#       the token and cost counters of a /metrics scrape (text) equal the sums, per node
#       (the session's parent directory) and agent, of `xperf analyze session --prices`
#       of the sessions given (cost to the nano-dollar the exporter counts in).
# Prints one line per mismatch; exits 1 on any.
import json
import os
import subprocess
import sys
import urllib.parse
import urllib.request


def sessions(root):
    for node in sorted(os.listdir(root)):
        nd = os.path.join(root, node)
        if node.startswith(".") or not os.path.isdir(nd) or os.path.islink(nd):
            continue
        for sess in sorted(os.listdir(nd)):
            sd = os.path.join(nd, sess)
            if not sess.startswith(".") and os.path.isdir(sd) and any(
                    f.startswith("turn_") and f.endswith(".json") for f in os.listdir(sd)):
                yield sd


USAGE = ("input", "output", "cache_read", "cache_write", "reasoning")


def analysis(xperf, sd, prices=None):
    """The session's own JSON report and its (node, agent) labels; None when it fails."""
    r = subprocess.run([xperf, "analyze", "session", sd, "--format", "json"] +
                       (["--prices", prices] if prices else []),
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        return None, None
    return json.loads(r.stdout), (os.path.basename(os.path.dirname(sd.rstrip("/"))),
                                  agent_of(sd))


def usage_samples(docs, add):
    """The token and cost counters per (node, agent): sums of the reports' `tokens`."""
    acc = {}
    for lab, doc in docs:
        a = acc.setdefault(lab, {})
        for w, u in (("", doc["tokens"]), ("waste_", doc["tokens"]["waste"])):
            for k in USAGE + ("calls", "unpriced_calls", "cost_usd"):
                a[w + k] = a.get(w + k, 0) + u[k]
    for (node, agent), a in acc.items():
        lab = {"node": node, "agent": agent}
        for w in ("", "waste_"):
            for k in USAGE:
                add("xperf_%stokens_total" % w, dict(lab, type=k), a[w + k])
            add("xperf_%scost_usd_total" % w, lab, a[w + "cost_usd"])
            add("xperf_%sllm_calls_total" % w, lab, a[w + "calls"])
            add("xperf_%sunpriced_llm_calls_total" % w, lab, a[w + "unpriced_calls"])


def parse_scrape(path):
    """A text exposition as {(name, frozenset(labels)): value}."""
    import re
    out = {}
    for line in open(path, encoding="utf-8"):
        m = re.match(r'(\w+)\{(.*)\} (\S+)$', line.rstrip("\n"))
        if m:
            labels = frozenset(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(2)))
            out[(m.group(1), labels)] = float(m.group(3))
    return out


def check_usage(xperf, prices, scrape, *dirs):
    got, want = parse_scrape(scrape), []
    docs = [analysis(xperf, sd, prices) for sd in dirs]
    usage_samples([(lab, doc) for doc, lab in docs if doc],
                  lambda n, lab, v: want.append((n, frozenset(lab.items()), v)))
    errs = []
    for name, labels, v in want:
        g = got.get((name, labels))
        tol = 1e-9 * len(dirs) if "cost" in name else 0  # each session to the nano-dollar
        if g is None or abs(g - v) > tol:
            errs.append("%s%s = %r, want %r" % (name, dict(labels), g, v))
    for e in errs:
        print("usage: " + e)
    priced = sum(v for n, _, v in want if n == "xperf_cost_usd_total")
    print("usage: %d token and cost samples equal %d sessions' analyses (cost %.6f USD)" %
          (len(want), len(dirs), priced))
    return 1 if errs or not want else 0


def expect(xperf, root, expected_path):
    with open(expected_path) as f:
        exp = json.load(f)
    out = []

    def add(name, labels, value):
        out.append({"name": name, "labels": labels, "value": value})

    for key, se in exp["series"].items():
        node, agent = key.split("/", 1)
        lab = {"node": node, "agent": agent}
        add("xperf_sessions", lab, se["sessions"])
        add("xperf_turns_total", lab, se["turns"])
        add("xperf_incomplete_turns_total", lab, se["incomplete"])
        add("xperf_turn_seconds_total", lab, se["wall_ns"] / 1e9)
    for node, nd in exp["nodes"].items():
        add("xperf_dropped_events_total", {"node": node}, nd["dropped"])
        add("xperf_invalid_files", {"node": node}, nd["invalid_files"])
    add("xperf_nodes", {}, len(exp["nodes"]))
    add("xperf_failed_sessions", {}, exp["failed_sessions"])
    l2, l3, sess, tok, hist, docs = {}, {}, {}, {}, {}, []
    for sd in sessions(root):
        doc, lab = analysis(xperf, sd)
        if doc is None:
            continue
        docs.append((lab, doc))
        for k in TOKENS:
            tok[k] = tok.get(k, 0) + doc["tokens"][k]
            tok["waste_" + k] = tok.get("waste_" + k, 0) + doc["tokens"]["waste"][k]
        for n in doc["l2"]:
            l2[lab + (n["id"],)] = l2.get(lab + (n["id"],), 0) + n["ns"]
        for p in doc["l3"]:
            t, ns = l3.get(lab + (p["id"],), (0, 0))
            fired = p.get("fired_turns", 0)
            l3[lab + (p["id"],)] = (t + fired, ns + p["ns"])
            sess[p["id"]] = sess.get(p["id"], 0) + (fired > 0)
        h = hist.setdefault(lab, {"turn": [], "ttft": []})
        for row in doc["turns"]:  # histograms: one turn-duration and one TTFT per turn
            h["turn"].append(row["wall_ns"] / 1e9)
            if row["ttft_ms"] >= 0:
                h["ttft"].append(row["ttft_ms"] / 1e3)
    for (node, agent, id_), ns in l2.items():
        dom, cat = id_.split(".")
        add("xperf_category_seconds_total",
            {"node": node, "agent": agent, "domain": dom, "category": cat}, ns / 1e9)
    for (node, agent, id_), (t, ns) in l3.items():
        add("xperf_bottleneck_turns_total", {"node": node, "agent": agent, "l3": id_}, t)
        add("xperf_bottleneck_seconds_total", {"node": node, "agent": agent, "l3": id_}, ns / 1e9)
    for id_, s in sess.items():
        add("xperf_bottleneck_sessions", {"l3": id_}, s)
    for (node, agent), h in hist.items():
        lab = {"node": node, "agent": agent}
        for name, key in (("xperf_turn_duration_seconds", "turn"), ("xperf_ttft_seconds", "ttft")):
            add(name + "_count", lab, len(h[key]))
            add(name + "_sum", lab, sum(h[key]))
            for le in BUCKETS[key] + ["+Inf"]:
                add(name + "_bucket", dict(lab, le=le),
                    sum(1 for v in h[key] if le == "+Inf" or v <= float(le) + 1e-12))
    usage_samples(docs, add)
    json.dump({"metrics": out, "expected": exp, "tokens": tok}, sys.stdout, indent=1)
    return 0


# OpenTelemetry GenAI's bucket edges (seconds): gen_ai.server.time_to_first_token and
# gen_ai.client.operation.duration (semantic-conventions-genai, metrics).
BUCKETS = {"ttft": ["0.001", "0.005", "0.01", "0.02", "0.04", "0.06", "0.08", "0.1", "0.25", "0.5",
                    "0.75", "1", "2.5", "5", "7.5", "10"],
           "turn": ["0.01", "0.02", "0.04", "0.08", "0.16", "0.32", "0.64", "1.28", "2.56", "5.12",
                    "10.24", "20.48", "40.96", "81.92"]}


def agent_of(sd):
    """agent.name of the session's first readable turn, as the fleet labels it."""
    for f in sorted(os.listdir(sd)):
        if f.startswith("turn_") and f.endswith(".json"):
            try:
                return json.load(open(os.path.join(sd, f)))["agent"]["name"]
            except (ValueError, KeyError, TypeError):
                continue
    return "unknown"


TOKENS = ("input", "output", "cache_read", "cache_write", "reasoning", "calls", "unpriced_calls",
          "cost_usd")


def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def check_report(metrics_path, report_path):
    with open(metrics_path) as f:
        m = json.load(f)
    with open(report_path) as f:
        rep = json.load(f)
    exp, errs = m["expected"], []
    t = rep["totals"]
    for k, e in (("sessions", "sessions"), ("turns", "turns"), ("incomplete_turns", "incomplete"),
                 ("wall_ns", "wall_ns"), ("dropped_events", "dropped"),
                 ("invalid_files", "invalid_files"), ("failed_sessions", "failed_sessions")):
        if t[k] != exp[e]:
            errs.append("totals.%s = %s, want %s" % (k, t[k], exp[e]))
    fired = {b["l3"]: b for b in rep["bottlenecks"]}
    l2 = {n["id"]: n["ns"] for n in rep["l2"]}
    turns_of, cat_of = {}, {}  # the metrics summed over node and agent
    for s in m["metrics"]:
        lab, v = s["labels"], s["value"]
        if s["name"] == "xperf_bottleneck_turns_total":
            turns_of[lab["l3"]] = turns_of.get(lab["l3"], 0) + v
        if s["name"] == "xperf_category_seconds_total":
            k = lab["domain"] + "." + lab["category"]
            cat_of[k] = cat_of.get(k, 0) + v
        if s["name"] == "xperf_bottleneck_sessions" and v:
            got = fired.get(lab["l3"], {}).get("sessions")
            if got != v:
                errs.append("bottleneck %s sessions %s, want %s" % (lab["l3"], got, v))
    for l3, v in turns_of.items():
        got = fired.get(l3, {}).get("turns")
        if v and got != v:
            errs.append("bottleneck %s turns %s, want %s" % (l3, got, v))
    for k, v in cat_of.items():
        got = l2.get(k, -1) / 1e9
        if not close(got, v):
            errs.append("l2 %s %s s, want %s" % (k, got, v))
    for k in TOKENS:  # tokens and cost: the sums of the sessions' own reports
        for got, want in ((rep["tokens"][k], m["tokens"][k]),
                          (rep["tokens"]["waste"][k], m["tokens"]["waste_" + k])):
            if not close(got, want):
                errs.append("tokens %s %s, want %s" % (k, got, want))
    turns = [b["turns"] for b in rep["bottlenecks"]]
    if turns != sorted(turns, reverse=True):
        errs.append("bottlenecks not ranked by turns: %s" % turns)
    for e in errs:
        print("report: " + e)
    print("report: checked %d totals, %d bottlenecks, %d categories" %
          (len(t), len(fired), len(l2)))
    return 1 if errs else 0


def query(url, q):
    u = url + "/api/v1/query?" + urllib.parse.urlencode({"query": q})
    with urllib.request.urlopen(u, timeout=10) as r:
        doc = json.load(r)
    if doc.get("status") != "success":
        raise RuntimeError("query %s: %s" % (q, doc))
    return doc["data"]["result"]


def check_prom(metrics_path, url):
    with open(metrics_path) as f:
        m = json.load(f)
    errs, names = [], sorted({s["name"] for s in m["metrics"]})
    for name in names:
        got = {}
        for r in query(url, name):
            lab = {k: v for k, v in r["metric"].items()
                   if k not in ("__name__", "job", "instance")}
            got[json.dumps(lab, sort_keys=True)] = float(r["value"][1])
        want = {json.dumps(s["labels"], sort_keys=True): float(s["value"])
                for s in m["metrics"] if s["name"] == name}
        for k, v in want.items():
            if k not in got:
                errs.append("%s%s missing" % (name, k))
            elif not close(got[k], v):
                errs.append("%s%s = %r, want %r" % (name, k, got[k], v))
        for k in got.keys() - want.keys():
            if name.startswith(("xperf_bottleneck", "xperf_category", "xperf_ttft",
                                "xperf_turn_duration")):
                if got[k] != 0:
                    errs.append("%s%s = %r, want 0" % (name, k, got[k]))
            else:
                errs.append("%s%s unexpected" % (name, k))
    for e in errs:
        print("prom: " + e)
    print("prom: checked %d samples of %d metrics" % (len(m["metrics"]), len(names)))
    return 1 if errs else 0


def main():
    cmd = sys.argv[1]
    if cmd == "expect":
        return expect(*sys.argv[2:5])
    if cmd == "report":
        return check_report(*sys.argv[2:4])
    if cmd == "prom":
        return check_prom(*sys.argv[2:4])
    if cmd == "usage":
        return check_usage(*sys.argv[2:])
    print("usage: check_fleet.py expect|report|prom|usage ...", file=sys.stderr)
    return 64


if __name__ == "__main__":
    sys.exit(main())
