#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""agent.py PORT CA GATE CALLS - bench/daemon's python3 agent (the system libssl): waits for
the file GATE, makes one streaming call to the mock provider (the handshake, the first
call's one-off costs), prints "warm", waits for GATE.go, makes CALLS streaming calls on the
same connection, and prints its own CPU time over those (getrusage) as JSON."""
import http.client
import json
import os
import resource
import ssl
import sys
import time

port, ca, gate, calls = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
ctx = ssl.create_default_context(cafile=ca)


def wait(path):
    while not os.path.exists(path):
        time.sleep(0.01)


def call(conn, i):
    body = {"model": "gpt-test", "stream": True,
            "messages": [{"role": "user", "content": "bench call %d" % i}]}
    conn.request("POST", "/v1/chat/completions", json.dumps(body),
                 {"content-type": "application/json"})
    resp = conn.getresponse()
    if resp.status != 200 or not resp.read():
        sys.exit(2)


wait(gate)
conn = http.client.HTTPSConnection("localhost", port, context=ctx)
call(conn, 0)
print("warm", flush=True)
wait(gate + ".go")
r0 = resource.getrusage(resource.RUSAGE_SELF)
for i in range(calls):
    call(conn, i + 1)
r1 = resource.getrusage(resource.RUSAGE_SELF)
cpu = (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)
print(json.dumps({"cpu_us": round(cpu * 1e6)}), flush=True)
