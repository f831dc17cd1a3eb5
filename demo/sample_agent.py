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

  sample_agent.py --port N --ca CA.pem [--log F] [--max-turns 10]
"""
import argparse
import hashlib
import http.client
import json
import os
import ssl
import subprocess
import sys
import time

SYSTEM = ("You are a careful coding agent. Use the bash tool to inspect the machine, "
          "then answer briefly.")
TOOLS = [{"name": "bash", "description": "run a bash command",
          "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}}}]


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

    def log(self, event, **kw):
        rec = {"event": event, "turn": self.turn, "t_ns": time.monotonic_ns(), **kw}
        if self.log_f:
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

    def call(self, body):
        """One request; returns (status, headers, parsed answer or None)."""
        self.conn.request("POST", "/v1/messages", body=body, headers={
            "content-type": "application/json", "x-api-key": "sk-mock-not-a-secret",
            "anthropic-version": "2023-06-01"})
        resp = self.conn.getresponse()
        if resp.status != 200:
            err = json.loads(resp.read() or b"{}")
            return resp.status, resp, err
        return 200, resp, self.parse_stream(resp)

    @staticmethod
    def parse_stream(resp):
        text, tool_json, tool, stop, usage = [], [], None, None, {}
        event = None
        for raw in resp:
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
        for attempt in range(5):
            t0 = time.monotonic_ns()
            status, resp, ans = self.call(body)
            self.log("llm", status=status, attempt=attempt, t_send_ns=t0, t_done_ns=time.monotonic_ns())
            if status == 200:
                return ans
            wait_ms = int(resp.headers.get("retry-after-ms") or 1000 * int(resp.headers.get("retry-after", 1)))
            time.sleep(wait_ms / 1000.0)
        raise RuntimeError("the provider kept refusing")

    def run_tool(self, tool):
        argv = ["bash", "-c", tool["input"]["command"]]
        t0 = time.monotonic_ns()
        p = subprocess.run(argv, capture_output=True, text=True)
        self.log("tool", argv=argv, exit=p.returncode, start_ns=t0, end_ns=time.monotonic_ns())
        out = (p.stdout + p.stderr)[-2000:]
        return {"type": "tool_result", "tool_use_id": tool.get("id", ""), "content": out,
                "is_error": p.returncode != 0}

    def run(self, max_turns):
        self.log("start", pid=os.getpid())
        while self.turn < max_turns:
            self.turn += 1
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--ca", required=True)
    ap.add_argument("--log")
    ap.add_argument("--max-turns", type=int, default=10)
    ap.add_argument("--max-tokens", type=int, default=16)
    a = ap.parse_args()
    return Agent(a).run(a.max_turns)


if __name__ == "__main__":
    sys.exit(main())
