#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""mock_provider.py - the project's mock LLM provider: HTTPS on loopback.

Serves Anthropic Messages (/v1/messages) and OpenAI Chat Completions
(/v1/chat/completions), streamed (SSE, chunked) and not, from a script of
steps with set latencies (time to first token, gaps between tokens, stalls),
a 429 with retry-after, tool_use answers and max_tokens truncation. A CA and a
leaf certificate are made at start (the CA is what clients trust). Every
timing it produces is logged as JSON lines on CLOCK_MONOTONIC
(time.monotonic_ns), the clock of kernel timestamps, so traces can be checked
against it: request_received, first_byte_sent, token_sent (each), end. Events
that write carry t_ns (just before the write) and t_done_ns (after it): the
client receives the bytes inside that interval.

  mock_provider.py --dir D [--scenario demo|simple|long|slow|steady|stall|stream|fidelity]
                   [--log F]
                   [--port N] [--bytes DIR]
Writes D/ca.pem and, once listening, D/port.
"""
import argparse
import http.client
import http.server
import io
import json
import os
import socketserver
import ssl
import subprocess
import sys
import threading
import time
import zlib

# One step per request, in order; when the script is used up, SIMPLE repeats.
SIMPLE = {"ttft_ms": 60, "gap_ms": 10, "tokens": 12}
DEMO = [
    {"status": 429, "ttft_ms": 20, "retry_after_ms": 300},
    {"ttft_ms": 150, "gap_ms": 15, "tokens": 8, "tool": "uname -s"},
    {"ttft_ms": 120, "gap_ms": 15, "tokens": 6, "tool": "ls /nonexistent-xperf-demo"},
    {"ttft_ms": 100, "gap_ms": 12, "tokens": 20, "stall_at": 10, "stall_ms": 400,
     "tool": "python3 -c 'print(sum(i * i for i in range(3000000)))'"},
    {"ttft_ms": 90, "gap_ms": 10, "tokens": 5, "tool": "uname -s"},
    {"ttft_ms": 110, "gap_ms": 8, "tokens": 0, "max_tokens": True},
    {"ttft_ms": 80, "gap_ms": 10, "tokens": 15},
]
# Thirty turns of a tool that sleeps (~20 s): long enough to attach to and detach from.
LONG = [{"ttft_ms": 100, "gap_ms": 10, "tokens": 5, "tool": "sleep 0.5"}] * 30
# One answer that takes 2 s to start: room for work inside the LLM span (gpu/cuda_uprobe_test).
SLOW = [{"ttft_ms": 2000, "gap_ms": 10, "tokens": 4}]
# Before and after a change (`xperf diff`): nine tool turns alike, but for a 300 ms stall
# in the middle of every answer's stream (fused.supply.streaming_gap) in the second.
STEADY = [{"ttft_ms": 60, "gap_ms": 8, "tokens": 12, "tool": "true"}] * 9
STALL = [dict(s, stall_at=6, stall_ms=300) for s in STEADY]
# Thirty turns whose answers stream for ~0.8 s of each ~1 s: a kill at a random
# instant most often lands mid-stream (demo/kill_agent_test.sh).
STREAM = [{"ttft_ms": 50, "gap_ms": 20, "tokens": 40, "tool": "sleep 0.1"}] * 30
# What real agents meet (sample_agent.py --fidelity): the response head at once and the
# first token 300 ms later on a keep-alive connection, compressed answers (gzip, br,
# zstd), a side request beside the main call (the "side" step answers the small model's
# call, whenever it arrives), a failing
# tool the model asks for, and a final answer.
FIDELITY = [
    {"ttft_ms": 1, "head_first_ms": 300, "gap_ms": 10, "tokens": 6, "tool": "ls /nonexistent-xperf-fidelity"},
    {"ttft_ms": 120, "gap_ms": 10, "tokens": 8, "encoding": "gzip", "tool": "uname -s"},
    {"ttft_ms": 150, "gap_ms": 12, "tokens": 10, "encoding": "br", "tool": "echo fidelity"},
    {"ttft_ms": 60, "gap_ms": 5, "tokens": 4, "encoding": "zstd", "side": True},
    {"ttft_ms": 90, "gap_ms": 10, "tokens": 6, "encoding": "zstd"},
]
SCENARIOS = {"demo": DEMO, "simple": [], "long": LONG, "slow": SLOW, "steady": STEADY,
             "stall": STALL, "stream": STREAM, "fidelity": FIDELITY}
LLM_PATHS = {"/v1/messages": "anthropic", "/v1/chat/completions": "openai"}
SIDE_MODEL = "mock-haiku"  # side requests (titles, summaries) go to a small model
WORDS = "the quick brown fox jumps over a lazy dog while agents call tools".split()


class Log:
    """Ground-truth JSONL log; one lock so lines never interleave."""

    def __init__(self, path):
        # 0600 like every xperf output; O_NOFOLLOW: never through a planted link
        self.f = os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o600),
                           "a", buffering=1) if path else None
        self.lock = threading.Lock()

    def __call__(self, event, rid, t_ns=None, **kw):
        rec = {"event": event, "id": rid, "t_ns": t_ns or time.monotonic_ns(), **kw}
        if self.f:
            with self.lock:
                self.f.write(json.dumps(rec) + "\n")
        return rec["t_ns"]

    def write(self, wfile, data, event, rid, **kw):
        """Writes data and logs event with the interval the write took."""
        t0 = time.monotonic_ns()
        wfile.write(data)
        self(event, rid, t_ns=t0, t_done_ns=time.monotonic_ns(), **kw)


def make_certs(d):
    """A CA (CA:TRUE) and a leaf for localhost/127.0.0.1 signed by it."""
    def run(*args):
        subprocess.run(["openssl", *args], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    p = lambda n: os.path.join(d, n)
    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=xperf mock CA",
        "-keyout", p("ca.key"), "-out", p("ca.pem"),
        "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign")
    run("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-keyout", p("leaf.key"),
        "-out", p("leaf.csr"))
    with open(p("leaf.ext"), "w") as f:
        f.write("subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n"
                "extendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature,keyEncipherment\n")
    run("x509", "-req", "-in", p("leaf.csr"), "-CA", p("ca.pem"), "-CAkey", p("ca.key"),
        "-CAcreateserial", "-days", "2", "-extfile", p("leaf.ext"), "-out", p("leaf.pem"))
    return p("leaf.pem"), p("leaf.key")


class Script:
    def __init__(self, steps):
        self.steps, self.n, self.lock = list(steps), 0, threading.Lock()

    def next(self, side=False):
        """The next step; a side request (a small model's call) takes the next side step."""
        with self.lock:
            self.n += 1
            k = next((i for i, s in enumerate(self.steps) if s.get("side", False) == side), None)
            return self.n, (self.steps.pop(k) if k is not None else dict(SIMPLE))


class Tee:
    """A connection's reader or writer that also appends every byte to a file
    (--bytes DIR: conn-PORT.in / conn-PORT.out, PORT the client's): what the
    server really received and sent, for byte-for-byte checks of captures."""

    def __init__(self, f, path):
        self.f, self.log = f, open(path, "ab", buffering=0)

    def read(self, *a):
        d = self.f.read(*a)
        self.log.write(d)
        return d

    def readline(self, *a):
        d = self.f.readline(*a)
        self.log.write(d)
        return d

    def write(self, d):
        n = self.f.write(d)
        self.log.write(bytes(d))
        return n

    def __getattr__(self, name):
        return getattr(self.f, name)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # TCP_NODELAY, as real API servers: with Nagle on, a small answer written while
    # the session tickets are unacknowledged waits for the client's delayed ACK
    # (about 20-40 ms), and the log would say it left when it did not.
    disable_nagle_algorithm = True

    def log_message(self, *a):
        pass

    def setup(self):
        super().setup()
        if self.server.bytes_dir:
            base = os.path.join(self.server.bytes_dir, "conn-%d" % self.client_address[1])
            self.rfile, self.wfile = Tee(self.rfile, base + ".in"), Tee(self.wfile, base + ".out")

    def probe(self, status, obj):
        """A request that is no model call: answered at once, logged as a probe."""
        self.server.log("probe", None, method=self.command, path=self.path)
        self.send_json(status, obj, head_only=self.command == "HEAD")

    def do_HEAD(self):
        self.probe(200, {})

    def do_GET(self):
        if self.path == "/v1/models":
            return self.probe(200, {"data": [{"id": "mock-sonnet", "type": "model"}]})
        self.probe(200, {"ok": True})

    def do_POST(self):
        n = int(self.headers.get("content-length") or 0)
        body = decode(self.headers.get("content-encoding", ""), self.rfile.read(n))
        path = self.path.split("?")[0]  # a query (?key=...) as some SDKs send it
        api = LLM_PATHS.get(path)
        if api is None:  # token counting, telemetry: not a model call, no step of the script
            req = json.loads(body or b"{}")
            return self.probe(200, {"input_tokens": len(json.dumps(req.get("messages", []))) // 4})
        req = json.loads(body or b"{}")
        rid, step = self.server.script.next(side=req.get("model") == SIDE_MODEL)
        t = self.server.log("request_received", rid, path=path, bytes=n,
                            encoding=self.headers.get("content-encoding", ""),
                            session=self.headers.get("x-claude-code-session-id", ""))
        stream = bool(req.get("stream"))
        time.sleep(max(0.0, step.get("ttft_ms", 50) / 1000.0 - (time.monotonic_ns() - t) / 1e9))
        if step.get("status", 200) != 200:
            return self.send_error_step(rid, api, step)
        r = Reply(self, rid, api, req, step)
        r.stream() if stream else r.whole()

    def send_json(self, status, obj, extra=(), rid=None, head_only=False):
        """Head and body in one write (logged as first_byte_sent when rid is given)."""
        data = json.dumps(obj).encode()
        head = "HTTP/1.1 %d %s\r\n" % (status, self.responses.get(status, ("",))[0])
        for k, v in list(extra) + [("content-type", "application/json"),
                                   ("content-length", str(len(data)))]:
            head += "%s: %s\r\n" % (k, v)
        out = head.encode() + b"\r\n" + (b"" if head_only else data)
        if rid is None:
            self.wfile.write(out)
        else:
            self.server.log.write(self.wfile, out, "first_byte_sent", rid)

    def send_error_step(self, rid, api, step):
        ms = step.get("retry_after_ms", 1000)
        err = {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}
        self.send_json(step["status"], err, [("retry-after", str(max(1, ms // 1000))),
                                             ("retry-after-ms", str(ms))], rid)
        self.server.log("end", rid, status=step["status"], api=api, stream=False,
                        error="rate_limit_error", output_tokens=0)


class Reply:
    """One scripted answer, in the wire format of its API."""

    def __init__(self, h, rid, api, req, step):
        self.h, self.rid, self.api, self.step = h, rid, api, step
        self.model = req.get("model", "mock-model")
        self.input_tokens = max(1, len(json.dumps(req.get("messages", []))) // 4)
        limit = int(req.get("max_tokens") or 1 << 30)
        self.n = limit if step.get("max_tokens") else min(step.get("tokens", 10), limit)
        self.stop = "max_tokens" if step.get("max_tokens") else ("tool_use" if step.get("tool") else "end_turn")
        self.tool = step.get("tool")
        self.coder = None
        self.tool_parts = []
        if self.tool:
            arg = json.dumps({"command": self.tool})
            self.tool_parts = [arg[i:i + 12] for i in range(0, len(arg), 12)]
        self.log = h.server.log

    def tool_id(self):
        return ("toolu_%d" if self.api == "anthropic" else "call_%d") % self.rid

    def words(self):
        return [WORDS[i % len(WORDS)] + " " for i in range(self.n)]

    def finish_reason(self):
        if self.api == "anthropic":
            return self.stop
        return {"max_tokens": "length", "tool_use": "tool_calls"}.get(self.stop, "stop")

    def output_tokens(self):
        return self.n + len(self.tool_parts)

    def whole(self):
        text = "".join(self.words())
        if self.api == "anthropic":
            content = [{"type": "text", "text": text}]
            if self.tool:
                content.append({"type": "tool_use", "id": "toolu_%d" % self.rid, "name": "bash",
                                "input": {"command": self.tool}})
            obj = {"id": "msg_%d" % self.rid, "type": "message", "role": "assistant", "model": self.model,
                   "content": content, "stop_reason": self.stop,
                   "usage": {"input_tokens": self.input_tokens, "output_tokens": self.output_tokens()}}
        else:
            msg = {"role": "assistant", "content": text}
            if self.tool:
                msg["tool_calls"] = [{"id": "call_%d" % self.rid, "type": "function", "function": {
                    "name": "bash", "arguments": json.dumps({"command": self.tool})}}]
            obj = {"id": "chatcmpl-%d" % self.rid, "object": "chat.completion", "model": self.model,
                   "choices": [{"index": 0, "message": msg, "finish_reason": self.finish_reason()}],
                   "usage": {"prompt_tokens": self.input_tokens, "completion_tokens": self.output_tokens()}}
        self.h.send_json(200, obj, rid=self.rid)
        self.log_end(stream=False)

    def log_end(self, stream, last=b""):
        """The end of the answer: after its last write (logged around it when there is one)."""
        kw = dict(status=200, api=self.api, stream=stream, model=self.model,
                  input_tokens=self.input_tokens, output_tokens=self.output_tokens(),
                  stop_reason=self.finish_reason(), tools=["bash"] if self.tool else [],
                  tool_command=self.tool, tool_id=self.tool_id() if self.tool else None)
        if last:
            self.log.write(self.h.wfile, last, "end", self.rid, **kw)
        else:
            self.log("end", self.rid, **kw)

    def chunk(self, data, prefix=b""):
        """One chunk of the body, compressed and flushed when the step asks for it."""
        data = self.coder.push(data) if self.coder else data
        self.h.wfile.write(prefix + b"%x\r\n%s\r\n" % (len(data), data))

    def sse(self, name, obj):
        head = b"event: %s\n" % name.encode() if self.api == "anthropic" else b""
        return head + b"data: " + (obj if isinstance(obj, bytes) else json.dumps(obj).encode()) + b"\n\n"

    def stream(self):
        events = self.anthropic_events() if self.api == "anthropic" else self.openai_events()
        # The head goes out with the first token, in one write: the case where
        # tracers that look for the head alone lose the first SSE chunk. With
        # head_first_ms it goes alone, and the first token that much later.
        enc = self.encoding()
        head = (b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                b"transfer-encoding: chunked\r\ncache-control: no-cache\r\n" +
                (b"content-encoding: %s\r\n" % enc.encode() if enc else b"") + b"\r\n")
        self.coder = Coder(enc) if enc else None
        if self.step.get("head_first_ms"):
            self.log.write(self.h.wfile, head, "head_sent", self.rid)
            head = b""
            time.sleep(self.step["head_first_ms"] / 1000.0)
        gap, tok = self.step.get("gap_ms", 10) / 1000.0, 0
        first = True
        for data, is_token in events:
            if is_token and not first:
                time.sleep(gap + (self.step.get("stall_ms", 0) / 1000.0
                                  if tok == self.step.get("stall_at", -1) else 0))
            t0 = time.monotonic_ns()
            self.chunk(data, head if first else b"")
            t1 = time.monotonic_ns()
            if first:
                self.log("first_byte_sent", self.rid, t_ns=t0, t_done_ns=t1)
            if is_token:
                self.log("token_sent", self.rid, t_ns=t0, t_done_ns=t1, i=tok)
                tok += 1
            first = False
        tail = self.coder.finish() if self.coder else b""
        self.log_end(stream=True, last=(b"%x\r\n%s\r\n" % (len(tail), tail) if tail else b"") +
                     b"0\r\n\r\n")

    def encoding(self):
        """The step's content coding, if the client accepts it."""
        enc = self.step.get("encoding")
        return enc if enc and enc in self.h.headers.get("accept-encoding", "") else None

    def anthropic_events(self):
        """(bytes, is_token) pairs; the first token rides with message_start."""
        start = self.sse("message_start", {"type": "message_start", "message": {
            "id": "msg_%d" % self.rid, "type": "message", "role": "assistant", "model": self.model,
            "content": [], "stop_reason": None,
            "usage": {"input_tokens": self.input_tokens, "output_tokens": 1}}})
        start += self.sse("content_block_start", {"type": "content_block_start", "index": 0,
                                                  "content_block": {"type": "text", "text": ""}})
        deltas = [self.sse("content_block_delta", {"type": "content_block_delta", "index": 0,
                                                   "delta": {"type": "text_delta", "text": w}})
                  for w in self.words()]
        for i, part in enumerate(self.tool_parts):
            d = self.sse("content_block_delta", {"type": "content_block_delta", "index": 1, "delta": {
                "type": "input_json_delta", "partial_json": part}})
            if i == 0:
                d = self.sse("content_block_start", {"type": "content_block_start", "index": 1,
                                                     "content_block": {"type": "tool_use", "name": "bash",
                                                                       "id": "toolu_%d" % self.rid,
                                                                       "input": {}}}) + d
            deltas.append(d)
        end = self.sse("message_delta", {"type": "message_delta", "delta": {"stop_reason": self.stop},
                                         "usage": {"output_tokens": self.output_tokens()}})
        end += self.sse("message_stop", {"type": "message_stop"})
        if not deltas:
            return [(start + end, False)]
        return [(start + deltas[0], True)] + [(d, True) for d in deltas[1:]] + [(end, False)]

    def openai_events(self):
        def chunk(delta, finish=None, usage=None):
            c = {"id": "chatcmpl-%d" % self.rid, "object": "chat.completion.chunk", "model": self.model,
                 "choices": [] if usage else [{"index": 0, "delta": delta, "finish_reason": finish}]}
            if usage:
                c["usage"] = usage
            return self.sse("", c)
        deltas = [chunk({"content": w}) for w in self.words()]
        for i, p in enumerate(self.tool_parts):
            fn = {"arguments": p}
            if i == 0:
                fn["name"] = "bash"
            call = {"index": 0, "function": fn}
            if i == 0:
                call["id"] = self.tool_id()
            deltas.append(chunk({"tool_calls": [call]}))
        start = chunk({"role": "assistant", "content": ""})
        end = chunk({}, self.finish_reason()) + chunk(None, usage={
            "prompt_tokens": self.input_tokens, "completion_tokens": self.output_tokens()})
        end += self.sse("", b"[DONE]")
        if not deltas:
            return [(start + end, False)]
        return [(start + deltas[0], True)] + [(d, True) for d in deltas[1:]] + [(end, False)]


def codecs():
    """brotli and zstandard come from Debian (python3-brotli, python3-zstandard)."""
    import brotli
    import zstandard
    return brotli, zstandard


def decode(encoding, body):
    """A request body as the agent compressed it."""
    if encoding == "gzip":
        return zlib.decompress(body, 16 + zlib.MAX_WBITS)
    if encoding == "br":
        return codecs()[0].decompress(body)
    if encoding == "zstd":
        return codecs()[1].ZstdDecompressor().decompressobj().decompress(body)
    return body


class Coder:
    """A streaming compressor flushed after every piece: each event leaves at once."""

    def __init__(self, encoding):
        self.enc = encoding
        if encoding == "gzip":
            self.c = zlib.compressobj(6, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
        elif encoding == "br":
            self.c = codecs()[0].Compressor()
        else:
            self.c = codecs()[1].ZstdCompressor().compressobj()

    def push(self, data):
        if self.enc == "gzip":
            return self.c.compress(data) + self.c.flush(zlib.Z_SYNC_FLUSH)
        if self.enc == "br":
            return self.c.process(data) + self.c.flush()
        return self.c.compress(data) + self.c.flush(codecs()[1].COMPRESSOBJ_FLUSH_BLOCK)

    def finish(self):
        return self.c.flush() if self.enc != "br" else self.c.finish()


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    accept_log = None

    def get_request(self):
        sock, addr = self.socket.accept()  # returns once the TLS handshake is over
        if self.accept_log:  # when: the client's Finished read (connection set-up's end)
            self.accept_log("tls_accepted", None, client_port=addr[1])
        return sock, addr


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", required=True)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--scenario", choices=sorted(SCENARIOS), default="simple")
    ap.add_argument("--log")
    ap.add_argument("--bytes", help="log each connection's bytes in and out into this directory")
    ap.add_argument("--accept-log", help="log each TLS handshake's end (accept) into this file")
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    cert, key = make_certs(a.dir)
    srv = Server(("127.0.0.1", a.port), Handler)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    ctx.set_alpn_protocols(["http/1.1"])
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    # Parse a request head once now: the first real one would otherwise pay for
    # lazy imports (email.parser) inside its own timing.
    http.client.parse_headers(io.BytesIO(b"host: localhost\r\n\r\n"))
    srv.script = Script(SCENARIOS[a.scenario])
    srv.log = Log(a.log)
    srv.accept_log = Log(a.accept_log) if a.accept_log else None
    srv.bytes_dir = a.bytes
    if a.bytes:
        os.makedirs(a.bytes, exist_ok=True)
    tmp = os.path.join(a.dir, "port.tmp")
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, os.path.join(a.dir, "port"))
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
