#!/usr/bin/env python3
# gen_fuzz_seeds.py - writes the seeds of llm_json_fuzz (fuzz_json/), llm_conn_fuzz
# (fuzz_conn/) and http2_fuzz (fuzz_h2/): one exchange per supported API, over
# HTTP/1.1 and HTTP/2 (HPACK literals, no Huffman), in each harness's framing.
# Run from the repository root; it rewrites only the files it names.
import gzip
import json
import os
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ANTHROPIC, CHAT, RESPONSES, OLLAMA_CHAT, OLLAMA_GEN = 1, 2, 3, 4, 5
EVENTS = ["", "message_start", "content_block_start", "content_block_delta", "message_delta",
          "error", "response.completed", "response.created"]


def j(o):
    return json.dumps(o, separators=(",", ":")).encode()


def json_seed(api, mode, event, body):
    """llm_json_fuzz: byte 0 picks the API (b % 5), request/response/event ((b >> 3) % 3), the event name (b >> 5)."""
    for b in range(256):
        if 1 + b % 5 == api and (b >> 3) % 3 == mode and (b >> 5) % 8 == EVENTS.index(event):
            return bytes([b]) + body
    raise ValueError((api, mode, event))


JSON_SEEDS = {
    "anthropic_req": (ANTHROPIC, 0, "", j({"model": "claude-x", "stream": True, "max_tokens": 64,
                                             "tools": [{"name": "bash"}],
                                             "messages": [{"role": "user", "content": "hi"}]})),
    "anthropic_message": (ANTHROPIC, 1, "", j({
        "type": "message", "model": "claude-x", "stop_reason": "tool_use",
        "content": [{"type": "text", "text": "hi"}, {"type": "tool_use", "name": "bash"}],
        "usage": {"input_tokens": 5, "output_tokens": 7, "cache_read_input_tokens": 2}})),
    "anthropic_start": (ANTHROPIC, 2, "message_start", j({
        "type": "message_start", "message": {"model": "claude-x", "usage": {"input_tokens": 3}}})),
    "anthropic_block": (ANTHROPIC, 2, "content_block_start", j({
        "type": "content_block_start", "content_block": {"type": "tool_use", "name": "bash"}})),
    "anthropic_delta": (ANTHROPIC, 2, "content_block_delta", j({
        "type": "content_block_delta", "delta": {"type": "text_delta", "text": "x"}})),
    "anthropic_mdelta": (ANTHROPIC, 2, "message_delta", j({
        "type": "message_delta", "delta": {"stop_reason": "max_tokens"}, "usage": {"output_tokens": 9}})),
    "anthropic_error": (ANTHROPIC, 2, "error", j({"type": "error", "error": {"type": "overloaded_error"}})),
    "chat_req": (CHAT, 0, "", j({"model": "gpt-x", "stream": True, "max_tokens": 5,
                                   "tools": [{"function": {"name": "ls"}}], "messages": []})),
    "chat_resp": (CHAT, 1, "", j({
        "model": "gpt-x", "usage": {"prompt_tokens": 3, "completion_tokens": 4,
                                    "prompt_tokens_details": {"cached_tokens": 1}},
        "choices": [{"message": {"content": "hi", "tool_calls": [{"function": {"name": "ls"}}]},
                     "finish_reason": "tool_calls"}]})),
    "chat_chunk": (CHAT, 2, "", j({"model": "gpt-x", "choices": [
        {"delta": {"content": "x", "reasoning_content": "y"}, "finish_reason": "length"}]})),
    "responses_req": (RESPONSES, 0, "", j({"model": "o-x", "stream": True, "max_output_tokens": 5,
                                             "input": "hi"})),
    "responses_created": (RESPONSES, 2, "response.created", j({
        "type": "response.created", "response": {"model": "o-x", "status": "in_progress"}})),
    "responses_completed": (RESPONSES, 2, "response.completed", j({
        "type": "response.completed", "response": {
            "status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"},
            "usage": {"input_tokens": 3, "output_tokens": 4, "input_tokens_details": {"cached_tokens": 1}},
            "output": [{"type": "function_call", "name": "ls"},
                       {"type": "message", "content": [{"type": "output_text", "text": "x"}]}]}})),
    "ollama_chat_req": (OLLAMA_CHAT, 0, "", j({"model": "llama", "stream": True, "messages": [],
                                                 "options": {"num_predict": 8}})),
    "ollama_chat_resp": (OLLAMA_CHAT, 1, "", j({
        "model": "llama", "message": {"content": "x", "tool_calls": [{"function": {"name": "ls"}}]},
        "done": True, "done_reason": "stop", "prompt_eval_count": 8, "eval_count": 2})),
    "ollama_gen_line": (OLLAMA_GEN, 2, "", j({"model": "llama", "response": "x", "done": True,
                                                "eval_count": 5})),
}


def http1(path, body, resp_head, resp_body):
    req = b"POST %s HTTP/1.1\r\nHost: api.example.com\r\nContent-Type: application/json\r\n" \
          b"Content-Length: %d\r\n\r\n" % (path.encode(), len(body)) + body
    return [(0, req), (1, resp_head + resp_body)]


def chunked(parts):
    return b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in parts) + b"0\r\n\r\n"


