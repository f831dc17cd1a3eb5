# SPDX-License-Identifier: MIT
"""checklib.py - what the daemon tests' check_*.py share: each assertion says
"ok" or "FAIL" with what it checked, done() the verdict as the exit status, and
readers of the files a test leaves (JSON lines, the mock provider's log, the
sessions' capture.json)."""
import glob
import json
import os
import sys

errs = []


def expect(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        errs.append(what)


def done():
    """PASS or the number of failures; exit 1 on any."""
    print("PASS" if not errs else "%d failure(s)" % len(errs))
    sys.exit(1 if errs else 0)


def jsonl(path):
    return [json.loads(line) for line in open(path)]


def mock_received(tmp):
    """When the mock provider received each request (its own log, TMP/mock.jsonl)."""
    return [e["t_ns"] for e in jsonl(os.path.join(tmp, "mock.jsonl"))
            if e.get("event") == "request_received"]


def sessions_by_root(out, node):
    """{root pid: session directory} of the daemon's sessions under OUT/NODE/."""
    return {json.load(open(cap))["root_pid"]: os.path.dirname(cap)
            for cap in glob.glob(os.path.join(out, node, "*", "capture.json"))}
