#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_per_process.py TMP OWN ALL - the checks of cli_per_process_test.sh:
TMP/{own,all}.jsonl payloads against the server's logs of its two
connections (credential redacted, as xperf-bpf keeps it), and the watcher's verdicts (OWN: with --tls-per-process, ALL:
without)."""
import json
import os
import sys

from raw_payloads import payload, redacted, server_conns

tmp, own, everyone = sys.argv[1], sys.argv[2], sys.argv[3]
errs = []
for run, conn in zip(("own", "all"), server_conns(tmp, 2)):
    recs = [json.loads(l) for l in open(os.path.join(tmp, run + ".jsonl"))]
    for d, path in (("write", conn), ("read", conn[:-3] + ".out")):
        got = payload(r for r in recs if r["type"] == "tls_data" and r["dir"] == d)
        want = redacted(open(path, "rb").read())
        print("%s %-5s captured %7d bytes, server %7d" % (run, d, len(got), len(want)))
        if got != want:
            errs.append("%s %s: capture differs from the server's bytes" % (run, d))
print("untraced watcher: breakpoint=%s with --tls-per-process, %s without" % (own, everyone))
if own != "0":
    errs.append("--tls-per-process: an untraced process held a breakpoint in SSL_write")
if everyone != "1":
    errs.append("control: without the flag the watcher saw no breakpoint (check is blind)")
for e in errs:
    print("FAIL:", e)
print("PASS" if not errs else "%d failure(s)" % len(errs))
sys.exit(1 if errs else 0)
