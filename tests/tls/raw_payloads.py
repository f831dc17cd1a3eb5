# SPDX-License-Identifier: MIT
"""raw_payloads.py - for the tests that read an `xperf-bpf --raw` dump: the
server's connection logs and the payload bytes of tls_data records."""
import base64
import glob
import json
import os
import sys


def server_conns(tmp, n):
    """The server's conn-*.in logs, oldest first; exits with FAIL unless n."""
    ins = sorted(glob.glob(os.path.join(tmp, "log", "conn-*.in")), key=os.path.getmtime)
    if len(ins) != n:
        sys.exit("FAIL: server saw %d connections, want %d" % (len(ins), n))
    return ins


def payload(records):
    """The payloads (text, or base64 where not UTF-8) of records, by position."""
    return b"".join(r["payload"].encode() if "payload" in r else
                    base64.b64decode(r["payload_base64"])
                    for r in sorted(records, key=lambda r: r["pos"]))


def redacted(data):
    """The server's bytes as xperf-bpf keeps them: client.py's credential
    header value redacted (userspace/redact.c)."""
    return data.replace(b"Authorization: Bearer not-a-real-key", b"Authorization: [redacted]")


def exact(tmp, run, conn):
    """Errors of the payloads of TMP/RUN.jsonl against the server's bytes of
    connection log conn (credential redacted), in both directions."""
    recs = [json.loads(l) for l in open(os.path.join(tmp, run + ".jsonl"))]
    bad = []
    for d, path in (("write", conn), ("read", conn[:-3] + ".out")):
        data = [r for r in recs if r["type"] == "tls_data" and r["dir"] == d]
        got, want = payload(data), redacted(open(path, "rb").read())
        print("%s %-5s captured %7d bytes, server %7d" % (run, d, len(got), len(want)))
        if got != want or (data and min(r["pos"] for r in data) != 0):
            bad.append("%s %s: captured %d bytes, server %d, not equal"
                       % (run, d, len(got), len(want)))
    return bad
