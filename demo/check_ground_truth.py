#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_ground_truth.py - compares the TurnTrace files of a traced run with the
ground truth the mock provider (and, when given, the sample agent) logged.

  check_ground_truth.py --traces SESSION_DIR --mock MOCK.jsonl [--agent AGENT.jsonl]
                        [--tier plaintext|ciphertext|auto] [--tol-ms 5] [--tiers-ms 2]
                        [--decode-tol-ms T] [--end-tol-ms T] [--control-records]

Exchanges pair with the mock's requests in order. The mock logs each write's
start and return (the bytes left in between). Checked (plaintext tier): the
first token's arrival within the tolerance of the mock's write of it, so TTFT
is right up to the part the mock cannot see (the client's request reaching
it: TTFT may exceed the mock's own by that much, never fall short of it);
decode duration within the tolerance of the mock's (end - first byte);
output tokens and token events exact; the status code. Ciphertext tier: the same timings (no payload, so no tokens).
With --tiers-ms: the ciphertext tier's timing of each exchange (recorded
alongside the plaintext one) agrees on start, end and TTFT. With --end-tol-ms:
the answer's end within that of the mock's write of its last bytes. With
--control-records: each exchange's xperf.ciphertext.control_records counts at
least the HTTP/2 control frames the server read while its answer streamed, or
after it before the next request (control_received: WINDOW_UPDATE, PING ACK, a
keepalive's PING) and at most 3 more (the client's
SETTINGS ACK, a WINDOW_UPDATE after the stream ended, its close_notify).
With --agent: the number of turns, every tool call's command line and exit
code, and the waste marks (LLM errors, retries, failed and repeated tool calls,
truncations), all exact. Prints one line per check; exit 1 on any failure.
"""
import argparse
import collections
import glob
import json
import os
import sys

failures = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)


def load_turns(d):
    files = sorted(glob.glob(os.path.join(d, "turn_*.json")))
    return [json.load(open(f)) for f in files]


def exchanges(turns):
    out = []
    for t in turns:
        spans = t["spans"]
        for s in spans:
            if s["stage"] != "llm_inference":
                continue
            kids = {k["stage"]: k for k in spans if k["parent"] == s["id"]}
            out.append((s, kids, t["data_quality"]["tier"]))
    out.sort(key=lambda x: x[0]["start_ns"])
    return out


def mock_requests(path):
    by = collections.OrderedDict()
    for line in open(path):
        m = json.loads(line)
        by.setdefault(m["id"], {})[m["event"]] = by.get(m["id"], {}).get(m["event"], []) + [m]
    return list(by.values())


def off(v, rng):
    """Distance of v from the interval rng (0 inside)."""
    lo, hi = min(rng), max(rng)
    return lo - v if v < lo else v - hi if v > hi else 0.0


def check_tiers(i, span, tol):
    """The ciphertext tier's timing of the same exchange (xperf.ciphertext.*)."""
    a = span["attributes"]
    if "xperf.ciphertext.start_ns" not in a:
        return check(False, "exchange %d: no ciphertext-tier timing" % i)
    d = [abs(a["xperf.ciphertext.start_ns"] - span["start_ns"]) / 1e6,
         abs(a["xperf.ciphertext.end_ns"] - span["end_ns"]) / 1e6,
         abs(a["xperf.ciphertext.ttft_ns"] - a.get("xperf.ttft_ns", 0)) / 1e6]
    check(max(d) <= tol, "exchange %d: tiers differ by %.2f ms (start), %.2f ms (end), "
          "%.2f ms (TTFT)" % ((i,) + tuple(d)))


def check_end(i, span, m, tol):
    """The answer's last bytes read against the mock's write of them."""
    rr = m["request_received"][0]["t_ns"]
    end = m["end"][0]
    truth = ((end["t_ns"] - rr) / 1e6, (end.get("t_done_ns", end["t_ns"]) - rr) / 1e6)
    got = (span["end_ns"] - rr) / 1e6
    check(off(got, truth) <= tol, "exchange %d: answer ended %.2f ms after the request; mock "
          "wrote its end %.2f..%.2f ms after reading it" % ((i, got) + truth))


