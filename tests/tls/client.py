#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""client.py PORT CA BODY_BYTES RESP_BYTES - python3 ssl client for the capture tests.

Two keep-alive requests over http.client: the first sends its body in uneven
chunks (conn.send), the second is small. With GATE set, creates GATE.ready
after the first and waits for GATE to exist before the second (attach tests).
IMPORT_DELAY_S: seconds between `import ssl` (which maps libssl) and the first
request, as an agent imports long before it calls (late-library tests).
"""
import http.client
import os
import ssl
import sys
import time

time.sleep(float(os.environ.get("IMPORT_DELAY_S", "0")))
port, ca, body_len, resp = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
ctx = ssl.create_default_context(cafile=ca)
conn = http.client.HTTPSConnection("localhost", port, context=ctx)
body = bytes((i * 13 + 7) % 256 for i in range(body_len))
conn.putrequest("POST", "/py")
conn.putheader("Content-Length", str(body_len))
conn.putheader("X-Resp-Bytes", resp)
conn.putheader("Authorization", "Bearer not-a-real-key")
conn.endheaders()
off, chunk = 0, 777
while off < body_len:
    conn.send(body[off:off + chunk])
    off += chunk
    chunk = min(chunk * 3, 300000)
r = conn.getresponse()
assert len(r.read()) == int(resp)
gate = os.environ.get("GATE")
if gate:
    open(gate + ".ready", "w").close()
    while not os.path.exists(gate):
        time.sleep(0.05)
conn.request("GET", "/py2", headers={"X-Resp-Bytes": "3000"})
assert len(conn.getresponse().read()) == 3000
conn.close()
