#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_discover_net.py TMP --rc N - the assertions of discover_net_test.sh over
TMP/out/netnode/*/ (sessions), TMP/raw.jsonl (every record read from the ring,
owned or not), TMP/mock.jsonl (the mock provider's log: the agents ran one after
the other, two requests each, in the order below), TMP/plain/log.jsonl (the
plaintext server's log, with each request's client port) and TMP/NAME.pid."""
import argparse
import glob
import json
import os
import re

from checklib import done, expect, jsonl, mock_received, sessions_by_root

ap = argparse.ArgumentParser()
ap.add_argument("tmp")
ap.add_argument("--rc", type=int, required=True)
for name in ("llm", "other", "path"):  # the run's own host names and path
    ap.add_argument("--" + name, required=True)
a = ap.parse_args()


def load(path):
    return jsonl(os.path.join(a.tmp, path))


pid = {n: int(open(os.path.join(a.tmp, n + ".pid")).read())
       for n in ("first", "second", "stranger", "plain_before", "reloaded", "dropped",
                 "plain_after")}
raw = [r for r in load("raw.jsonl") if "tgid" in r]
by_pid = {}
for r in raw:
    by_pid.setdefault(r["tgid"], []).append(r)
sessions = sessions_by_root(os.path.join(a.tmp, "out"), "netnode")
received = mock_received(a.tmp)
mock, at = {}, 0
for n, count in (("first", 3), ("second", 2), ("stranger", 2), ("reloaded", 2), ("dropped", 2)):
    mock[n], at = received[at:at + count], at + count
plain_log = load("plain/log.jsonl")
err = open(os.path.join(a.tmp, "daemon.err")).read()


def calls(name):
    """The llm_inference spans of the agent's turns: (start, end, complete and in plaintext)."""
    d = sessions.get(pid[name])
    out = []
    for f in sorted(glob.glob(os.path.join(d, "turn_*.json")) if d else []):
        t = json.load(open(f))
        whole = t["complete"] and t["data_quality"]["tier"] == "plaintext"
        out += [(s["start_ns"], s["end_ns"], whole) for s in t["spans"]
                if s["stage"] == "llm_inference"]
    return out


def matched(name, t_ns):
    """Whether one of the agent's LLM calls, whole in plaintext, spans the mock's receipt."""
    return any(s <= t_ns <= e and c for s, e, c in calls(name))


def socket_whole(name):
    """Every byte of every connection, from the first, in its sock_data records:
    their sum against the kernel's own counters at close (bytes acked, received)."""
    recs = by_pid.get(pid[name], [])
    ok = True
    closes = [r for r in recs if r["type"] == "sock_close"]
    for c in closes:
        data = [r for r in recs if r["type"] == "sock_data" and r["sock_id"] == c["sock_id"]]
        sent = sum(r["len"] for r in data if r["dir"] == "send")
        got = sum(r["len"] for r in data if r["dir"] == "recv")
        # bytes_acked counts the FIN too once the peer acked it
        ok = ok and c["bytes_sent"] - sent in (0, 1) and got == c["bytes_received"]
    return bool(closes) and ok


def discovered(name, rule, value):
    recs = by_pid.get(pid[name], [])
    first = recs[0] if recs else {}
    expect(pid[name] in sessions, "%s (pid %d): a session of its own" % (name, pid[name]))
    expect(first.get("type") == "sock_discover" and first.get("rule") == rule and
           first.get("name") == value,
           "%s: its first record in the ring is the kernel's discovery (%s %s): %s" %
           (name, rule, value, {k: first.get(k) for k in ("type", "rule", "name")}))
    expect(socket_whole(name), "%s: the socket tier has its connection whole, from its first "
           "byte (sock_data sums = the kernel's TCP counters at close)" % name)
    return recs


expect(a.rc == 0, "daemon exit status 0 on SIGTERM (got %d)" % a.rc)
expect(len(received) == 11, "the mock received 11 requests (got %d)" % len(received))

# The first agent, traced in the kernel at its ClientHello: the socket tier has its first
# call whole (every byte, each send and receive timed), and so has the plaintext tier: the
# node's libssl was probed at the daemon's start, before any agent (userspace/README.md).
recs = discovered("first", "host", a.llm)
sni = [r.get("sni") for r in recs if r["type"] == "sock_sni"]
expect(sni == [a.llm], "first: its ClientHello's server name in the session (%s)" % sni)
expect(recs and recs[0]["ts_ns"] < mock["first"][0],
       "first: traced before the mock received its first request")
for name in ("first", "second", "reloaded"):
    host = a.other if name == "reloaded" else a.llm
    if name != "first":
        discovered(name, "host", host)
    expect(all(matched(name, t) for t in mock[name]),
           "%s: every call a complete LLM call in plaintext spanning the mock's receipt "
           "(%d of %d)" % (name, sum(matched(name, t) for t in mock[name]), len(mock[name])))
# Plaintext HTTP by path.
recs = discovered("plain_after", "path", a.path)
ports = {r["sport"] for r in recs if r["type"] == "sock_data"}
served = [e for e in plain_log if e["client_port"] in ports]
expect(len(served) == 2 and all(e["path"] == a.path for e in served),
       "plain_after: the server's log has its 2 requests on the traced connection (%d)" %
       len(served))
# Never traced: no session, and not one record of theirs in the ring.
for name, why in (("stranger", "another host"), ("dropped", "the host of the replaced rules"),
                  ("plain_before", "a path before the rule existed")):
    expect(pid[name] not in sessions and pid[name] not in by_pid,
           "%s (pid %d, %s): no session, none of its records in the ring (%s)" %
           (name, pid[name], why, sorted({r["type"] for r in by_pid.get(pid[name], [])})))
expect(len(plain_log) == 4, "the plaintext server received 4 requests (got %d)" % len(plain_log))
m = re.search(r"network discovery: (\d+) connections examined \((\d+) ClientHellos, (\d+) "
              r"without a readable name; (\d+) HTTP requests; (\d+) unread\), (\d+) processes",
              err)
n = [int(x) for x in m.groups()] if m else []
expect(m and n[1] >= 5 and n[3] >= 2 and n[5] == 4,
       "the daemon's counters: >= 5 ClientHellos and >= 2 HTTP requests examined, "
       "4 processes traced (%s)" % n)
done()
