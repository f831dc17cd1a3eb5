#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""agent.py PORT CA GATE CALLS - bench/daemon's python3 agent (the system libssl): waits for
the file GATE, makes CALLS streaming calls to the mock provider on one connection, and
prints its own CPU time over the calls (getrusage: no start-up in it) as JSON."""
import http.client
import json
import os
import resource
import ssl
import sys
import time

port, ca, gate, calls = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
ctx = ssl.create_default_context(cafile=ca)
while not os.path.exists(gate):
    time.sleep(0.01)
r0 = resource.getrusage(resource.RUSAGE_SELF)
conn = http.client.HTTPSConnection("localhost", port, context=ctx)
for i in range(calls):
    body = {"model": "gpt-test", "stream": True,
            "messages": [{"role": "user", "content": "bench call %d" % i}]}
    conn.request("POST", "/v1/chat/completions", json.dumps(body),
                 {"content-type": "application/json"})
    resp = conn.getresponse()
    if resp.status != 200 or not resp.read():
        sys.exit(2)
r1 = resource.getrusage(resource.RUSAGE_SELF)
cpu = (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)
print(json.dumps({"cpu_us": round(cpu * 1e6)}), flush=True)
