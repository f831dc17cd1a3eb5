# SPDX-License-Identifier: MIT
"""bpf_progs.py - reads what bpf_progs.sh's prog_stats_json wrote (bench/ebpf, bench/tls)."""
import json


def load(path):
    """Program name -> (run_cnt, run_time_ns), from bpftool's JSON lines (kernel.bpf_stats).
    A name held twice (bpftrace names its uprobe and uretprobe both after the function)
    gets " #2" in program id order."""
    progs = []
    for line in open(path):
        line = line.strip()
        if line:
            p = json.loads(line)
            if "name" in p:  # a program gone meanwhile: bpftool answers {"error": ...}
                progs.append((p["id"], p["name"], p.get("run_cnt", 0), p.get("run_time_ns", 0)))
    out = {}
    for _, name, cnt, ns in sorted(progs):
        key, i = name, 1
        while key in out:
            i += 1
            key = "%s #%d" % (name, i)
        out[key] = (cnt, ns)
    return out
