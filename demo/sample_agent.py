#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""sample_agent.py - a small coding agent, stdlib only, for xperf's demo and tests.

Each turn it assembles a prompt (system text, repository context, the
history with old tool output shortened), sends it to an Anthropic-style
Messages API over HTTPS with streaming, parses the SSE answer, and runs the
bash command the model asks for as a child process, feeding back its output
and exit status. It honours 429 retry-after(-ms) by waiting and retrying, and
continues after a max_tokens truncation. It stops at an answer without a tool
call. A JSON-lines log of what it did (CLOCK_MONOTONIC ns) is the ground
truth for tool calls, exit codes, retries and turns.

  sample_agent.py --port N --ca CA.pem [--log F] [--max-turns 10] [--fidelity]

--fidelity behaves as popular agent CLIs do (mock_provider.py --scenario
fidelity): a session id header, HEAD and GET probes and a token count (POST
/v1/messages/count_tokens, the whole prompt) before the first call,
housekeeping child processes of its own (some failing, some repeated) every
turn, tools run through a sandbox wrapper that re-execs this program
(/proc/self/exe) before `bash -c <long prologue> CMD`, compressed request
bodies, compressed answers decoded as they stream, and a side request on a
second connection beside the main call of turn 3.
"""
import argparse
import hashlib
import http.client
import json
import os
import ssl
import subprocess
import sys
import threading
import time
import uuid
import zlib

SYSTEM = ("You are a careful coding agent. Use the bash tool to inspect the machine, "
          "then answer briefly.")
TOOLS = [{"name": "bash", "description": "run a bash command",
          "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}}}]
# What a sandboxed shell runs before the command (longer than the 1 KiB of argv a capture keeps).
PROLOGUE = "".join("export XPERF_SANDBOX_%02d=%s\n" % (i, "x" * 40) for i in range(30))
# The agent's own child processes each turn: probes that fail by design, and repeats.
HOUSEKEEPING = [["git", "-C", "/", "rev-parse", "--show-toplevel"], ["sh", "-c", "rg --version"],
                ["getconf", "LONG_BIT"], ["sh", "-c", "ps aux | grep -c sample_agent"]]
CODINGS = {2: "gzip", 3: "zstd"}  # request bodies compressed on these turns


def compress(coding, body):
    if coding == "gzip":
        c = zlib.compressobj(6, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
        return c.compress(body) + c.flush()
    import zstandard
    return zstandard.ZstdCompressor().compress(body)


def decoder(coding):
    """An incremental decoder for a compressed answer (identity: none)."""
    if coding == "gzip":
        return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress
    if coding == "br":
        import brotli
        return brotli.Decompressor().process
    if coding == "zstd":
        import zstandard
        return zstandard.ZstdDecompressor().decompressobj().decompress
    return lambda b: b


def sse_lines(resp):
    """Lines of an SSE answer, decoded from its content coding as the bytes arrive."""
    dec, buf = decoder(resp.headers.get("content-encoding", "")), b""
    while True:
        piece = resp.read1(65536)
        if not piece:
            break
        buf += dec(piece)
        *lines, buf = buf.split(b"\n")
        yield from lines
    if buf:
        yield buf


class Agent:
    def __init__(self, a):
        ctx = ssl.create_default_context(cafile=a.ca)
        self.conn = http.client.HTTPSConnection("localhost", a.port, context=ctx, timeout=30)
        self.conn.connect()  # as SDK connection pools do: the handshake is not in turn 1's request
        # 0600 like every xperf output (the log names tools and their arguments)
        self.log_f = os.fdopen(os.open(a.log, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o600),
                               "a", buffering=1) if a.log else None
        self.history = [{"role": "user", "content": "Which OS is this machine, and is it busy?"}]
        self.max_tokens = a.max_tokens
        self.turn = 0
        self.a, self.fidelity = a, a.fidelity
        self.session = str(uuid.uuid4())
        self.lock = threading.Lock()

    def log(self, event, **kw):
        rec = {"event": event, "turn": self.turn, "t_ns": time.monotonic_ns(), **kw}
        if self.log_f:
            with self.lock:
                self.log_f.write(json.dumps(rec) + "\n")

    def context(self):
        """Repository context: a digest of the files next to this script."""
        here = os.path.dirname(os.path.abspath(__file__))
        lines = []
        for name in sorted(os.listdir(here)):
            path = os.path.join(here, name)
            if os.path.isfile(path):
                with open(path, "rb") as f:
                    lines.append("%s %s" % (name, hashlib.sha256(f.read()).hexdigest()[:16]))
        return "\n".join(lines)

    def prompt(self):
        """The request body: old tool results are cut to keep the prompt small."""
        msgs = []
        for i, m in enumerate(self.history):
            m = json.loads(json.dumps(m))
            if i < len(self.history) - 4 and isinstance(m["content"], list):
                for block in m["content"]:
                    if block.get("type") == "tool_result" and len(block["content"]) > 200:
                        block["content"] = block["content"][:200] + "...[cut]"
            msgs.append(m)
        system = SYSTEM + "\n\nRepository:\n" + self.context()
        return json.dumps({"model": "mock-sonnet", "max_tokens": self.max_tokens, "stream": True,
                           "system": system, "tools": TOOLS, "messages": msgs})

    def headers(self):
        h = {"content-type": "application/json", "x-api-key": "sk-mock-not-a-secret",
             "anthropic-version": "2023-06-01"}
        if self.fidelity:
            h.update({"x-claude-code-session-id": self.session, "accept-encoding": "gzip, br, zstd"})
        return h

    def call(self, body, conn=None):
        """One request; returns (status, headers, parsed answer or None)."""
        conn, headers = conn or self.conn, self.headers()
        coding = CODINGS.get(self.turn) if self.fidelity else None
        if coding:
            body, headers["content-encoding"] = compress(coding, body.encode()), coding
        conn.request("POST", "/v1/messages", body=body, headers=headers)
        resp = conn.getresponse()
        if resp.status != 200:
            err = json.loads(resp.read() or b"{}")
            return resp.status, resp, err
        return 200, resp, self.parse_stream(resp)

    def probes(self):
        """What CLIs send before the first model call: a reachability probe, the model list,
        a token count carrying the whole prompt (no model call either)."""
        for method, path, body in (("HEAD", "/", None), ("GET", "/v1/models", None),
                                   ("POST", "/v1/messages/count_tokens", self.prompt())):
            self.conn.request(method, path, body=body, headers=self.headers())
            resp = self.conn.getresponse()
            resp.read()
            self.log("probe", method=method, path=path, status=resp.status)

    def housekeeping(self):
        """The agent's own processes, none of them asked for by the model."""
        for argv in HOUSEKEEPING:
            p = subprocess.run(argv, capture_output=True, cwd="/")
            self.log("housekeeping", argv=argv, exit=p.returncode)

    def side_request(self):
        """A small call on a second connection while the main one is in flight."""
        ctx = ssl.create_default_context(cafile=self.a.ca)
        conn = http.client.HTTPSConnection("localhost", self.a.port, context=ctx, timeout=30)
        body = json.dumps({"model": "mock-haiku", "max_tokens": 16, "stream": True, "system": SYSTEM,
                           "messages": [{"role": "user", "content": "Title for this session?"}]})
        t0 = time.monotonic_ns()
        status, _, _ = self.call(body, conn)
        self.log("llm", status=status, attempt=0, side=True, t_send_ns=t0,
                 t_done_ns=time.monotonic_ns())
        conn.close()

    @staticmethod
    def parse_stream(resp):
        text, tool_json, tool, stop, usage = [], [], None, None, {}
        event = None
        for raw in sse_lines(resp):
            line = raw.decode().rstrip("\r\n")
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: "):
                d = json.loads(line[6:])
                if event == "content_block_start" and d["content_block"]["type"] == "tool_use":
                    tool = d["content_block"]
                elif event == "content_block_delta":
                    delta = d["delta"]
                    (text if delta["type"] == "text_delta" else tool_json).append(
                        delta.get("text") or delta.get("partial_json", ""))
                elif event == "message_delta":
                    stop = d["delta"]["stop_reason"]
                    usage = d.get("usage", {})
        resp.read()  # the end of the chunked body, so the connection can be reused
        if tool is not None:
            tool = dict(tool, input=json.loads("".join(tool_json)))
        return {"text": "".join(text), "tool": tool, "stop": stop, "usage": usage}

    def ask(self):
        """Sends the prompt until an answer comes back, honouring 429s."""
        body = self.prompt()
        side = None
        if self.fidelity and self.turn == 3:  # the side request starts while this call runs
            side = threading.Timer(0.05, self.side_request)
            side.start()
        for attempt in range(5):
            t0 = time.monotonic_ns()
            status, resp, ans = self.call(body)
            self.log("llm", status=status, attempt=attempt, t_send_ns=t0, t_done_ns=time.monotonic_ns())
            if status == 200:
                if side:
                    side.join()
                return ans
            wait_ms = int(resp.headers.get("retry-after-ms") or 1000 * int(resp.headers.get("retry-after", 1)))
            time.sleep(wait_ms / 1000.0)
        raise RuntimeError("the provider kept refusing")

    def run_tool(self, tool):
        argv = ["bash", "-c", tool["input"]["command"]]
        if self.fidelity:  # the sandbox wrapper: this program again, then bash
            argv = ["/proc/self/exe", os.path.abspath(__file__), "--sandbox-exec", "/bin/bash",
                    "-c", PROLOGUE + tool["input"]["command"]]
        t0 = time.monotonic_ns()
        p = subprocess.run(argv, capture_output=True, text=True)
        self.log("tool", argv=argv, exit=p.returncode, start_ns=t0, end_ns=time.monotonic_ns(),
                 tool_id=tool.get("id", ""), command=tool["input"]["command"])
        out = (p.stdout + p.stderr)[-2000:]
        return {"type": "tool_result", "tool_use_id": tool.get("id", ""), "content": out,
                "is_error": p.returncode != 0}

    def run(self, max_turns):
        self.log("start", pid=os.getpid())
        if self.fidelity:
            self.log("session", id=self.session)
            self.probes()
        while self.turn < max_turns:
            self.turn += 1
            if self.fidelity:
                self.housekeeping()
            ans = self.ask()
            blocks = [{"type": "text", "text": ans["text"]}]
            if ans["tool"]:
                blocks.append({"type": "tool_use", "id": ans["tool"].get("id", ""), "name": "bash",
                               "input": ans["tool"]["input"]})
            self.history.append({"role": "assistant", "content": blocks})
            self.log("answer", stop=ans["stop"], output_tokens=ans["usage"].get("output_tokens"))
            if ans["tool"]:
                self.history.append({"role": "user", "content": [self.run_tool(ans["tool"])]})
            elif ans["stop"] == "max_tokens":
                self.history.append({"role": "user", "content": "You were cut off. Continue."})
            else:
                break
        self.log("done", turns=self.turn)
        return 0


def sandbox_exec(argv):
    """The sandbox wrapper's second stage: set up (nothing here), then become the shell."""
    os.execv(argv[0], argv)


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--sandbox-exec":
        return sandbox_exec(sys.argv[2:])
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--ca", required=True)
    ap.add_argument("--log")
    ap.add_argument("--max-turns", type=int, default=10)
    ap.add_argument("--max-tokens", type=int, default=16)
    ap.add_argument("--fidelity", action="store_true",
                    help="probes, housekeeping, a sandbox wrapper, compression, a side request")
    a = ap.parse_args()
    return Agent(a).run(a.max_turns)


if __name__ == "__main__":
    sys.exit(main())
