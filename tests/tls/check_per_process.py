#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_per_process.py TMP OWN ALL - the checks of cli_per_process_test.sh:
TMP/{own,all}.jsonl payloads against the server's logs of its two
connections (credential redacted, as xperf-bpf keeps it), and the watcher's
verdicts (OWN: with --tls-per-process, ALL: without)."""
import sys

from raw_payloads import exact, server_conns

tmp, own, everyone = sys.argv[1], sys.argv[2], sys.argv[3]
errs = []
for run, conn in zip(("own", "all"), server_conns(tmp, 2)):
    errs += exact(tmp, run, conn)
print("untraced watcher: breakpoint=%s with --tls-per-process, %s without" % (own, everyone))
if own != "0":
    errs.append("--tls-per-process: an untraced process held a breakpoint in SSL_write")
if everyone != "1":
    errs.append("control: without the flag the watcher saw no breakpoint (check is blind)")
for e in errs:
    print("FAIL:", e)
print("PASS" if not errs else "%d failure(s)" % len(errs))
sys.exit(1 if errs else 0)
