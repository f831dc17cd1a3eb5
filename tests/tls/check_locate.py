#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_locate.py TMP [--mock RUN...] [--cached RUN] [--replaced] [--h2 RUN]
[--negative RUN] - the checks of locate_bun_test.sh and locate_go_test.sh.
Each RUN is one traced run of TMP/agent (a Bun- or Go-built client):
TMP/RUN.jsonl (--raw), TMP/RUN/<session>/ (capture.json, turns) and
TMP/RUN.bytes/ (the server's bytes of its one connection). --mock runs (and
--cached, after them) made two requests each to the mock provider, in order;
--h2 made one to h2_server.py; --per-process ran two processes of one path
whose file was replaced between them; --attach attached between two calls;
--reference (a python3 client on libssl, run
last) made the same requests as the --mock runs, whose LLM spans must equal
its own but for times."""
import argparse
import glob
import json
import os
import sys

from raw_payloads import exact, payload


def capture(tmp, run):
    return json.load(open(glob.glob(os.path.join(tmp, run, "*", "capture.json"))[0]))


def located(tmp, run):
    """The capture.json entry of the traced agent executable."""
    ents = [e for e in capture(tmp, run)["modules"]["tls"]["located"]
            if e["file"].endswith("/agent")]
    return ents[0] if len(ents) == 1 else {"status": "absent: %r" % ents}


def llm_spans(tmp, run):
    """(provider, model, output tokens, tier) of every LLM span of the run's turns."""
    out = []
    for f in sorted(glob.glob(os.path.join(tmp, run, "*", "turn_*.json"))):
        t = json.load(open(f))
        for s in t["spans"]:
            a = s.get("attributes", {})
            if "gen_ai.provider.name" in a:
                out.append((a["gen_ai.provider.name"], a.get("gen_ai.response.model"),
                            a.get("gen_ai.usage.output_tokens"), t["data_quality"]["tier"]))
    return out


# What differs between two runs of the same requests: times, and the response
# size (the mock numbers its answers in message ids: "msg_9" vs "msg_10").
VARYING = ("_ns", "time", "http.response.body.size")


def content(tmp, run):
    """The LLM spans of a run without what varies between runs of the same
    requests: what a libssl client's must equal."""
    out = []
    for f in sorted(glob.glob(os.path.join(tmp, run, "*", "turn_*.json"))):
        for s in json.load(open(f))["spans"]:
            a = s.get("attributes", {})
            if "gen_ai.provider.name" in a:
                out.append({k: v for k, v in a.items() if not any(t in k for t in VARYING)})
    return out


def served(tmp):
    """(api, model, output tokens) of each answer the mock ended, in order."""
    ends = [json.loads(l) for l in open(os.path.join(tmp, "mock.jsonl"))]
    return [(e["api"], e["model"], e["output_tokens"]) for e in ends if e["event"] == "end"]


def check_run(tmp, run, answers):
    conns = glob.glob(os.path.join(tmp, run + ".bytes", "conn-*.in"))
    if len(conns) != 1:
        return ["%s: mock saw %d connections, want 1" % (run, len(conns))]
    errs = exact(tmp, run, conns[0])
    loc = located(tmp, run)
    if loc.get("status") != "trusted":
        errs.append("%s: located agent %s" % (run, loc))
    want = [(api, model, tokens, "plaintext") for api, model, tokens in answers]
    got = llm_spans(tmp, run)
    if got != want:
        errs.append("%s: LLM spans %s, mock served %s" % (run, got, want))
    print("%s: located %s (%s, %.1f ms%s), spans %s"
          % (run, loc.get("status"), loc.get("how"), loc.get("locate_ms", -1),
             ", cached" if loc.get("from_cache") else "", got))
    return errs


def positive(tmp, a):
    answers = served(tmp) if a.mock else []
    runs = a.mock + ([a.cached] if a.cached else [])
    errs = []
    for k, run in enumerate(runs):
        errs += check_run(tmp, run, answers[2 * k:2 * k + 2])
    if a.replaced and len({located(tmp, r).get("identity") for r in a.mock}) != len(a.mock):
        errs.append("replaced executables share identities")
    if a.cached and not located(tmp, a.cached).get("from_cache"):
        errs.append("second run of the same build was not located from the cache")
    if a.h2:
        errs += check_run(tmp, a.h2, [("anthropic", "claude-h2", 1)])
    if a.reference:
        ref = content(tmp, a.reference)
        for run in runs:
            got = content(tmp, run)
            if got != ref or len(ref) != 2:
                errs.append("%s: LLM spans differ from the libssl client's:\n  %s\n  %s"
                            % (run, got, ref))
        print("LLM spans of %s equal %s's (libssl) in content: %d attributes each"
              % (", ".join(runs), a.reference, sum(len(x) for x in ref)))
    return errs


