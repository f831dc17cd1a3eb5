#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench.py XPERF_BPF BUN REPS - the measurements of bench/daemon/run.sh (see there)."""
import glob
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

XPERF, BUN, REPS = sys.argv[1], sys.argv[2], int(sys.argv[3])
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
AGENTS = (1, 10, 50)
# streaming calls per agent (mock "simple": 60 ms TTFT, 12 tokens 10 ms apart)
CALLS = int(os.environ.get("BENCH_CALLS", "8"))
SPAWN_RATE, SPAWN_S = 1000, 3
TMP = tempfile.mkdtemp(prefix="bench_daemon.")
CLK = os.sysconf("SC_CLK_TCK")
PROCS = []         # killed at exit, whatever happens


def wait_for(pred, timeout, what):
    t = time.monotonic() + timeout
    while time.monotonic() < t:
        if pred():
            return
        time.sleep(0.02)
    sys.exit("bench/daemon: timed out waiting for " + what)


def cpu_s(pid):
    f = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / CLK


def rss_kib(pid, key):
    for line in open("/proc/%d/status" % pid):
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return 0


def uprobe_stats(pid):
    """Run count and time of the daemon's uprobe programs (prog_type kprobe: the TLS ones;
    CUDA's have no calls here), from its fds' fdinfo (kernel.bpf_stats_enabled on)."""
    cnt = ns = 0
    for fd in os.listdir("/proc/%d/fd" % pid):
        try:
            if os.readlink("/proc/%d/fd/%s" % (pid, fd)) != "anon_inode:bpf-prog":
                continue
            info = dict(line.split(":", 1) for line in open("/proc/%d/fdinfo/%s" % (pid, fd)))
        except OSError:
            continue
        if info.get("prog_type", "").strip() == "2":  # BPF_PROG_TYPE_KPROBE: uprobes too
            cnt += int(info.get("run_cnt", 0))
            ns += int(info.get("run_time_ns", 0))
    return cnt, ns


def start_mock():
    d = os.path.join(TMP, "mock")
    p = subprocess.Popen([sys.executable, os.path.join(ROOT, "demo/mock_provider.py"), "--dir", d],
                         stdout=subprocess.DEVNULL)
    wait_for(lambda: os.path.exists(d + "/port") and open(d + "/port").read().strip(), 10, "mock")
    return p, open(d + "/port").read().strip(), d + "/ca.pem"


def start_daemon(out, err_path, *args):
    err = open(err_path, "w")
    p = subprocess.Popen([XPERF, "daemon", "-o", out, "--node", "n", *args], stderr=err)
    PROCS.append(p)
    wait_for(lambda: "ready" in open(err_path).read() or p.poll() is not None, 60, "the daemon")
    if p.poll() is not None:
        sys.exit("bench/daemon: the daemon failed: " + open(err_path).read())
    return p


def agent_cmd(client, port, ca, gate):
    if client == "python3":
        return [shutil.which("python3"), os.path.join(TMP, "bench_agent.py"), port, ca, gate,
                str(CALLS)]
    return [os.path.join(TMP, "benchbun"), port, gate, str(CALLS)]


