#!/usr/bin/env python3
"""snoop_compare.py RAW.jsonl EXECSNOOP.txt EXITSNOOP.txt ROOT_PID - check the
fork/exec/exit records of an xperf-bpf --raw dump against what Debian's
libbpf-tools execsnoop (-q) and exitsnoop saw at the same time.

Ground truth set: every process whose (pid -> ppid) chain, taken from the
two reference tools alone, reaches ROOT_PID. Then:
  - the pids xperf-bpf saw exec == the pids execsnoop saw exec in the set,
    with the same filename + argv[1:];
  - the pids xperf-bpf saw exit == the pids exitsnoop saw exit in the set,
    with the same exit code or signal, and ages within 20 ms.
"""
import json
import shlex
import sys


def load_snoop(path, ncols):
    rows = []
    with open(path, errors="replace") as f:
        for line in f:
            parts = line.split(None, ncols - 1)
            if len(parts) < ncols - 1 or not parts[1].isdigit():
                continue
            rows.append(parts)
    return rows


def main():
    raw, es_path, xs_path, root = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    with open(raw) as f:
        recs = [json.loads(line) for line in f][:-1]

    # execsnoop -q: PCOMM PID PPID RET ARGS ; exitsnoop: PCOMM PID PPID TID AGE EXIT_CODE
    execs = {}
    parent = {}
    for p in load_snoop(es_path, 5):
        pid, ppid = int(p[1]), int(p[2])
        parent[pid] = ppid
        if p[3] == "0":
            execs.setdefault(pid, []).append(p[4] if len(p) > 4 else "")
    exits = {}
    for p in load_snoop(xs_path, 6):
        pid, ppid = int(p[1]), int(p[2])
        parent.setdefault(pid, ppid)
        code = p[5].strip()  # "0", "code N" or "signal N (NAME)"
        exits[pid] = (float(p[4]), "code 0" if code == "0" else code)

    def in_tree(pid):
        seen = set()
        while pid not in seen:
            if pid == root:
                return True
            seen.add(pid)
            if pid not in parent:
                return False
            pid = parent[pid]
        return False

    errors = []
    mine_exec = {}
    for r in recs:
        if r["type"] == "exec":
            mine_exec.setdefault(r["tgid"], []).append([r["filename"]] + r["argv"][1:])
    ref_exec = {pid: [shlex.split(a) for a in v] for pid, v in execs.items() if in_tree(pid)}
    if mine_exec != ref_exec:
        errors.append("exec mismatch:\n  xperf-bpf %s\n  execsnoop %s" % (mine_exec, ref_exec))

    mine_exit = {}
    for r in recs:
        if r["type"] == "exit":
            code = ("signal %d" % r["signal"]) if r["signal"] else "code %d" % r["exit_code"]
            mine_exit[r["tgid"]] = (r["duration_ns"] / 1e9, code)
    ref_exit = {pid: v for pid, v in exits.items() if in_tree(pid)}
    if set(mine_exit) != set(ref_exit):
        errors.append("exit pids differ: xperf-bpf %s exitsnoop %s" %
                      (sorted(mine_exit), sorted(ref_exit)))
    for pid in set(mine_exit) & set(ref_exit):
        (age, code), (rage, rcode) = mine_exit[pid], ref_exit[pid]
        if not rcode.startswith(code) or abs(age - rage) > 0.02:
            errors.append("pid %d: xperf-bpf %s/%.3fs exitsnoop %s/%.2fs" %
                          (pid, code, age, rcode, rage))
    if len(ref_exec) < 4 or len(ref_exit) < 5:
        errors.append("too few reference events: %d execs, %d exits" %
                      (len(ref_exec), len(ref_exit)))
    if errors:
        sys.exit("\n".join(errors))
    print("matched %d execs and %d exits" % (len(ref_exec), len(ref_exit)))


if __name__ == "__main__":
    main()
