#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""client.py PORT CA BODY_BYTES RESP_BYTES - python3 ssl client for the capture tests.

Two keep-alive requests over http.client: the first sends its body in uneven
chunks (conn.send), the second is small.
"""
import http.client
import ssl
import sys

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
conn.request("GET", "/py2", headers={"X-Resp-Bytes": "3000"})
assert len(conn.getresponse().read()) == 3000
conn.close()
