#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_late_lib.py TMP - the checks of cli_late_lib_test.sh: TMP/late.jsonl and
TMP/race.jsonl (payloads) against the server's logs of its two connections, and
the late_libs counters of TMP/{late,race,none}/<session>/capture.json, and the
socket hooks they ran on ($XPERF_SOCKET_HOOKS, when set and not auto)."""
import glob
import json
import os
import sys

from raw_payloads import exact, server_conns

tmp = sys.argv[1]
errs = []
ins = server_conns(tmp, 2)


def late_libs(run):
    c = json.load(open(glob.glob(os.path.join(tmp, run, "*", "capture.json"))[0]))
    tls = c.get("modules", {}).get("tls", {})
    hooks = os.environ.get("XPERF_SOCKET_HOOKS", "auto")
    if hooks != "auto" and tls.get("socket_hooks") != hooks:
        errs.append("%s: socket hooks %s, asked for %s" % (run, tls.get("socket_hooks"), hooks))
    return c["records"], tls.get("late_libs", {})


errs += exact(tmp, "late", ins[0])
recs, stats = late_libs("late")
if recs.get("map_exec", 0) < 1 or stats.get("attached") != 1:
    errs.append("late library not counted: records %s, late_libs %s" % (recs, stats))
missed = exact(tmp, "race", ins[1])
recs, race = late_libs("race")
# A client done before its library was probed (a loaded machine) leaves nothing to
# attach: the miss must still be counted.
if (missed and not race.get("socket_io_before_probes")) or (not missed and race.get("attached") != 1):
    errs.append("race: %s silently, late_libs %s" % (missed, race))
recs, nstats = late_libs("none")
if recs.get("map_exec", 0) < 1 or nstats.get("attached") != 0 or \
        nstats.get("socket_io_before_probes") != 0:
    errs.append("no TLS library: records %s, late_libs %s" % (recs, nstats))
for e in errs:
    print("FAIL:", e)
print("late lib: %s; racing calls: %s (%s); no TLS lib: %s; %d error(s)"
      % (stats, race, "missed" if missed else "exact", nstats, len(errs)))
sys.exit(1 if errs else 0)
