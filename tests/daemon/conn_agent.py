#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""conn_agent.py PORT CA CONNS - an agent that opens CONNS TLS connections to the mock
provider one after another, makes one streaming call on each and keeps every one
open (idle) until it has made them all, then closes them and exits: with a cap of
M connections per agent, the daemon must evict CONNS - M of them in each tier.
DELAY_S before the first connection, HOLD_S after the last is closed; SPAWN: that
many short processes (/bin/true, one after another) before the first connection."""
import http.client
import json
import os
import ssl
import subprocess
import sys
import time

port, ca, n = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
time.sleep(float(os.environ.get("DELAY_S", "0")))
for _ in range(int(os.environ.get("SPAWN", "0"))):
    subprocess.run(["/bin/true"], check=True)
ctx = ssl.create_default_context(cafile=ca)
conns = []
for i in range(n):
    conn = http.client.HTTPSConnection("localhost", port, context=ctx)
    body = {"model": "gpt-test", "stream": True,
            "messages": [{"role": "user", "content": "connection %d" % i}]}
    conn.request("POST", "/v1/chat/completions", json.dumps(body),
                 {"content-type": "application/json"})
    resp = conn.getresponse()
    if resp.status != 200 or not resp.read():
        sys.exit(2)
    conns.append(conn)
for conn in conns:
    conn.close()
print("connections", len(conns), flush=True)
time.sleep(float(os.environ.get("HOLD_S", "0")))