def sse(events):
    return [(b"event: %s\n" % e.encode() if e else b"") + b"data: " + d + b"\n\n" for e, d in events]


SSE_HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"


def coded(coding, body, ctype=b"Content-Type: application/json\r\n"):
    """An Anthropic exchange whose answer comes in a Content-Encoding."""
    head = b"HTTP/1.1 200 OK\r\n" + ctype + b"Content-Encoding: %s\r\nContent-Length: %d\r\n\r\n" \
        % (coding.encode(), len(body))
    return http1("/v1/messages", JSON_SEEDS["anthropic_req"][3], head, body)


def conn_records(chunks, lose=None):
    """llm_conn_fuzz: [direction | 0x80 for lost bytes][length] + bytes, at most 255 a record."""
    out = b""
    for i, (d, data) in enumerate(chunks):
        for k in range(0, len(data), 255):
            part = data[k:k + 255]
            out += bytes([d, len(part)]) + part
        if lose == i:
            out += bytes([0x80 | d, 40])
    return out


def h2_frame(ftype, flags, stream, payload):
    return len(payload).to_bytes(3, "big") + bytes([ftype, flags]) + stream.to_bytes(4, "big") + payload


def hpack_literal(index, value):
    """Literal header field without indexing, name from the static table, no Huffman."""
    assert len(value) < 127
    return bytes([index]) + bytes([len(value)]) + value if index < 15 else \
        bytes([0x0F, index - 15, len(value)]) + value


PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"


def h2_exchange(path, body, resp_events):
    headers = b"\x83" + hpack_literal(4, path.encode()) + hpack_literal(1, b"api.example.com") + \
        hpack_literal(31, b"application/json")
    req = PREFACE + h2_frame(4, 0, 0, b"") + h2_frame(1, 4, 1, headers) + h2_frame(0, 1, 1, body)
    resp = h2_frame(4, 0, 0, b"") + h2_frame(1, 4, 1, b"\x88" + hpack_literal(31, b"text/event-stream"))
    for i, ev in enumerate(resp_events):
        resp += h2_frame(0, 1 if i == len(resp_events) - 1 else 0, 1, ev)
    return req, resp


def conn_seeds():
    a_body = JSON_SEEDS["anthropic_req"][3]
    a_events = sse([("message_start", JSON_SEEDS["anthropic_start"][3]),
                    ("content_block_delta", JSON_SEEDS["anthropic_delta"][3]),
                    ("message_delta", JSON_SEEDS["anthropic_mdelta"][3]),
                    ("message_stop", b'{"type":"message_stop"}')])
    chat = sse([("", JSON_SEEDS["chat_chunk"][3]), ("", b"[DONE]")])
    resp = sse([("response.created", JSON_SEEDS["responses_created"][3]),
                ("response.output_text.delta", b'{"type":"response.output_text.delta","delta":"x"}'),
                ("response.completed", JSON_SEEDS["responses_completed"][3])])
    ollama = JSON_SEEDS["ollama_chat_resp"][3] + b"\n"
    h2_req, h2_resp = h2_exchange("/v1/messages", a_body, a_events)
    return {
        "anthropic_chunked": conn_records(http1("/v1/messages", a_body, SSE_HEAD, chunked(a_events))),
        "chat_sse": conn_records(http1("/v1/chat/completions", JSON_SEEDS["chat_req"][3],
                                       SSE_HEAD, chunked(chat))),
        "responses_sse": conn_records(http1("/v1/responses", JSON_SEEDS["responses_req"][3],
                                            SSE_HEAD, chunked(resp))),
        "ollama_ndjson": conn_records(http1(
            "/api/chat", JSON_SEEDS["ollama_chat_req"][3],
            b"HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\nContent-Length: %d\r\n\r\n"
            % len(ollama), ollama)),
        "retry_429": conn_records(http1(
            "/v1/messages", a_body, b"HTTP/1.1 429 Too Many Requests\r\nRetry-After: 1\r\n"
            b"Content-Length: 2\r\n\r\n", b"{}") + http1("/v1/messages", a_body, SSE_HEAD,
                                                        chunked(a_events))),
        "lost_mid_body": conn_records(http1("/v1/messages", a_body, SSE_HEAD, chunked(a_events)),
                                      lose=1),
        "h2_anthropic": conn_records([(0, h2_req), (1, h2_resp)]),
        "gzip_json": conn_records(coded("gzip", gzip.compress(JSON_SEEDS["anthropic_message"][3]))),
        "deflate_sse": conn_records(coded("deflate", zlib.compress(b"".join(a_events)),
                                          b"Content-Type: text/event-stream\r\n")),
    }, h2_resp


def write(d, name, data):
    os.makedirs(os.path.join(HERE, d), exist_ok=True)
    with open(os.path.join(HERE, d, name), "wb") as f:
        f.write(data)


def main():
    for name, (api, mode, event, body) in JSON_SEEDS.items():
        write("fuzz_json", name, json_seed(api, mode, event, body))
    seeds, h2_resp = conn_seeds()
    for name, data in seeds.items():
        write("fuzz_conn", name, data)
    write("fuzz_h2", "sse_response", h2_resp)


if __name__ == "__main__":
    main()
