#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check.py - the fault suite's checks after each fault (exit 1 with a reason).

  check.py session XPERF DIR [--clean] [--losses N]
      every turn_*.json in DIR passes `xperf validate`; capture.json, when there,
      is JSON whose per-type drops add up to "dropped"; --clean (the tracer was
      stopped, not killed): capture.json is there and no temporary file is left;
      --losses N: capture.json counts exactly N lost records.
  check.py cycle XPERF DIR SIGNAL AGENT_LOG [COMMAND_LOG N]
      after one fault to the tracer, just dead: `session` on DIR (--clean for
      TERM), `calls` on the agent's log after now, and on the log of the
      command a `record` started (--ended, --min N).
  check.py calls LOG [--after NS] [--min N] [--wait] [--ended]
      every call of the agent's log got its whole answer and ran its tool, at
      least N calls (--wait: up to 15 s for them). --after NS (CLOCK_MONOTONIC,
      the tracer's death): the int3 of its uprobes leaves SSL_write within
      GRACE_S, never to come back; prints how long it took. --ended: the agent
      has ended: it may have made all its calls before NS, or none (a command
      whose tracer died before letting it start does not start).
  check.py unwritten DIR STDERR MIN [--freed]
      a full disk: stderr says "N of M turns not written", N > 0, M >= MIN, and
      DIR holds the other M - N, numbered 1..M; --freed (space came back during
      the run): a turn was written after the first missing one, and
      capture.json's data_quality.turns_not_written is N too.
"""
QUIET_S = 5
GRACE_S = 5
import glob
import json
import os
import re
import subprocess
import sys
import time


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def session(xperf, d, clean=False, losses=None):
    turns = sorted(glob.glob(os.path.join(d, "turn_*.json")))
    if turns:
        p = subprocess.run([xperf, "validate"] + turns, capture_output=True, text=True)
        if p.returncode:
            fail("%s: invalid turn files:\n%s" % (d, p.stdout + p.stderr))
    temps = [f for f in os.listdir(d) if ".tmp." in f] if os.path.isdir(d) else []
    cap = os.path.join(d, "capture.json")
    if os.path.exists(cap):
        try:
            c = json.load(open(cap))
        except ValueError as e:
            fail("%s: %s" % (cap, e))
        if sum(c["drops"].values()) != c["dropped"]:
            fail("%s: drops %s do not add up to dropped %d" % (cap, c["drops"], c["dropped"]))
        if losses is not None and c["dropped"] != losses:
            fail("%s: %d records lost, %d reported elsewhere" % (cap, c["dropped"], losses))
    elif clean and os.path.isdir(d):
        fail("%s: stopped cleanly but no capture.json" % d)
    if clean and temps:
        fail("%s: temporary files left by a clean stop: %s" % (d, temps))
    print("%d turn files valid, capture.json %s, %d temporary left" %
          (len(turns), "valid" if os.path.exists(cap) else "absent", len(temps)))


def untrapped_since(recs, after):
    """Start of the first call after `after` that saw no int3, if every later one saw none."""
    later = [r for r in recs if r["t0_ns"] > after]
    clear = [i for i, r in enumerate(later) if not r["trap0"] and not r["trap1"]]
    if not clear:
        return None
    if any(r["trap0"] or r["trap1"] for r in later[clear[0]:]):
        fail("int3 on SSL_write came back after the tracer ended: %s" % later[clear[0]:])
    return later[clear[0]]["t0_ns"]


def calls(log, after=0, least=0, wait=False, ended=False):
    end = time.monotonic() + (15 if wait else 0) + (GRACE_S if after else 0)
    seen, grew = -1, time.monotonic()
    while True:
        recs = [json.loads(l) for l in open(log)] if os.path.exists(log) else []
        if len(recs) != seen:
            seen, grew = len(recs), time.monotonic()
        clear = untrapped_since(recs, after) if after else 0
        # ended: the command was not found to wait on; it is taken as over once its log
        # has stood still for QUIET_S with no call after `after` (a record stopped in its
        # start-up can take seconds to exit while the command calls on: seen in CI)
        if ended and time.monotonic() - grew > QUIET_S and \
                (not recs or all(r["t0_ns"] < after for r in recs)):
            least, after = (0 if not recs else least), 0
            break
        if (len(recs) >= least and clear is not None) or time.monotonic() > end:
            break
        time.sleep(0.05)
    bad = [r for r in recs if not r["ok"] or r.get("tool") != 0]
    if bad:
        fail("%s: %d of %d calls harmed, first %s" % (log, len(bad), len(recs), bad[0]))
    if len(recs) < least:
        fail("%s: %d calls, expected at least %d" % (log, len(recs), least))
    if after and (clear is None or clear - after > GRACE_S * 1e9):
        fail("%s: int3 on SSL_write still there %d s after the tracer ended" % (log, GRACE_S))
    if after:
        print("  int3 gone %.0f ms after the tracer's end" % ((clear - after) / 1e6))


def unwritten(d, err, least, freed=False):
    said = re.search(r"^xperf-bpf: warning: (\d+) of (\d+) turns not written to (\S+) "
                     r"\(the first: No space left on device\)$", open(err).read(), re.M)
    if not said or said.group(3) != d:
        fail("%s: no line counts the turns not written:\n%s" % (err, open(err).read()))
    n, turns = int(said.group(1)), int(said.group(2))
    have = {int(re.search(r"turn_(\d+)\.json$", f).group(1))
            for f in glob.glob(os.path.join(d, "turn_*.json"))}
    missing = sorted(set(range(1, turns + 1)) - have)
    if not n or turns < least or len(missing) != n or max(have | {0}) > turns:
        fail("%s: turns %s written, %d said not written, of %d" % (d, sorted(have), n, turns))
    if freed:
        if not have or max(have) < missing[0]:
            fail("%s: no turn written after space came back: %s" % (d, sorted(have)))
        q = json.load(open(os.path.join(d, "capture.json")))["data_quality"]
        if q["turns_not_written"] != n:
            fail("%s: capture.json counts %d turns not written, stderr %d" %
                 (d, q["turns_not_written"], n))
    print("%d of %d turns not written (%s), counted on stderr%s" %
          (n, turns, missing, " and in capture.json" if freed else ""))


def main():
    a = sys.argv[1:]
    opt = lambda name, default=None: int(a[a.index(name) + 1]) if name in a else default
    if a[0] == "cycle":
        dead = time.monotonic_ns()
        session(a[1], a[2], a[3] == "TERM")
        calls(a[4], dead, 0, True)
        if len(a) > 5:  # up to 15 s for the rest: killed early, its command was not found to wait on
            calls(a[5], dead, int(a[6]), True, True)
    elif a[0] == "session":
        session(a[1], a[2], "--clean" in a, opt("--losses"))
    elif a[0] == "unwritten":
        unwritten(a[1], a[2], int(a[3]), "--freed" in a)
    elif a[0] == "calls":
        calls(a[1], opt("--after", 0), opt("--min", 0), "--wait" in a, "--ended" in a)
    else:
        fail("usage: " + __doc__)


if __name__ == "__main__":
    main()