def check_control(i, span, m):
    """Control records (assemble/cipher.h) against the control frames the server read."""
    n = len(m.get("control_received", []))
    got = span["attributes"].get("xperf.ciphertext.control_records")
    check(got is not None and n <= got <= n + 3,
          "exchange %d: %s control records, server read %d control frames for it"
          % (i, got, n))


def check_exchange(i, span, kids, m, tier, tol, dec_tol=None):
    a = span["attributes"]
    rr = m["request_received"][0]["t_ns"]
    fb = m["first_byte_sent"][0]
    end = m["end"][0]
    # the mock knows when a write began and when it returned: the bytes left in between
    ttft_truth = ((fb["t_ns"] - rr) / 1e6, (fb["t_done_ns"] - rr) / 1e6)
    end_done = end.get("t_done_ns", end["t_ns"])
    dec_truth = ((end["t_ns"] - fb["t_done_ns"]) / 1e6, (end_done - fb["t_ns"]) / 1e6)
    ttft = a.get("xperf.ttft_ns", 0) / 1e6
    first = kids["ttft"]["end_ns"]  # when the first token arrived
    dec = (kids["decode"]["end_ns"] - kids["decode"]["start_ns"]) / 1e6
    check(off(first / 1e6, (fb["t_ns"] / 1e6, fb["t_done_ns"] / 1e6)) <= tol and
          ttft >= ttft_truth[0] - tol,
          "exchange %d: first token %.2f ms after the request (TTFT %.2f ms); mock wrote it "
          "%.2f..%.2f ms after reading the request" % ((i, (first - rr) / 1e6, ttft) + ttft_truth))
    check(off(dec, dec_truth) <= (tol if dec_tol is None else dec_tol),
          "exchange %d: decode %.2f ms, mock %.2f..%.2f ms" % ((i, dec) + dec_truth))
    if tier != "plaintext":
        return
    check(a.get("http.response.status_code") == end["status"],
          "exchange %d: status %s, mock %s" % (i, a.get("http.response.status_code"), end["status"]))
    if end["status"] == 200:
        check(a.get("gen_ai.usage.output_tokens") == end["output_tokens"],
              "exchange %d: output tokens %s, mock %s" % (i, a.get("gen_ai.usage.output_tokens"),
                                                         end["output_tokens"]))
    n = len(a.get("xperf.token_times_ns", []))
    check(n == len(m.get("token_sent", [])),
          "exchange %d: %d token events, mock sent %d" % (i, n, len(m.get("token_sent", []))))


def expected_waste(agent, mock):
    tools = [e for e in agent if e["event"] == "tool"]
    seen, repeated = set(), 0
    for t in tools:
        cmd = " ".join(t["argv"])
        repeated += cmd in seen
        seen.add(cmd)
    want = {
        "llm_error": sum(1 for m in mock if m["end"][0]["status"] >= 400),
        "retry": sum(1 for e in agent if e["event"] == "llm" and e["attempt"] > 0),
        "failed_tool_call": sum(1 for t in tools if t["exit"] != 0),
        "repeated_tool_call": repeated,
        "truncated_output": sum(1 for e in agent if e["event"] == "answer" and e["stop"] == "max_tokens"),
    }
    return {k: v for k, v in want.items() if v}


