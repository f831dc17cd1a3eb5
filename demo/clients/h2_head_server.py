#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""h2_head_server.py DIR [together] - an HTTP/2 mock LLM provider (Debian's python3-h2,
sans-IO, one blocking write per frame batch) that sends each answer's response HEADERS
frame at once and its first token (DATA) 300 ms later, then 5 more tokens 10 ms apart:
the case where the ciphertext tier must not take the head for the first token
(assemble/cipher.h); with "together", HEADERS and the first token in one write 300 ms
after the request.
TLS with DIR/leaf.pem + DIR/leaf.key (made by mock_provider.py), ALPN h2. Writes
DIR/h2port once listening and logs, on CLOCK_MONOTONIC, the same JSON lines as
mock_provider.py (request_received, head_sent, first_byte_sent, token_sent, end; each
write's t_ns before and t_done_ns after it) to DIR/h2.jsonl, which check_ground_truth.py
reads."""
import itertools
import json
import os
import socket
import ssl
import sys
import threading
import time

import h2.config
import h2.connection
import h2.events

HEAD_FIRST_S, GAP_S, TOKENS = 0.3, 0.01, 6
TOGETHER = sys.argv[2:] == ["together"]
ids = itertools.count(1)
lock = threading.Lock()


def sse(name, obj):
    return ("event: %s\ndata: %s\n\n" % (name, json.dumps(obj))).encode()


START = sse("message_start", {"type": "message_start", "message": {
    "model": "mock-h2", "usage": {"input_tokens": 5, "output_tokens": 1}}})
DELTA = sse("content_block_delta", {"type": "content_block_delta", "index": 0,
                                    "delta": {"type": "text_delta", "text": "w "}})
END = (sse("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                             "usage": {"output_tokens": TOKENS}})
       + sse("message_stop", {"type": "message_stop"}))


class Log:
    def __init__(self, path):
        self.f = open(path, "a", buffering=1)
        os.chmod(path, 0o600)

    def __call__(self, event, rid, **kw):
        with lock:
            self.f.write(json.dumps(dict(event=event, id=rid, **kw)) + "\n")


def serve(sock, log):
    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False))
    conn.initiate_connection()

    def flush():
        """Sends what h2 has queued; returns (write began, write returned)."""
        t = time.monotonic_ns()
        sock.sendall(conn.data_to_send())
        return t, time.monotonic_ns()

    flush()
    while True:
        data = sock.recv(65536)
        if not data:
            break
        for ev in conn.receive_data(data):
            if isinstance(ev, h2.events.DataReceived):
                conn.acknowledge_received_data(ev.flow_controlled_length, ev.stream_id)
            elif isinstance(ev, h2.events.StreamEnded):
                answer(conn, ev.stream_id, next(ids), flush, log)
        flush()
    sock.close()


def answer(conn, sid, rid, flush, log):
    log("request_received", rid, t_ns=time.monotonic_ns(), path="/v1/messages")
    if not TOGETHER:
        conn.send_headers(sid, [(":status", "200"), ("content-type", "text/event-stream")])
        t, done = flush()
        log("head_sent", rid, t_ns=t, t_done_ns=done)
    time.sleep(HEAD_FIRST_S)
    if TOGETHER:
        conn.send_headers(sid, [(":status", "200"), ("content-type", "text/event-stream")])
    for i in range(TOKENS):
        if i:
            time.sleep(GAP_S)
        conn.send_data(sid, (START if i == 0 else b"") + DELTA)
        t, done = flush()
        if i == 0:
            log("first_byte_sent", rid, t_ns=t, t_done_ns=done)
        log("token_sent", rid, t_ns=t, t_done_ns=done, i=i)
    conn.send_data(sid, END, end_stream=True)
    t, done = flush()
    log("end", rid, t_ns=t, t_done_ns=done, status=200, api="anthropic", stream=True,
        output_tokens=TOKENS)


def main():
    d = sys.argv[1]
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(os.path.join(d, "leaf.pem"), os.path.join(d, "leaf.key"))
    ctx.set_alpn_protocols(["h2"])
    log = Log(os.path.join(d, "h2.jsonl"))
    lst = socket.create_server(("127.0.0.1", 0))
    with open(os.path.join(d, "h2port.tmp"), "w") as f:
        f.write("%d\n" % lst.getsockname()[1])
    os.rename(os.path.join(d, "h2port.tmp"), os.path.join(d, "h2port"))
    while True:
        s, _ = lst.accept()
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            s = ctx.wrap_socket(s, server_side=True)
        except (ssl.SSLError, OSError):
            continue
        threading.Thread(target=serve, args=(s, log), daemon=True).start()


if __name__ == "__main__":
    main()
