#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_locate.py TMP [--mock RUN...] [--cached RUN] [--replaced] [--h2 RUN]
[--negative RUN] - the checks of locate_bun_test.sh and locate_go_test.sh.
Each RUN is one traced run of TMP/agent (a Bun- or Go-built client):
TMP/RUN.jsonl (--raw), TMP/RUN/<session>/ (capture.json, turns) and
TMP/RUN.bytes/ (the server's bytes of its one connection). --mock runs (and
--cached, after them) made two requests each to the mock provider, in order;
--h2 made one to h2_server.py."""
import argparse
import glob
import json
import os
import sys

from raw_payloads import exact


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
ap.add_argument("--negative")
args = ap.parse_args()
errors = positive(args.tmp, args) + (negative(args.tmp, args.negative) if args.negative else [])
for e in errors:
    print("FAIL:", e)
sys.exit(1 if errors else 0)
