#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_daemon.py TMP --rc N --stop-ms N --before PID ... - the assertions of
daemon_test.sh over TMP/out/testnode/*/ (sessions), TMP/raw.jsonl (every record
that reached the ring, owned by an agent or not) and TMP/mock.jsonl (the mock
provider's own log of the requests it received)."""
import argparse
import glob
import json
import os

from checklib import done, expect, jsonl, mock_received, sessions_by_root

ap = argparse.ArgumentParser()
ap.add_argument("tmp")
for name in ("rc", "stop-ms", "before", "after", "plain", "held", "old-rule", "new-rule"):
    ap.add_argument("--" + name, type=int, required=True)
ap.add_argument("--quick", type=int, nargs="+", required=True)
a = ap.parse_args()


raw = jsonl(os.path.join(a.tmp, "raw.jsonl"))
by_pid = {}
for r in raw:
    by_pid.setdefault(r.get("tgid"), []).append(r)
sessions = sessions_by_root(os.path.join(a.tmp, "out"), "testnode")
requests = len(mock_received(a.tmp))


def turns(pid):
    d = sessions.get(pid)
    return [json.load(open(f)) for f in sorted(glob.glob(os.path.join(d, "turn_*.json")))] if d else []


def types(pid):
    return sorted({r["type"] for r in by_pid.get(pid, [])})


expect(a.rc == 0, "daemon exit status 0 on SIGTERM (got %d)" % a.rc)
expect(a.stop_ms < 5000, "daemon gone within 5 s of SIGTERM (%d ms)" % a.stop_ms)
expect(requests == 11, "the mock received 11 requests (got %d)" % requests)
for name, pid, calls in (("running before the daemon", a.before, 2),
                         ("started after the daemon", a.after, 2),
                         ("matched by the reloaded rule", a.new_rule, 2)):
    t = turns(pid)
    expect(pid in sessions, "%s (pid %d): a session of its own" % (name, pid))
    expect(len(t) == calls and all(x["complete"] for x in t),
           "%s: %d complete turns (got %d: %s)" % (name, calls, len(t),
                                                    [x["complete"] for x in t]))
    expect("tls_data" in types(pid) and "exit" in types(pid),
           "%s: its TLS plaintext and exit reached the ring (%s)" % (name, types(pid)))
t = turns(a.held)
expect(len(t) == 1 and t[0]["complete"] is False,
       "agent running at SIGTERM: its open turn written with complete: false (%s)" %
       [x["complete"] for x in t])
for name, pid in (("matching no rule", a.plain), ("matching only the replaced rule", a.old_rule)):
    expect(pid not in sessions, "%s (pid %d): no session" % (name, pid))
    expect(pid not in by_pid, "%s (pid %d): none of its records reached the ring (%s)" %
           (name, pid, types(pid)))
for pid in a.quick:
    ex = [r for r in by_pid.get(pid, []) if r["type"] == "exit"]
    life = ex[0]["duration_ns"] / 1e6 if ex else -1
    expect(pid in sessions and "exec" in types(pid) and ex and 0 < life < 100,
           "short-lived agent pid %d: a session, its exec and its exit (lived %.2f ms)" %
           (pid, life))
done()
