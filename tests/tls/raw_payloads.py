# SPDX-License-Identifier: MIT
"""raw_payloads.py - for the tests that read an `xperf-bpf --raw` dump: the
server's connection logs and the payload bytes of tls_data records."""
import base64
import glob
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
