#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_restart.py TMP --agent PID - the assertions of restart_test.sh over
TMP/out/rnode/*/ (sessions), TMP/first.sha256 (the files as the first daemon left
them), TMP/rc1, TMP/rc2 and TMP/mock.jsonl (the mock's log: 4 requests, 2 before
the restart and 2 after)."""
import argparse
import glob
import hashlib
import json
import os

from checklib import done, expect, mock_received

ap = argparse.ArgumentParser()
ap.add_argument("tmp")
ap.add_argument("--agent", type=int, required=True)
a = ap.parse_args()


out = os.path.join(a.tmp, "out")
for n in (1, 2):
    rc = int(open(os.path.join(a.tmp, "rc%d" % n)).read())
    expect(rc == 0, "daemon %d: exit status 0 on SIGTERM (got %d)" % (n, rc))
received = mock_received(a.tmp)
expect(len(received) == 4, "the mock received 4 requests (got %d)" % len(received))
sessions = sorted(os.path.dirname(c) for c in glob.glob(os.path.join(out, "rnode", "*",
                                                                        "capture.json")))
roots = [json.load(open(os.path.join(d, "capture.json")))["root_pid"] for d in sessions]
expect(len(sessions) == 2 and roots == [a.agent, a.agent],
       "two sessions, both of the agent (pid %d): %s" % (a.agent, roots))

# Nothing the first daemon wrote was touched: same files, same bytes.
changed = []
for line in open(os.path.join(a.tmp, "first.sha256")):
    digest, path = line.rstrip("\n").split("  ", 1)
    p = os.path.join(out, path)
    if not os.path.exists(p) or hashlib.sha256(open(p, "rb").read()).hexdigest() != digest:
        changed.append(path)
first_files = [line.split("  ", 1)[1].strip() for line in open(os.path.join(a.tmp, "first.sha256"))]
expect(first_files and not changed, "the first session's %d files unchanged after the restart "
       "(changed or gone: %s)" % (len(first_files), changed))


def calls(d):
    """LLM calls of a session's turns in plaintext: (start, end). The first
    session's last turn is open (complete: false: the agent waited on at SIGTERM),
    its call in it whole."""
    spans = []
    for f in sorted(glob.glob(os.path.join(d, "turn_*.json"))):
        t = json.load(open(f))
        if t["data_quality"]["tier"] == "plaintext":
            spans += [(s["start_ns"], s["end_ns"]) for s in t["spans"]
                      if s["stage"] == "llm_inference"]
    return spans


if len(sessions) == 2 and len(received) == 4:
    # Ordered by name: the second's has a later time or a -2 suffix.
    by_start = sorted(sessions, key=lambda d: min([s for s, _ in calls(d)] or [0]))
    for d, want, other, what in ((by_start[0], received[:2], received[2:], "first daemon"),
                                 (by_start[1], received[2:], received[:2], "second daemon")):
        c = calls(d)
        mine = all(any(s <= t <= e for s, e in c) for t in want)
        theirs = any(s <= t <= e for s, e in c for t in other)
        expect(len(c) == 2 and mine and not theirs,
               "%s's session %s: the 2 calls made while it ran, whole, and no other (%d calls)" %
               (what, os.path.basename(d), len(c)))
done()
