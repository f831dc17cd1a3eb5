#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""client.py PORT CA BODY_BYTES RESP_BYTES - python3 ssl client for the capture tests.

Two keep-alive requests over http.client: the first sends its body in uneven
chunks (conn.send), the second is small. With GATE set, creates GATE.ready
after the first and waits for GATE to exist before the second (attach tests).
IMPORT_DELAY_S: seconds between `import ssl` (which maps libssl) and the first
request, as an agent imports long before it calls (late-library tests).
WAIT_PROBED: instead, wait (60 s at most) until the five functions a tracer's
tls module probes (userspace/tls_probes.c, SSL_free the last) start with a
breakpoint (int3) in this process's libssl: under load they came later than
any fixed delay held.
"""
import ctypes
import http.client
import os
import ssl
import sys
import time


def wait_probed():
    lib = ctypes.CDLL("libssl.so.3")  # the one `import ssl` mapped
    names = ("SSL_write", "SSL_read", "SSL_write_ex", "SSL_read_ex", "SSL_free")
    code = [ctypes.cast(getattr(lib, n), ctypes.c_void_p).value for n in names]
    end = time.monotonic() + 60
    while any(ctypes.string_at(a, 1) != b"\xcc" for a in code) and time.monotonic() < end:
        time.sleep(0.01)


if os.environ.get("WAIT_PROBED"):
    wait_probed()
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
