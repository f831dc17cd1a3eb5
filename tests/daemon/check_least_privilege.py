#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_least_privilege.py TMP - the assertions of least_privilege_test.sh over
TMP/least.{caps,err,pid} and TMP/least/raw.jsonl."""
import glob
import os
import sys

from checklib import done, expect, jsonl

tmp = sys.argv[1]
CAP = {"sys_ptrace": 19, "perfmon": 38, "bpf": 39}


def run(name):
    caps = {}
    for line in open(os.path.join(tmp, name + ".caps")):
        k, v = line.split(":")
        caps[k] = int(v, 16)
    pid = int(open(os.path.join(tmp, name + ".pid")).read())
    raw = jsonl(os.path.join(tmp, name, "raw.jsonl"))
    mine = {r["type"] for r in raw if r.get("tgid") == pid}
    sessions = glob.glob(os.path.join(tmp, name, "out", "lp", "python3-%d-*" % pid))
    err = open(os.path.join(tmp, name + ".err")).read()
    return caps, pid, mine, sessions, err


want = (1 << CAP["bpf"]) | (1 << CAP["perfmon"]) | (1 << CAP["sys_ptrace"])
caps, pid, mine, sessions, err = run("least")
for k in ("CapEff", "CapBnd", "CapAmb"):
    expect(caps[k] == want, "least: %s is exactly CAP_BPF|CAP_PERFMON|CAP_SYS_PTRACE (%x)" %
           (k, caps[k]))
expect(len(sessions) == 1, "least: the agent (pid %d) discovered, a session of its own" % pid)
need = {"exec", "exit", "sched", "sock_connect", "sock_sni", "sock_data"}
expect(need <= mine, "least: exec, exit, scheduler and socket tier traced (%s)" % sorted(mine))
expect("tls_data" not in mine and "Permission denied" in err,
       "least: no plaintext, the uprobe refusal said on stderr")
done()
