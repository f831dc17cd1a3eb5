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


H2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"


def h2_scrubbed(data):
    """An HTTP/2 stream as --capture-payloads keeps it (userspace/h2_scrub.h):
    the payload of every HEADERS, PUSH_PROMISE and CONTINUATION frame zeroed."""
    out = bytearray(data)
    i = len(H2_PREFACE) if out.startswith(H2_PREFACE) else 0
    while i + 9 <= len(out):
        n = int.from_bytes(out[i:i + 3], "big")
        if out[i + 3] in (1, 5, 9):
            out[i + 9:i + 9 + n] = bytes(len(out[i + 9:i + 9 + n]))
        i += 9 + n
    return bytes(out)


def exact(tmp, run, conn):
    """Errors of the payloads of TMP/RUN.jsonl against the server's bytes of
    connection log conn (credential redacted; HTTP/2 header blocks zeroed), in
    both directions."""
    recs = [json.loads(l) for l in open(os.path.join(tmp, run + ".jsonl"))]
    bad = []
    h2 = open(conn, "rb").read().startswith(H2_PREFACE)
    for d, path in (("write", conn), ("read", conn[:-3] + ".out")):
        data = [r for r in recs if r["type"] == "tls_data" and r["dir"] == d]
        got, want = payload(data), redacted(open(path, "rb").read())
        want = h2_scrubbed(want) if h2 else want
        print("%s %-5s captured %7d bytes, server %7d" % (run, d, len(got), len(want)))
        if got != want or (data and min(r["pos"] for r in data) != 0):
            bad.append("%s %s: captured %d bytes, server %d, not equal"
                       % (run, d, len(got), len(want)))
    return bad
