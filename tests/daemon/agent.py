#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""agent.py PORT CA [GATE] - a small agent for the daemon tests: CALLS streaming
LLM requests (default 2) to the mock provider over python3's ssl (the system
libssl). With GATE, waits for that file to exist first (an agent already
running when the daemon starts); DELAY_S before the first call; with HOLD_S, sleeps that long after its
calls (an agent still running, its last turn open, when the daemon stops); with
THEN_GATE, prints "phase 1" after its calls, waits for that file, then makes CALLS
more on the same connection (an agent that outlives a daemon restart)."""
import http.client
import json
import os
import ssl
import sys
import time

port, ca = int(sys.argv[1]), sys.argv[2]
if len(sys.argv) > 3:
    while not os.path.exists(sys.argv[3]):
        time.sleep(0.02)
time.sleep(float(os.environ.get("DELAY_S", "0")))
ctx = ssl.create_default_context(cafile=ca)
conn = http.client.HTTPSConnection("localhost", port, context=ctx)


def calls(first):
    for i in range(first, first + int(os.environ.get("CALLS", "2"))):
        body = {"model": "gpt-test", "stream": True,
                "messages": [{"role": "user", "content": "call %d of pid %d" % (i, os.getpid())}]}
        conn.request("POST", "/v1/chat/completions", json.dumps(body),
                     {"content-type": "application/json"})
        resp = conn.getresponse()
        if resp.status != 200 or not resp.read():
            sys.exit(2)


calls(0)
if os.environ.get("THEN_GATE"):
    print("phase 1", flush=True)
    while not os.path.exists(os.environ["THEN_GATE"]):
        time.sleep(0.02)
    calls(100)
print("done", flush=True)
time.sleep(float(os.environ.get("HOLD_S", "0")))
