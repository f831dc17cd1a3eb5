#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""plain_server.py DIR - a plaintext HTTP/1.1 LLM endpoint on 127.0.0.1 (a local
model server's shape): answers every POST with a small JSON completion and logs
request_received (t_ns on CLOCK_MONOTONIC, the path, the client's port) as JSON
lines in DIR/log.jsonl; writes DIR/port once listening."""
import http.server
import json
import os
import sys
import time

out = sys.argv[1]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length") or 0))
        with open(os.path.join(out, "log.jsonl"), "a") as f:
            f.write(json.dumps({"event": "request_received", "t_ns": time.monotonic_ns(),
                                "path": self.path, "client_port": self.client_address[1]}) + "\n")
        body = json.dumps({"choices": [{"message": {"content": "ok"}}]}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(os.path.join(out, "port.tmp"), "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(os.path.join(out, "port.tmp"), os.path.join(out, "port"))
srv.serve_forever()
