#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_container.py TMP --rc N --exe NAME - the assertions of container_test.sh over
TMP/out/cnode/*/ (the session), TMP/raw.jsonl (every record read from the ring),
TMP/mock.jsonl (the mock's log), TMP/agent.pid, TMP/agent_exe (its /proc/PID/exe),
TMP/mapped_libssl (device and inode of its libssl mapping), TMP/{host,ctr}_libssl
(inodes of the two libssl files) and TMP/host_view (the mount point seen from the
host)."""
import argparse
import glob
import json
import os

from checklib import done, expect, jsonl, mock_received

ap = argparse.ArgumentParser()
ap.add_argument("tmp")
ap.add_argument("--rc", type=int, required=True)
ap.add_argument("--exe", required=True, help="the agent's executable's name (the rule)")
a = ap.parse_args()


def read(name):
    return open(os.path.join(a.tmp, name)).read().strip()


pid = int(read("agent.pid"))
raw = [r for r in jsonl(os.path.join(a.tmp, "raw.jsonl")) if r.get("tgid") == pid]
received = mock_received(a.tmp)
expect(a.rc == 0, "daemon exit status 0 on SIGTERM (got %d)" % a.rc)
expect(read("host_view") == "", "the agent's executable is not at its path on the host")
expect(read("host_libssl") != read("ctr_libssl"), "its libssl is another inode than the host's")
want = os.path.join(a.tmp, "ctr", a.exe)
expect(read("agent_exe") == want, "its executable, seen by the kernel, is %s (%s)" %
       (want, read("agent_exe")))
expect(read("mapped_libssl").split()[-1] == read("ctr_libssl"),
       "the libssl it mapped is the copy (inode %s; /proc/PID/maps: %s)" %
       (read("ctr_libssl"), read("mapped_libssl")))
sessions = glob.glob(os.path.join(a.tmp, "out", "cnode", "*", "capture.json"))
d = os.path.dirname(sessions[0]) if sessions else None
expect(len(sessions) == 1 and json.load(open(sessions[0]))["root_pid"] == pid,
       "one session, of the agent (pid %d)" % pid)
spans = []
for f in sorted(glob.glob(os.path.join(d, "turn_*.json")) if d else []):
    t = json.load(open(f))
    if t["complete"] and t["data_quality"]["tier"] == "plaintext":
        spans += [(s["start_ns"], s["end_ns"]) for s in t["spans"] if s["stage"] == "llm_inference"]
expect(len(received) == 2 and len(spans) == 2 and
       all(any(s <= t <= e for s, e in spans) for t in received),
       "its 2 calls whole in plaintext (uprobes on the copy), each spanning the mock's receipt "
       "(%d calls, %d requests)" % (len(spans), len(received)))
expect(any(r["type"] == "tls_data" for r in raw), "TLS plaintext records of it in the ring")
done()