def one_run(client, n, traced, port, ca, rep):
    """CPU of the agents over their calls, and (traced) the daemon's figures."""
    tag = "%s-%d-%s-%d" % (client, n, "traced" if traced else "bare", rep)
    gate, out, errp = [os.path.join(TMP, tag + x) for x in (".gate", ".out", ".err")]
    daemon = None
    if traced:
        daemon = start_daemon(out, errp, "--exe", "benchbun", "--cmdline", "*/bench_agent.py*")
    env = dict(os.environ, NODE_EXTRA_CA_CERTS=ca)
    agents = [subprocess.Popen(agent_cmd(client, port, ca, gate), stdout=subprocess.PIPE, env=env)
              for _ in range(n)]
    if traced:  # every agent traced before the calls: the python ones are added by the daemon
        wait_for(lambda: open(errp).read().count("tracing pid") >= n, 30, "the agents traced")
    else:
        time.sleep(0.5)
    d_cpu0 = cpu_s(daemon.pid) if daemon else 0
    u0 = uprobe_stats(daemon.pid) if daemon else (0, 0)
    t0 = time.monotonic()
    open(gate, "w").close()
    cpu = 0
    for a in agents:
        o, _ = a.communicate()
        if a.returncode:
            sys.exit("bench/daemon: a %s agent failed (%d)" % (client, a.returncode))
        cpu += json.loads(o)["cpu_us"]
    wall = time.monotonic() - t0
    r = {"cpu_us": cpu, "wall_s": wall}
    if daemon:
        wait_for(lambda: open(errp).read().count("ended") >= n, 10, "the sessions' end")
        r["daemon_cpu_s"] = cpu_s(daemon.pid) - d_cpu0
        u1 = uprobe_stats(daemon.pid)
        r["uprobe_runs"], r["uprobe_ns"] = u1[0] - u0[0], u1[1] - u0[1]
        r["rss_kib"] = rss_kib(daemon.pid, "VmRSS")
        r["hwm_kib"] = rss_kib(daemon.pid, "VmHWM")
        daemon.send_signal(signal.SIGTERM)
        daemon.wait()
        caps = [json.load(open(p)) for p in glob.glob(out + "/n/*/capture.json")]
        r["ssl_calls"] = sum(c["records"].get("tls_data", 0) for c in caps)
        r["lost"] = sum(c.get("dropped", 0) for c in caps)
        r["sessions"] = len(caps)
        shutil.rmtree(out, ignore_errors=True)
    return r


def spread(xs):
    return "%.1f (%.1f-%.1f)" % (statistics.median(xs), min(xs), max(xs))


