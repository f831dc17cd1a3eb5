#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""net_agent.py PORT CA SNI [PATH] - an agent that matches no exec rule: CALLS
(default 2) streaming LLM requests to PATH (default /v1/chat/completions) on
one connection to 127.0.0.1:PORT. Over TLS with SNI as the server name its
ClientHello carries (the mock's certificate names localhost: verified against
CA, the name not checked); with SNI "-", plaintext HTTP (CA unused)."""
import http.client
import json
import os
import socket
import ssl
import sys

port, ca, sni = int(sys.argv[1]), sys.argv[2], sys.argv[3]
path = sys.argv[4] if len(sys.argv) > 4 else "/v1/chat/completions"
if sni == "-":
    conn = http.client.HTTPConnection("127.0.0.1", port)
else:
    ctx = ssl.create_default_context(cafile=ca)
    ctx.check_hostname = False
    conn = http.client.HTTPSConnection(sni, port, context=ctx)
    conn.sock = ctx.wrap_socket(socket.create_connection(("127.0.0.1", port)),
                                server_hostname=sni)
for i in range(int(os.environ.get("CALLS", "2"))):
    body = {"model": "gpt-test", "stream": True,
            "messages": [{"role": "user", "content": "net call %d of pid %d" % (i, os.getpid())}]}
    conn.request("POST", path, json.dumps(body), {"content-type": "application/json"})
    resp = conn.getresponse()
    if resp.status != 200 or not resp.read():
        sys.exit(2)
print("done", flush=True)
