#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gen_fixture.py - writes the recorded event sequences the assembler tests replay.

The scenario is the demo's (demo/mock_provider.py DEMO script run by
demo/sample_agent.py): six turns, a 429 and its retry, a failing tool, a
streaming stall, a repeated command, a max_tokens truncation. Events are what
the capture layer reports for it: exec/fork/exit, scheduler transitions of the
agent thread, the TLS plaintext of every SSL_write/SSL_read (demo_plain.jsonl)
and, for the same run, the socket sends/receives with TLS framing overhead,
handshake and session tickets (demo_cipher.jsonl), and both together
(demo_both.jsonl, what a live capture delivers). demo_expected.json holds
the ground truth the test checks against. Run it to regenerate all three.
"""
import json
import os

MS = 1_000_000
BASE = 5_000 * MS
AGENT, SSL, COOKIE = 4100, 0x7F00AA, 77
SYSTEM = ("You are a careful coding agent. Use the bash tool to inspect the machine, then answer "
          "briefly.\n\nRepository:\n" + "\n".join("file_%02d.py 0123456789abcdef" % k for k in range(16)))
STEPS = [  # (ttft ms, gap ms, tokens, tool, extra)
    {"status": 429, "ttft": 20},
    {"ttft": 150, "gap": 15, "tokens": 8, "tool": "uname -s"},
    {"ttft": 120, "gap": 15, "tokens": 6, "tool": "ls /nonexistent-xperf-demo", "exit": 2},
    {"ttft": 100, "gap": 12, "tokens": 20, "stall_at": 10, "stall": 400,
     "tool": "python3 -c 'print(sum(i * i for i in range(3000000)))'", "tool_ms": 480},
    {"ttft": 90, "gap": 10, "tokens": 5, "tool": "uname -s"},
    {"ttft": 110, "gap": 8, "tokens": 16, "stop": "max_tokens"},
    {"ttft": 80, "gap": 10, "tokens": 15},
]


class Rec:
    def __init__(self):
        self.plain, self.cipher, self.t = [], [], BASE

    def both(self, ev):
        self.plain.append(ev)
        self.cipher.append(ev)

    def sched(self, t, state, prev=None, prev_ns=0):
        ev = {"type": "sched", "ts_ns": t, "tgid": AGENT, "tid": AGENT, "state": state}
        if prev:
            ev.update(prev_state=prev, prev_ns=prev_ns)
        self.both(ev)

    def io(self, t, d, data):
        self.plain.append({"type": "tls_data", "ts_ns": t, "tgid": AGENT, "tid": AGENT,
                           "conn": SSL, "dir": d, "data": data})
        self.cipher.append({"type": "sock_data", "ts_ns": t, "tgid": AGENT, "tid": AGENT,
                            "conn": COOKIE, "dir": d, "len": len(data.encode()) + 22,
                            "call_ns": t - 20_000, "in_tls": True})


def sse(name, obj):
    return "event: %s\ndata: %s\n\n" % (name, json.dumps(obj))


def chunk(s):
    return "%x\r\n%s\r\n" % (len(s.encode()), s)


def request(i):
    # as the sample agent's: a system prompt and the tool definitions ride in every request
    body = json.dumps({"model": "mock-sonnet", "max_tokens": 16, "stream": True, "system": SYSTEM,
                       "tools": [{"name": "bash", "input_schema": {"type": "object"}}],
                       "messages": [{"role": "user", "content": "turn %d" % i}]})
    return ("POST /v1/messages HTTP/1.1\r\nHost: localhost\r\nx-api-key: sk-mock-not-a-secret\r\n"
            "content-type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))


def reads(i, st):
    """(offset ms from request end, plaintext) of every SSL_read, and the truth."""
    if st.get("status") == 429:
        body = json.dumps({"type": "error", "error": {"type": "rate_limit_error"}})
        return [(st["ttft"], "HTTP/1.1 429 Too Many Requests\r\nretry-after: 1\r\nretry-after-ms: "
                 "300\r\ncontent-type: application/json\r\nContent-Length: %d\r\n\r\n%s"
                 % (len(body), body))], {"tokens": 0, "output_tokens": 0}
    tool = st.get("tool")
    parts = [json.dumps({"command": tool})[k:k + 12] for k in range(0, len(json.dumps({"command": tool})), 12)] if tool else []
    stop = st.get("stop", "tool_use" if tool else "end_turn")
    n = st["tokens"] + len(parts)
    start = sse("message_start", {"type": "message_start", "message": {
        "model": "mock-sonnet", "usage": {"input_tokens": 40 + i, "output_tokens": 1}}})
    deltas = [sse("content_block_delta", {"type": "content_block_delta", "delta": {"text": "w "}})
              for _ in range(st["tokens"])]
    for k, p in enumerate(parts):
        d = sse("content_block_delta", {"type": "content_block_delta",
                                        "delta": {"type": "input_json_delta", "partial_json": p}})
        if k == 0:
            d = sse("content_block_start", {"type": "content_block_start", "content_block": {
                "type": "tool_use", "name": "bash"}}) + d
        deltas.append(d)
    end = sse("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop},
                                "usage": {"output_tokens": n}}) + sse("message_stop", {"type": "message_stop"})
    head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
    out, t, times = [], st["ttft"], []
    for k, d in enumerate(deltas):
        if k:
            t += st["gap"] + (st.get("stall", 0) if k == st.get("stall_at") else 0)
        out.append((t, (head + chunk(start + d)) if k == 0 else chunk(d)))
        times.append(t)
    out.append((t + 1, chunk(end) + "0\r\n\r\n"))
    return out, {"tokens": n, "output_tokens": n, "ttft_ms": st["ttft"], "decode_ms": t + 1 - st["ttft"],
                 "stop": stop, "tools": ["bash"] if tool else []}


def main():
    r = Rec()
    t = BASE
    r.both({"type": "exec", "ts_ns": t, "tgid": AGENT, "argv": ["python3", "sample_agent.py"]})
    r.sched(t, "oncpu")
    truth = {"turns": 6, "exchanges": [], "tools": [], "waste": {
        "llm_error": 1, "retry": 1, "failed_tool_call": 1, "repeated_tool_call": 1, "truncated_output": 1}}
    child, turn = AGENT + 1, 1
    for i, st in enumerate(STEPS):
        t += 20 * MS  # prompt assembly on CPU
        if i == 0:  # connection: handshake before the first request (ciphertext tier only)
            r.cipher.append({"type": "sock_open", "ts_ns": t - 2 * MS, "tgid": AGENT, "conn": COOKIE, "host": "localhost"})
            for dt, d, n in ((-1.9, "write", 517), (-1.5, "read", 1400), (-1.4, "write", 80)):
                r.cipher.append({"type": "sock_data", "ts_ns": t + int(dt * MS), "tgid": AGENT, "tid": AGENT,
                                 "conn": COOKIE, "dir": d, "len": n, "call_ns": t + int(dt * MS) - 20_000})
        req_t = t
        r.io(req_t, "write", request(i))
        r.sched(req_t + 50_000, "blocked")
        rs, info = reads(i, st)
        if i == 0:
            for k in (1, 2):
                r.cipher.append({"type": "sock_data", "ts_ns": req_t + 100_000 * k, "tgid": AGENT, "tid": AGENT,
                                 "conn": COOKIE, "dir": "read", "len": 255, "call_ns": req_t + 60_000,
                                 "in_tls": True})
        for off, data in rs:
            rt = req_t + off * MS
            r.sched(rt - 60_000, "oncpu", "blocked")
            r.io(rt, "read", data)
            r.sched(rt + 30_000, "blocked")
        end_t = req_t + rs[-1][0] * MS
        r.sched(end_t + 40_000, "oncpu", "blocked")
        info.update(turn=turn, req_ns=req_t, status=st.get("status", 200))
        truth["exchanges"].append(info)
        t = end_t + 2 * MS  # response parse
        if st.get("status") == 429:
            r.sched(t, "blocked")
            t += 300 * MS  # retry-after-ms
            r.sched(t, "oncpu", "blocked", 300 * MS)
            continue
        if st.get("tool"):
            pid, child = child, child + 1
            r.both({"type": "fork", "ts_ns": t, "tgid": AGENT, "tid": AGENT, "child": pid})
            r.sched(t + 100_000, "blocked")
            r.both({"type": "exec", "ts_ns": t + 300_000, "tgid": pid, "argv": ["bash", "-c", st["tool"]]})
            dur = st.get("tool_ms", 8) * MS
            r.both({"type": "sched", "ts_ns": t + 200_000, "tgid": pid, "tid": pid, "state": "oncpu"})
            r.both({"type": "exit", "ts_ns": t + dur, "tgid": pid, "exit_code": st.get("exit", 0),
                    "cpu_ns": dur - 1 * MS})
            truth["tools"].append({"turn": turn, "cmd": "bash -c " + st["tool"], "exit": st.get("exit", 0),
                                   "start_ns": t, "end_ns": t + dur})
            t += dur
            r.sched(t + 50_000, "oncpu", "blocked")
        turn += 1
    t += 3 * MS
    r.both({"type": "exit", "ts_ns": t, "tgid": AGENT, "exit_code": 0, "cpu_ns": 200 * MS})
    r.cipher.append({"type": "sock_close", "ts_ns": t - MS, "tgid": AGENT, "conn": COOKIE})
    r.plain.append({"type": "tls_close", "ts_ns": t - MS, "tgid": AGENT, "conn": SSL})
    here = os.path.dirname(os.path.abspath(__file__))
    both = r.plain + [e for e in r.cipher if e["type"].startswith("sock")]
    for name, evs in (("demo_plain.jsonl", r.plain), ("demo_cipher.jsonl", r.cipher), ("demo_both.jsonl", both)):
        evs.sort(key=lambda e: e["ts_ns"])
        with open(os.path.join(here, name), "w") as f:
            f.write("# generated by gen_fixture.py: the demo scenario as capture events\n")
            for e in evs:
                f.write(json.dumps(e) + "\n")
    with open(os.path.join(here, "demo_expected.json"), "w") as f:
        json.dump(truth, f, indent=1)


if __name__ == "__main__":
    main()
