#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""h2_head_server.py DIR [together|long] [think=MS] [ping=MS,...] - an HTTP/2 mock LLM
provider (Debian's python3-h2, sans-IO, one blocking write per frame batch) that sends each
answer's response HEADERS frame at once and its first token (DATA) 300 ms (think=) later,
then 5 more tokens 10 ms apart:
the case where the ciphertext tier must not take the head for the first token
(assemble/cipher.h); with "together", HEADERS and the first token in one write 300 ms
after the request; with "long", the head, then from 300 ms on 300 tokens of 1.1 KB 2 ms
apart (330 KB: the client sends WINDOW_UPDATEs while it streams, Go's after every 4 KiB
read) and a PING halfway that the client ACKs: sends that must end no exchange. While it
thinks it answers the client's PINGs at once and, with ping=, sends PINGs of its own that
many ms after reading the request (each in a write of its own: a front end's BDP and
keepalive PINGs), logged as ping_sent: receives that are not the answer's start.
TLS with DIR/leaf.pem + DIR/leaf.key (made by mock_provider.py), ALPN h2. Writes
DIR/h2port once listening and logs, on CLOCK_MONOTONIC, the same JSON lines as
mock_provider.py (request_received, head_sent, first_byte_sent, token_sent, end; each
write's t_ns before and t_done_ns after it), and control_received for each WINDOW_UPDATE,
PING or PING ACK the client sent while an answer was due, to DIR/h2.jsonl, which
check_ground_truth.py reads."""
import itertools
import json
import os
import select
import socket
import ssl
import sys
import threading
import time

import h2.config
import h2.connection
import h2.events

OPTS = dict(a.split("=", 1) for a in sys.argv[2:] if "=" in a)
MODE = ([a for a in sys.argv[2:] if "=" not in a] or ["head"])[0]
TOGETHER, LONG = MODE == "together", MODE == "long"
HEAD_FIRST_S = int(OPTS.get("think", 300)) / 1e3
PINGS_S = [int(ms) / 1e3 for ms in OPTS["ping"].split(",")] if "ping" in OPTS else []
GAP_S, TOKENS = (0.002, 300) if LONG else (0.01, 6)
ids = itertools.count(1)
lock = threading.Lock()


def sse(name, obj):
    return ("event: %s\ndata: %s\n\n" % (name, json.dumps(obj))).encode()


START = sse("message_start", {"type": "message_start", "message": {
    "model": "mock-h2", "usage": {"input_tokens": 5, "output_tokens": 1}}})
DELTA = sse("content_block_delta", {"type": "content_block_delta", "index": 0,
                                    "delta": {"type": "text_delta",
                                              "text": "w " * (500 if LONG else 1)}})
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


class Conn:
    """One client connection: h2's state, its socket, the requests read and not yet answered."""

    def __init__(self, sock, log):
        self.sock, self.log, self.todo = sock, log, []
        self.h2 = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False))
        self.h2.initiate_connection()
        self.rid = {}  # stream id -> request id
        self.cur = None  # the request being answered, or the last one answered

    def flush(self):
        """Sends what h2 has queued; returns (write began, write returned)."""
        t = time.monotonic_ns()
        data = self.h2.data_to_send()
        if data:
            self.sock.sendall(data)
        return t, time.monotonic_ns()

    def take(self, data):
        """Feeds the client's bytes to h2. Its control frames read while an answer streams
        (WINDOW_UPDATE, PING, PING ACK), and its PINGs between two calls (charged to the answer
        before them, as xperf charges them), are logged as control_received: the ground truth
        for xperf.ciphertext.control_records. h2 queues the ACK of a PING at once."""
        t = time.monotonic_ns()
        for ev in self.h2.receive_data(data):
            if isinstance(ev, h2.events.DataReceived):
                self.h2.acknowledge_received_data(ev.flow_controlled_length, ev.stream_id)
            elif isinstance(ev, h2.events.StreamEnded):
                self.todo.append(ev.stream_id)
            elif isinstance(ev, h2.events.WindowUpdated) and ev.stream_id in self.rid:
                self.log("control_received", self.rid[ev.stream_id], frame="WINDOW_UPDATE",
                         t_ns=t)
            elif isinstance(ev, h2.events.PingAckReceived):
                self.log("control_received", int(ev.ping_data[5:]), frame="PING ACK", t_ns=t)
            elif isinstance(ev, h2.events.PingReceived) and self.cur:
                self.log("control_received", self.cur, frame="PING", t_ns=t)

    def read(self):
        data = self.sock.recv(65536)
        if not data:
            raise ConnectionError("client closed")
        self.take(data)

    def pump(self):
        """Reads whatever the client sent while the answer streams, without waiting."""
        self.sock.setblocking(False)
        try:
            while True:
                self.read()
        except (ssl.SSLWantReadError, BlockingIOError):
            pass
        finally:
            self.sock.setblocking(True)

    def window(self, sid, n):
        """Reads the client's frames until its flow-control window takes n bytes."""
        self.pump()
        while self.h2.local_flow_control_window(sid) < n:
            self.read()

    def serve(self):
        self.flush()
        try:
            while True:
                self.read()
                while self.todo:
                    answer(self, self.todo.pop(0), next(ids))
                self.flush()
        except (ConnectionError, OSError):
            pass
        self.sock.close()


def think(c, rid, t0):
    """Waits until HEAD_FIRST_S after t0, answering the client's frames as they come, and
    sends a PING at each of PINGS_S after t0."""
    due = [t0 + s for s in PINGS_S]
    end = t0 + HEAD_FIRST_S
    while (now := time.monotonic()) < end:
        if due and now >= due[0]:
            due.pop(0)
            c.h2.ping(b"xperf%03d" % rid)
            t, done = c.flush()
            c.log("ping_sent", rid, t_ns=t, t_done_ns=done)
        elif c.sock.pending() or select.select([c.sock], [], [], min(due[:1] + [end]) - now)[0]:
            c.pump()
            c.flush()


def answer(c, sid, rid):
    c.rid[sid] = rid
    c.cur = rid
    rr = time.monotonic_ns()
    c.log("request_received", rid, t_ns=rr, path="/v1/messages")
    if not TOGETHER:
        c.h2.send_headers(sid, [(":status", "200"), ("content-type", "text/event-stream")])
        t, done = c.flush()
        c.log("head_sent", rid, t_ns=t, t_done_ns=done)
    think(c, rid, rr / 1e9)
    if TOGETHER:
        c.h2.send_headers(sid, [(":status", "200"), ("content-type", "text/event-stream")])
    for i in range(TOKENS):
        if i:
            time.sleep(GAP_S)
        if LONG and i == TOKENS // 2:
            c.h2.ping(b"xperf%03d" % rid)
        data = (START if i == 0 else b"") + DELTA
        c.window(sid, len(data))
        c.h2.send_data(sid, data)
        t, done = c.flush()
        if i == 0:
            c.log("first_byte_sent", rid, t_ns=t, t_done_ns=done)
        c.log("token_sent", rid, t_ns=t, t_done_ns=done, i=i)
    c.window(sid, len(END))
    c.h2.send_data(sid, END, end_stream=True)
    t, done = c.flush()
    c.log("end", rid, t_ns=t, t_done_ns=done, status=200, api="anthropic", stream=True,
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
        threading.Thread(target=Conn(s, log).serve, daemon=True).start()


if __name__ == "__main__":
    main()
