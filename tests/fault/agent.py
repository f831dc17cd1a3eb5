#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""agent.py - the traced workload of the fault suite: an agent loop that streams
Anthropic-style answers from the mock provider over TLS and runs a tool (`true`)
after every answer, until SIGTERM or --calls. Each call is logged as a JSON line
(CLOCK_MONOTONIC ns): whether its answer arrived whole, and whether the first
byte of this process's SSL_write was an int3 (0xcc: a uprobe the kernel planted
here) just before and after it. Meant to run with a private copy of libssl
(LD_LIBRARY_PATH), so only the suite's own tracer ever plants one.

  agent.py --port N --ca CA.pem --log F [--calls N] [--die-mid-stream K]

--die-mid-stream K: call K (1-based) reads the head and the first bytes of
its streamed answer, then the agent SIGKILLs itself.
"""
import argparse
import ctypes
import http.client
import json
import os
import signal
import ssl
import subprocess
import sys
import time

stop = False


def on_term(sig, frame):
    global stop
    stop = True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--ca", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--calls", type=int, default=1 << 30)
    ap.add_argument("--die-mid-stream", type=int, default=0)
    a = ap.parse_args()
    signal.signal(signal.SIGTERM, on_term)
    ctx = ssl.create_default_context(cafile=a.ca)  # loads libssl before the lookup below
    libssl = [l.split()[-1] for l in open("/proc/self/maps") if "libssl.so" in l][0]
    ssl_write = ctypes.cast(ctypes.CDLL(libssl).SSL_write, ctypes.c_void_p).value
    trap = lambda: int(ctypes.string_at(ssl_write, 1) == b"\xcc")
    log = open(a.log, "a", buffering=1)
    body = json.dumps({"model": "mock", "stream": True, "max_tokens": 64,
                       "messages": [{"role": "user", "content": "hi"}]})
    conn = http.client.HTTPSConnection("localhost", a.port, context=ctx, timeout=30)
    print("libssl=%s" % libssl, flush=True)
    n = 0
    while not stop and n < a.calls:
        rec = {"t0_ns": time.monotonic_ns(), "trap0": trap(), "ok": False}
        try:
            conn.request("POST", "/v1/messages", body, {"Content-Type": "application/json"})
            resp = conn.getresponse()
            rec["status"] = resp.status
            if n + 1 == a.die_mid_stream:
                resp.read1(64)
                os.kill(os.getpid(), signal.SIGKILL)
            rec["ok"] = resp.status == 200 and b"event: message_stop" in resp.read()
            rec["tool"] = subprocess.run(["true"]).returncode
        except (OSError, http.client.HTTPException) as e:
            rec["error"] = repr(e)
            conn.close()
        rec.update(t1_ns=time.monotonic_ns(), trap1=trap())
        log.write(json.dumps(rec) + "\n")
        n += 1
    print("calls=%d" % n, flush=True)


if __name__ == "__main__":
    sys.exit(main())
