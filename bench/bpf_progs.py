# SPDX-License-Identifier: MIT
"""bpf_progs.py - reads what bpf_progs.sh's prog_stats_json wrote (bench/ebpf, bench/tls)."""
import json


def load(path):
    """Program name -> (run_cnt, run_time_ns), from bpftool's JSON lines (kernel.bpf_stats)."""
    out = {}
    for line in open(path):
        line = line.strip()
        if line:
            p = json.loads(line)
            if "name" in p:  # a program gone meanwhile: bpftool answers {"error": ...}
                out[p["name"]] = (p.get("run_cnt", 0), p.get("run_time_ns", 0))
    return out