def per_call_table(port, ca):
    runs = {}
    for rep in range(REPS):  # interleaved: every configuration once per repeat
        for client in ("python3", "bun"):
            for n in AGENTS:
                for traced in (False, True):
                    runs.setdefault((client, n, traced), []).append(
                        one_run(client, n, traced, port, ca, rep))
                print("  rep %d/%d %s x%d done" % (rep + 1, REPS, client, n), file=sys.stderr)
    print("\n## Per-SSL-call cost, 1/10/50 concurrent agents (%d streaming calls each; "
          "%d interleaved runs: median (min-max))\n" % (CALLS, REPS))
    print("| client | agents | SSL calls/agent | bare CPU µs/call | added µs/call "
          "| added vs 1 agent | uprobe runs/call | BPF ns/run | BPF vs 1 agent "
          "| daemon CPU ms/agent | daemon RSS MiB (peak) | lost |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for client in ("python3", "bun"):
        base = bpf_base = None
        for n in AGENTS:
            bare, tr = runs[(client, n, False)], runs[(client, n, True)]
            calls = [t["ssl_calls"] for t in tr]
            added = [(t["cpu_us"] - b["cpu_us"]) / max(t["ssl_calls"], 1) for b, t in zip(bare, tr)]
            bare_call = [b["cpu_us"] / max(t["ssl_calls"], 1) for b, t in zip(bare, tr)]
            bpf = [t["uprobe_ns"] / max(t["uprobe_runs"], 1) for t in tr]
            base = base or statistics.median(added)
            bpf_base = bpf_base or statistics.median(bpf)
            print("| %s | %d | %d | %s | %s | %s | %.2f | %s | %.2fx | %s | %.1f (%.1f) | %d |" % (
                client, n, statistics.median(calls) // n, spread(bare_call), spread(added),
                "%.2fx" % (statistics.median(added) / base) if base > 0 else "n/a",
                statistics.median([t["uprobe_runs"] / max(t["ssl_calls"], 1) for t in tr]),
                spread(bpf), statistics.median(bpf) / bpf_base if bpf_base else float("nan"),
                spread([t["daemon_cpu_s"] * 1e3 / n for t in tr]),
                statistics.median([t["rss_kib"] for t in tr]) / 1024,
                max(t["hwm_kib"] for t in tr) / 1024, sum(t["lost"] for t in tr)))
    return runs


def exec_exit_table():
    spawn = os.path.join(TMP, "spawn")
    subprocess.check_call(["cc", "-O2", "-o", spawn, os.path.join(HERE, "spawn.c")])
    short = os.path.join(TMP, "shortagent")
    shutil.copy("/bin/true", short)
    bt_out = os.path.join(TMP, "bpftrace.out")
    bt = subprocess.Popen(["bpftrace", "-e",
                           'tracepoint:sched:sched_process_exec /comm == "shortagent"/ '
                           '{ @exec = count(); } '
                           'tracepoint:sched:sched_process_exit /comm == "shortagent" && '
                           'pid == tid/ { @exit = count(); }'],
                          stdout=open(bt_out, "w"), stderr=subprocess.STDOUT)
    PROCS.append(bt)
    wait_for(lambda: "Attaching" in open(bt_out).read(), 30, "bpftrace")
    out, errp, raw = [os.path.join(TMP, "short" + x) for x in ("", ".err", ".jsonl")]
    daemon = start_daemon(out, errp, "--exe", "shortagent", "--raw", raw)
    time.sleep(1)  # bpftrace's probes attached (its "Attaching" comes first)
    t0 = time.monotonic()
    sp = json.loads(subprocess.check_output([spawn, str(SPAWN_RATE), str(SPAWN_S), short]))
    rate = sp["started"] / (time.monotonic() - t0)
    time.sleep(2)
    daemon.send_signal(signal.SIGTERM)
    daemon.wait()
    bt.send_signal(signal.SIGINT)
    bt.wait()
    truth = {k: 0 for k in ("exec", "exit")}
    for line in open(bt_out):
        if line.startswith("@"):
            k, v = line[1:].split(":")
            truth[k] = int(v)
    execs, exits, end = set(), 0, {}
    recs = [json.loads(x) for x in open(raw)]
    for r in recs:
        if r["type"] == "exec" and r.get("comm") == "shortagent":
            execs.add(r["tgid"])
    exits = sum(1 for r in recs if r["type"] == "exit" and r["tgid"] in execs)
    end = recs[-1] if recs and recs[-1]["type"] == "end" else {}
    summary = [x for x in open(errp) if "agents traced" in x]
    print("\n## %d short processes a second for %d s (`/bin/true` as `shortagent`, an `exe` rule)\n"
          % (SPAWN_RATE, SPAWN_S))
    print("| started / reaped (spawner) | rate /s | exec: bpftrace | exec: daemon "
          "| exit: bpftrace | exit: daemon | missed by the daemon | lost (all types) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    print("| %d / %d | %.0f | %d | %d | %d | %d | %d | %s |" % (
        sp["started"], sp["exited"], rate, truth["exec"], len(execs), truth["exit"], exits,
        sp["started"] - len(execs), end.get("dropped", "?")))
    print("\ndaemon: " + (summary[0].strip() if summary else "(no summary)"))
    return len(execs) == exits == sp["started"] == sp["exited"]


def main():
    shutil.copy(os.path.join(HERE, "agent.py"), os.path.join(TMP, "bench_agent.py"))
    subprocess.check_call([BUN, "build", "--compile", os.path.join(HERE, "agent.js"),
                           "--outfile", os.path.join(TMP, "benchbun")], stdout=subprocess.DEVNULL)
    mock, port, ca = start_mock()
    stats_was = open("/proc/sys/kernel/bpf_stats_enabled").read().strip()
    open("/proc/sys/kernel/bpf_stats_enabled", "w").write("1")
    try:
        print("# bench/daemon: %s, %d CPUs, kernel %s" % (
            time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), os.cpu_count(), os.uname().release))
        if "--only-exec" not in os.environ.get("BENCH_DAEMON", ""):
            per_call_table(port, ca)
        ok = exec_exit_table()
    finally:
        open("/proc/sys/kernel/bpf_stats_enabled", "w").write(stats_was)
        for p in PROCS + [mock]:
            if p.poll() is None:
                p.kill()
        shutil.rmtree(TMP, ignore_errors=True)
    sys.exit(0 if ok else 1)


main()