def check_agent(turns, agent, mock, tol):
    done = [e for e in agent if e["event"] == "done"]
    check(done and len(turns) == done[0]["turns"],
          "turns: %d, agent ran %s" % (len(turns), done[0]["turns"] if done else "?"))
    tools = [e for e in agent if e["event"] == "tool"]
    got = [s for t in turns for s in t["spans"] if s["stage"] == "tool_call"]
    got.sort(key=lambda s: s["start_ns"])
    check(len(got) == len(tools), "tool calls: %d, agent ran %d" % (len(got), len(tools)))
    for g, t in zip(got, tools):
        a = g["attributes"]
        check(a.get("process.command_line") == " ".join(t["argv"]) and
              a.get("process.exit.code") == t["exit"],
              "tool %r exit %s, agent: %r exit %s" % (a.get("process.command_line"),
                                                      a.get("process.exit.code"), " ".join(t["argv"]), t["exit"]))
    marks = collections.Counter(w["kind"] for t in turns for w in t["waste_marks"])
    want = expected_waste(agent, mock)
    check(dict(marks) == want, "waste marks %s, expected %s" % (dict(marks), want))
    check_rate_limit_waits(turns, agent, tol)


def check_rate_limit_waits(turns, agent, tol):
    """Each wait after a 429 is one fused-supply rate_limit_wait span, as long as the
    agent's own wait (429 answer parsed -> retry sent), that no waste mark claims."""
    llm = [e for e in agent if e["event"] == "llm"]
    truth = [(a["t_done_ns"], b["t_send_ns"]) for a, b in zip(llm, llm[1:])
             if a["status"] == 429 and b["attempt"] > 0]
    waits = [(t, s) for t in turns for s in t["spans"] if s["stage"] == "rate_limit_wait"]
    check(len(waits) == len(truth), "rate_limit_wait spans: %d, agent waited %d time(s)"
          % (len(waits), len(truth)))
    for (t, s), (done, sent) in zip(sorted(waits, key=lambda w: w[1]["start_ns"]), truth):
        dur, want = (s["end_ns"] - s["start_ns"]) / 1e6, (sent - done) / 1e6
        check(abs(dur - want) <= tol and s["category"] == "supply",
              "rate_limit_wait %.2f ms (%s), agent waited %.2f ms" % (dur, s["category"], want))
        claimed = [w["kind"] for w in t["waste_marks"] if w.get("span") == s["id"]]
        check(not claimed, "rate_limit_wait span %d claimed by waste marks %s" % (s["id"], claimed))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--traces", required=True)
    ap.add_argument("--mock", required=True)
    ap.add_argument("--agent")
    ap.add_argument("--tier", default="plaintext",
                    help="plaintext, ciphertext, or auto: each turn's own data_quality.tier")
    ap.add_argument("--tol-ms", type=float, default=5.0)
    ap.add_argument("--decode-tol-ms", type=float,
                    help="decode (first token to last byte), default --tol-ms: the last read "
                         "waits for a CPU on a loaded machine")
    ap.add_argument("--tiers-ms", type=float,
                    help="also require the ciphertext tier to agree within this many ms")
    ap.add_argument("--end-tol-ms", type=float,
                    help="also check the answer's end against the mock's write of it")
    ap.add_argument("--control-records", action="store_true",
                    help="also check xperf.ciphertext.control_records (mock: control_received)")
    a = ap.parse_args()
    turns = load_turns(a.traces)
    mock = [m for m in mock_requests(a.mock) if "end" in m]
    ex = exchanges(turns)
    check(len(mock) > 0 and len(ex) == len(mock),
          "exchanges: %d, mock answered %d" % (len(ex), len(mock)))
    tiers = sorted(set(t["data_quality"]["tier"] for t in turns))
    if a.tier == "auto":  # the tier the client actually got, as each turn reports it
        print("info  tier(s) reported: %s" % ", ".join(tiers))
    else:
        check(tiers == [a.tier], "tier %s in every turn" % a.tier)
    for i, ((span, kids, tier), m) in enumerate(zip(ex, mock), 1):
        check_exchange(i, span, kids, m, tier, a.tol_ms, a.decode_tol_ms)
        if a.tiers_ms is not None:
            check_tiers(i, span, a.tiers_ms)
        if a.end_tol_ms is not None:
            check_end(i, span, m, a.end_tol_ms)
        if a.control_records:
            check_control(i, span, m)
    if a.agent:
        check_agent(turns, [json.loads(l) for l in open(a.agent)], mock, a.tol_ms)
    print("%d check(s) failed" % len(failures) if failures else "all checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
