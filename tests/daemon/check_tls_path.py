#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_tls_path.py TMP --rc N - the assertions of tls_path_test.sh over
TMP/out/tlsnode/*/ (sessions), TMP/raw.jsonl (every record read from the ring,
owned or not), TMP/mock.jsonl (the mock provider's log) and TMP/NAME.pid."""
import argparse
import glob
import json
import os
import re

from checklib import done, expect, jsonl, sessions_by_root

ap = argparse.ArgumentParser()
ap.add_argument("tmp")
ap.add_argument("--rc", type=int, required=True)
a = ap.parse_args()

pid = {n: int(open(os.path.join(a.tmp, n + ".pid")).read()) for n in ("adopted", "stranger")}
by_pid = {}
for r in jsonl(os.path.join(a.tmp, "raw.jsonl")):
    if "tgid" in r:
        by_pid.setdefault(r["tgid"], []).append(r)
sessions = sessions_by_root(os.path.join(a.tmp, "out"), "tlsnode")
log = jsonl(os.path.join(a.tmp, "mock.jsonl"))
probes = [e.get("path") for e in log if e["event"] == "probe"]
served = [(e["model"], e["input_tokens"], e["output_tokens"]) for e in log if e["event"] == "end"]
err = open(os.path.join(a.tmp, "daemon.err")).read()


def llm_calls(d):
    """(model, input tokens, output tokens) of the LLM spans of turns whole in plaintext."""
    out = []
    for f in sorted(glob.glob(os.path.join(d, "turn_*.json")) if d else []):
        t = json.load(open(f))
        whole = t["complete"] and t["data_quality"]["tier"] == "plaintext"
        out += [(s["attributes"].get("gen_ai.response.model"),
                 s["attributes"].get("gen_ai.usage.input_tokens"),
                 s["attributes"].get("gen_ai.usage.output_tokens"))
                for s in t["spans"] if whole and "gen_ai.provider.name" in s.get("attributes", {})]
    return out


expect(a.rc == 0, "daemon exit status 0 on SIGTERM (got %d)" % a.rc)
expect(probes == ["/health", "/health"] and len(served) == 2,
       "the mock answered 2 /health probes and 2 model calls (%s, %d)" % (probes, len(served)))

recs = by_pid.get(pid["adopted"], [])
first = recs[0] if recs else {}
expect(pid["adopted"] in sessions, "adopted (pid %d): a session of its own" % pid["adopted"])
expect(first.get("type") == "sock_discover" and first.get("rule") == "path" and
       first.get("name") == "/v1/messages" and first.get("sock_id") == 0,
       "adopted: its first record in the ring is the kernel's discovery at an SSL write "
       "(path /v1/messages, no socket): %s" %
       {k: first.get(k) for k in ("type", "rule", "name", "sock_id")})
got = llm_calls(sessions.get(pid["adopted"]))
expect(got == served and len(got) == 2,
       "adopted: its 2 calls, the first included, whole in plaintext with the mock's "
       "(model, input tokens, output tokens): %s, mock %s" % (got, served))

expect(pid["stranger"] not in sessions and pid["stranger"] not in by_pid,
       "stranger (pid %d, TLS to /health): no session, none of its records in the ring (%s)" %
       (pid["stranger"], sorted({r["type"] for r in by_pid.get(pid["stranger"], [])})))
# The daemon watches the whole machine: another process posting to /v1/messages meanwhile
# (another test's agent) is traced too, with a discovery record of its own.
found = [r["tgid"] for recs in by_pid.values() for r in recs if r["type"] == "sock_discover"]
m = re.search(r"; (\d+) HTTP requests; \d+ unread\), (\d+) processes traced", err)
n = [int(x) for x in m.groups()] if m else []
expect(m and n[0] >= 3 and n[1] == len(found) and pid["adopted"] in found,
       "the daemon's counters: >= 3 request lines examined (2 of the stranger's, the "
       "adopted one's first), processes traced = discovery records in the ring (%s, %s)" %
       (n, found))
done()
