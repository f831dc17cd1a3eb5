#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gen_fidelity.py - writes fidelity.jsonl, the capture events of what real agent CLIs
do (fidelity_test.c replays it in both tiers):

agent 4100, one keep-alive connection (TLS plaintext and its socket records both):
  a HEAD / probe, a token count (POST /v1/messages/count_tokens with the whole prompt,
  answered by one record of 113 bytes on the wire); turn 1: a request with a session-id header, the response head alone
  1 ms after it (and a control record, as HTTP/2 sends) and the first token 300 ms
  later, a tool_use toolu_1 {"command": "ls /x"}; the tool runs in a sandbox wrapper
  that re-execs itself, then bash -c <prologue longer than the kept command line>
  ls /x, whose child ls exits 2; two
  housekeeping processes (git exit 128, sh -c rg exit 127); turn 2: the next request
  carries toolu_1's tool_result (is_error), its answer's head and first token in one
  record 200 ms after it, no tool.
agent 4200, its own fresh connection, one exchange overlapping 4100's turn 1 (the head
  alone at once, the first token 300 ms later): turns of its own.
"""
import json
import os

MS = 1_000_000
BASE = 1_000 * MS
PROLOGUE = "".join("export XPERF_SANDBOX_%02d=%s\n" % (i, "x" * 40) for i in range(12))
ev = []


def add(**kw):
    ev.append(kw)


def sse(name, obj):
    return "event: %s\ndata: %s\n\n" % (name, json.dumps(obj))


def chunk(s):
    return "%x\r\n%s\r\n" % (len(s.encode()), s)


def io(tgid, conn, t, d, data):
    """One SSL call and the socket record that carried it (22 bytes of TLS overhead)."""
    add(type="tls_data", ts_ns=t, tgid=tgid, tid=tgid, conn=conn, dir=d, data=data)
    add(type="sock_data", ts_ns=t, tgid=tgid, tid=tgid, conn=conn + 1000, dir=d,
        len=len(data.encode()) + 22, call_ns=t - 20_000, in_tls=True)


def request(messages, session=True, path="/v1/messages"):
    body = json.dumps({"model": "m", "max_tokens": 16, "stream": True, "system": "s" * 600,
                       "tools": [{"name": "bash"}], "messages": messages})
    head = "POST %s HTTP/1.1\r\nHost: localhost\r\n" % path
    if session:
        head += "x-claude-code-session-id: sess-fid\r\n"
    return head + "content-type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)


HEAD = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"


def answer(tgid, conn, t, tool=None, tokens=4):
    """(time, data) of each read: the first token at t, 10 ms apart; returns the end."""
    parts = [sse("message_start", {"type": "message_start", "message": {"model": "m"}})]
    parts += [sse("content_block_delta", {"type": "content_block_delta", "index": 0,
                                          "delta": {"type": "text_delta", "text": "w "}})
              for _ in range(tokens)]
    if tool:
        parts[-1] += sse("content_block_start", {"type": "content_block_start", "index": 1,
                                                 "content_block": {"type": "tool_use", "id": tool[0],
                                                                   "name": "bash", "input": {}}})
        parts[-1] += sse("content_block_delta", {"type": "content_block_delta", "index": 1, "delta": {
            "type": "input_json_delta", "partial_json": json.dumps({"command": tool[1]})}})
    end = sse("message_delta", {"type": "message_delta", "delta": {
        "stop_reason": "tool_use" if tool else "end_turn"}, "usage": {"output_tokens": tokens}})
    end += sse("message_stop", {"type": "message_stop"})
    io(tgid, conn, t, "read", chunk(parts[0] + parts[1]))
    for k, p in enumerate(parts[2:], 1):
        io(tgid, conn, t + 10 * MS * k, "read", chunk(p))
    t_end = t + 10 * MS * (len(parts) - 1)
    io(tgid, conn, t_end, "read", chunk(end) + "0\r\n\r\n")
    return t_end


def proc(t, parent, pid, argvs, code, dur):
    add(type="fork", ts_ns=t, tgid=parent, tid=parent, child=pid)
    for k, argv in enumerate(argvs):
        add(type="exec", ts_ns=t + (k + 1) * 100_000, tgid=pid, argv=argv)
    add(type="exit", ts_ns=t + dur, tgid=pid, exit_code=code, cpu_ns=dur // 2)


def main():
    t = BASE
    add(type="exec", ts_ns=t, tgid=4100, argv=["agent", "--print"])
    add(type="exec", ts_ns=t, tgid=4200, argv=["subagent"])
    add(type="sock_open", ts_ns=t + MS, tgid=4100, conn=1001, host="localhost")
    add(type="sock_open", ts_ns=t + MS, tgid=4200, conn=1002, host="localhost")
    for tgid, conn in ((4100, 1001), (4200, 1002)):  # the handshake (socket records only)
        for dt, d, n in ((1.1, "write", 517), (1.5, "read", 1400), (1.6, "write", 80)):
            add(type="sock_data", ts_ns=t + int(dt * MS), tgid=tgid, tid=tgid, conn=conn, dir=d,
                len=n, call_ns=t + int(dt * MS) - 20_000)
    t += 10 * MS
    io(4100, 1, t, "write", "HEAD / HTTP/1.1\r\nHost: localhost\r\nUser-Agent: agent-cli/1.0\r\n"
       "Accept: */*\r\nx-api-key: sk-mock-not-a-secret\r\n\r\n")
    io(4100, 1, t + 2 * MS, "read", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
    # a token count: the whole prompt, answered by one small record (no model call)
    io(4100, 1, t + 5 * MS, "write", request([{"role": "user", "content": "hi"}],
                                             path="/v1/messages/count_tokens"))
    io(4100, 1, t + 7 * MS, "read", "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
       "content-length: 20\r\n\r\n{\"input_tokens\": 42}")
    # turn 1: the head alone, the first token 300 ms later
    t += 20 * MS
    req1 = t
    io(4100, 1, t, "write", request([{"role": "user", "content": "hi"}]))
    io(4100, 1, t + MS, "read", HEAD)
    # and a control record (as HTTP/2 sends SETTINGS / WINDOW_UPDATE frames): the head is two
    add(type="sock_data", ts_ns=t + 2 * MS, tgid=4100, tid=4100, conn=1001, dir="read", len=31,
        call_ns=t + 2 * MS - 20_000, in_tls=True)
    end = answer(4100, 1, t + 300 * MS, tool=("toolu_1", "ls /x"))
    # agent 4200's own exchange, overlapping
    io(4200, 2, req1 + 50 * MS, "write", request([{"role": "user", "content": "sub"}], False))
    io(4200, 2, req1 + 51 * MS, "read", HEAD)  # a fresh connection: the head alone at once
    answer(4200, 2, req1 + 350 * MS, tokens=3)  # the first token 300 ms after the request
    t = end + 2 * MS
    wrapper = ["/proc/self/exe", "agent", "--sandbox-exec", "/bin/bash", "-c", PROLOGUE + "ls /x"]
    proc(t, 4100, 4101, [wrapper, wrapper[3:]], 2, 20 * MS)
    proc(t + MS, 4101, 4102, [["ls", "/x"]], 2, 5 * MS)
    t += 25 * MS
    proc(t, 4100, 4103, [["git", "rev-parse", "--show-toplevel"]], 128, 3 * MS)
    proc(t + 4 * MS, 4100, 4104, [["sh", "-c", "rg --version"]], 127, 3 * MS)
    t += 10 * MS
    # turn 2: toolu_1's result; head and first token in one record 200 ms later
    io(4100, 1, t, "write", request([{"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_1", "is_error": True, "content": "no"}]}]))
    io(4100, 1, t + 200 * MS, "read", HEAD + chunk(sse("message_start", {"type": "message_start"})))
    end = answer(4100, 1, t + 200 * MS + 1, tokens=3)
    add(type="exit", ts_ns=end + 5 * MS, tgid=4200, exit_code=0, cpu_ns=MS)
    add(type="exit", ts_ns=end + 5 * MS, tgid=4100, exit_code=0, cpu_ns=MS)
    ev.sort(key=lambda e: e["ts_ns"])
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "fidelity.jsonl"), "w") as f:
        f.write("# generated by gen_fidelity.py: what real agent CLIs do, as capture events\n")
        for e in ev:
            f.write(json.dumps(e) + "\n")


if __name__ == "__main__":
    main()