def per_process(tmp, run):
    """Each process of the run that has plaintext: its bytes equal the server's
    log of its own connection (found by its local port); every located file
    (each identity once) trusted. For runs whose executable was replaced
    while a process ran it."""
    recs = [json.loads(l) for l in open(os.path.join(tmp, run + ".jsonl"))]
    port = int(open(os.path.join(tmp, "mock", "port")).read())
    errs, tgids = [], sorted({r["tgid"] for r in recs if r["type"] == "tls_data"})
    for tgid in tgids:
        sports = {r["sport"] for r in recs if r["type"] == "sock_data" and r["tgid"] == tgid
                  and r["dport"] == port}
        base = [os.path.join(tmp, run + ".bytes", "conn-%d" % p) for p in sports]
        if len(base) != 1:
            errs.append("%s: process %d used %d connections to the mock" % (run, tgid, len(base)))
            continue
        for d, ext in (("write", ".in"), ("read", ".out")):
            got = payload([r for r in recs if r["type"] == "tls_data" and r["tgid"] == tgid
                           and r["dir"] == d])
            want = open(base[0] + ext, "rb").read()
            print("%s: process %d %-5s captured %d bytes, server %d"
                  % (run, tgid, d, len(got), len(want)))
            if got != want:
                errs.append("%s: process %d %s differs from the server's" % (run, tgid, d))
    locs = [e for e in capture(tmp, run)["modules"]["tls"]["located"]
            if e["file"].endswith("/agent")]
    print("%s: located %s" % (run, [(e["identity"][:20], e["status"]) for e in locs]))
    if len(tgids) != 2 or len({e["identity"] for e in locs}) != 2 or \
            any(e["status"] != "trusted" for e in locs):
        errs.append("%s: want 2 processes and 2 identities, all trusted: %s, %s"
                    % (run, tgids, locs))
    return errs


def attached(tmp, run):
    """`attach --pid` between the agent's two calls on one keep-alive connection:
    each direction is exactly the server's bytes from the second call on."""
    recs = [json.loads(l) for l in open(os.path.join(tmp, run + ".jsonl"))]
    conns = glob.glob(os.path.join(tmp, run + ".bytes", "conn-*.in"))
    errs = [] if len(conns) == 1 else ["%s: %d connections" % (run, len(conns))]
    for d, ext, start in (("write", ".in", b"POST /v1/chat/completions "),
                          ("read", ".out", b"HTTP/1.1 200")):
        got = payload([r for r in recs if r["type"] == "tls_data" and r["dir"] == d])
        want = open(conns[0][:-3] + ext, "rb").read() if conns else b""
        print("%s %-5s captured %d bytes, server %d" % (run, d, len(got), len(want)))
        if not got.startswith(start) or not want.endswith(got) or len(got) == len(want):
            errs.append("%s %s: not the server's bytes from the second call on" % (run, d))
    loc = located(tmp, run)
    if loc.get("status") != "trusted":
        errs.append("%s: located agent %s" % (run, loc))
    return errs


def negative(tmp, run):
    recs = [json.loads(l) for l in open(os.path.join(tmp, run + ".jsonl"))]
    plain = [r for r in recs if r["type"] == "tls_data"]
    loc = located(tmp, run)
    err = open(os.path.join(tmp, run + ".err")).read()
    spans = llm_spans(tmp, run)
    errs = []
    if plain:
        errs.append("%s: %d plaintext records delivered" % (run, len(plain)))
    if loc.get("status") != "failed" or not loc.get("failed_check"):
        errs.append("%s: located agent %s, want failed with its check" % (run, loc))
    if err.count("failed the self-check") != 1:
        errs.append("%s: stderr does not say the failure once: %r" % (run, err))
    if len(spans) != 2 or any(s[3] != "ciphertext" for s in spans):
        errs.append("%s: spans %s, want 2 in the ciphertext tier" % (run, spans))
    print("%s: %s; stderr: %s" % (run, {k: loc.get(k) for k in ("status", "failed_function",
          "failed_check", "failed_detail")}, err.strip()))
    return errs


ap = argparse.ArgumentParser()
ap.add_argument("tmp")
ap.add_argument("--mock", nargs="*", default=[])
ap.add_argument("--cached")
ap.add_argument("--replaced", action="store_true")
ap.add_argument("--h2")
ap.add_argument("--reference", help="a python3/libssl run of the same requests, made last")
ap.add_argument("--negative")
ap.add_argument("--per-process", help="a run with two processes of a replaced executable")
ap.add_argument("--attach", help="an attach between two calls on one connection")
args = ap.parse_args()
errors = positive(args.tmp, args) + (negative(args.tmp, args.negative) if args.negative else [])
if args.per_process:
    errors += per_process(args.tmp, args.per_process)
if args.attach:
    errors += attached(args.tmp, args.attach)
for e in errors:
    print("FAIL:", e)
sys.exit(1 if errors else 0)
