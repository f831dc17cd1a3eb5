#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""client_llm.py PORT CA - the same LLM calls as client_llm.js and client_llm.go
(same request bodies, byte for byte) from python3 on the system libssl: the
reference whose turns the located clients' turns must equal in content."""
import http.client
import json
import ssl
import sys

CALLS = [
    ("/v1/messages", {"model": "claude-test", "max_tokens": 64, "stream": True,
                      "messages": [{"role": "user", "content": "hello"}]}),
    ("/v1/chat/completions", {"model": "gpt-test", "stream": True,
                              "messages": [{"role": "user", "content": "hello again"}]}),
]

ctx = ssl.create_default_context(cafile=sys.argv[2])
conn = http.client.HTTPSConnection("localhost", int(sys.argv[1]), context=ctx)
for path, body in CALLS:
    conn.request("POST", path, json.dumps(body, separators=(",", ":")),
                 {"content-type": "application/json"})
    resp = conn.getresponse()
    if resp.status != 200 or not resp.read():
        sys.exit(2)
