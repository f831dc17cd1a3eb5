#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench.py XPERF_BPF BUN REPS - the measurements of bench/daemon/run.sh (see there)."""
import ctypes
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
# (traced agents, bystanders): 1, 10 and 50 agents; BENCH_BYSTANDERS=1 adds 1 among 49
# bystanders (the SSL calls of 50 processes trapping, one traced: is a change with N the
# tracing's, or the trap path's, warmer when it runs more often?)
CONFIGS = ((1, 0), (10, 0), (50, 0)) + (((1, 49),) if os.environ.get("BENCH_BYSTANDERS") else ())
# streaming calls per agent (mock "simple": 60 ms TTFT, 12 tokens 10 ms apart)
CALLS = int(os.environ.get("BENCH_CALLS", "8"))
SPAWN_RATE, SPAWN_S = 1000, 3
TMP = tempfile.mkdtemp(prefix="bench_daemon.")
PROCS = []         # killed at exit, whatever happens
T0 = time.monotonic()


def wait_for(pred, timeout, what):
    t = time.monotonic() + timeout
    while time.monotonic() < t:
        if pred():
            return
        time.sleep(0.02)
    sys.exit("bench/daemon: timed out waiting for " + what)


def cpu_ns(pid):
    """CPU time of every thread of pid (schedstat: ns, not 10 ms ticks)."""
    ns = 0
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            ns += int(open("/proc/%d/task/%s/schedstat" % (pid, tid)).read().split()[0])
        except OSError:
            pass
    return ns


def rss_kib(pid, key):
    for line in open("/proc/%d/status" % pid):
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return 0


def uprobe_stats(pid):
    """Run count and time of the daemon's uprobe programs (prog_type kprobe: the TLS ones;
    CUDA's have no calls here), from its fds' fdinfo (BPF_ENABLE_STATS: enable_bpf_stats)."""
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


def twin_env():
    """An environment whose libssl is a copy (another inode: the daemon's uprobes, on the
    node's libssl file, never fire in it)."""
    lib = os.path.join(TMP, "lib")
    if not os.path.isdir(lib):
        os.mkdir(lib)
        for so in ("libssl.so.3", "libcrypto.so.3"):
            shutil.copy(os.path.join("/lib/x86_64-linux-gnu", so), lib)
    return dict(os.environ, LD_LIBRARY_PATH=lib)


def start_mock():
    d = os.path.join(TMP, "mock")
    p = subprocess.Popen([sys.executable, os.path.join(ROOT, "demo/mock_provider.py"), "--dir", d],
                         stdout=subprocess.DEVNULL, env=twin_env())  # its own calls trap nothing
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


# The three kinds of agent process: the same program each, under other names or files.
TRACED, TWIN, BYSTANDER = "traced", "twin", "bystander"


def agent_cmd(client, kind, port, ca, gate, calls):
    """TRACED: matched by the daemon's rules. TWIN: bench_twin.py on the copied libssl, a
    copy of the Bun executable: no rule matches it, no uprobe sits on it. BYSTANDER: on the
    probed files (the node's libssl, the traced Bun executable's inode through a hard
    link) under a name no rule matches: every SSL call traps, the program filters it out."""
    if client == "python3":
        script = {TRACED: "bench_agent.py", TWIN: "bench_twin.py", BYSTANDER: "bench_bys.py"}
        return [shutil.which("python3"), os.path.join(TMP, script[kind]), port, ca, gate,
                str(calls)]
    exe = {TRACED: "benchbun", TWIN: "benchtwin", BYSTANDER: "benchbys"}
    return [os.path.join(TMP, exe[kind]), port, gate, str(calls)]


class Daemon:
    """One daemon for a (repeat, client): its stderr read from where the last run stopped."""

    def __init__(self, tag):
        self.out, self.errp = os.path.join(TMP, tag + ".out"), os.path.join(TMP, tag + ".err")
        self.p = start_daemon(self.out, self.errp, "--exe", "benchbun",
                              "--cmdline", "*/bench_agent.py*")
        self.seen = 0

    def count(self, what):
        return open(self.errp).read()[self.seen:].count(what)

    def stop(self):
        self.p.send_signal(signal.SIGTERM)
        self.p.wait()
        shutil.rmtree(self.out, ignore_errors=True)


def one_run(d, client, n, port, ca, calls=CALLS, bystanders=0):
    """n traced agents, n twins and some bystanders started together, gated together: the
    CPU of the first two kinds over the calls, the traced ones' SSL calls (their sessions'
    records) and the daemon's figures."""
    gate = os.path.join(TMP, "gate.%d" % time.monotonic_ns())
    d.seen = len(open(d.errp).read())
    env = {k: dict(twin_env() if k == TWIN else os.environ, NODE_EXTRA_CA_CERTS=ca)
           for k in (TRACED, TWIN, BYSTANDER)}
    kinds = [TRACED, TWIN] * n + [BYSTANDER] * bystanders
    agents = [(k, subprocess.Popen(agent_cmd(client, k, port, ca, gate, calls),
                                   stdout=subprocess.PIPE, env=env[k])) for k in kinds]
    # every agent traced before the calls: the python ones are added by the daemon
    wait_for(lambda: d.count("tracing pid") >= n, 30, "the agents traced")
    open(gate, "w").close()
    for _, a in agents:  # a first call each (its handshake), out of the measure
        if a.stdout.readline().strip() != b"warm":
            sys.exit("bench/daemon: a %s agent failed its first call" % client)
    d_cpu0, u0 = cpu_ns(d.p.pid), uprobe_stats(d.p.pid)
    open(gate + ".go", "w").close()
    cpu = {k: 0 for k in (TRACED, TWIN, BYSTANDER)}
    for k, a in agents:
        o, _ = a.communicate()
        if a.returncode:
            sys.exit("bench/daemon: a %s agent failed (%d)" % (client, a.returncode))
        cpu[k] += json.loads(o)["cpu_us"]
    rss = rss_kib(d.p.pid, "VmRSS")
    wait_for(lambda: d.count("ended") >= n, 20, "the sessions' end")
    u1 = uprobe_stats(d.p.pid)
    pids = [a.pid for k, a in agents if k == TRACED]
    caps = [json.load(open(c)) for pid in pids
            for c in glob.glob("%s/n/*-%d-*/capture.json" % (d.out, pid))]
    # every call has the same records (16 python, 15 Bun): the first call's share goes
    ssl_calls = sum(c["records"].get("tls_data", 0) for c in caps) * calls // (calls + 1)
    return {"traced_us": cpu[TRACED], "twin_us": cpu[TWIN], "ssl_calls": ssl_calls,
            "daemon_cpu_ms": (cpu_ns(d.p.pid) - d_cpu0) / 1e6,
            "uprobe_runs": u1[0] - u0[0], "uprobe_ns": u1[1] - u0[1],
            "rss_kib": rss, "sessions": len(caps),
            "lost": sum(c.get("dropped", 0) for c in caps)}


def spread(xs, fmt="%.1f"):
    return (fmt + " (" + fmt + "-" + fmt + ")") % (statistics.median(xs), min(xs), max(xs))


def per_call_table(port, ca):
    runs = {}
    for rep in range(REPS):
        for client in ("python3", "bun"):
            d = Daemon("%s-%d" % (client, rep))
            if client == "bun":  # warm-up: its executable located and probed
                one_run(d, client, 1, port, ca, calls=1)
            for n, bys in CONFIGS:
                r = one_run(d, client, n, port, ca, bystanders=bys)
                if r["sessions"] != n:
                    sys.exit("bench/daemon: %d sessions for %d agents" % (r["sessions"], n))
                runs.setdefault((client, n, bys), []).append(r)
            d.stop()
            print("  rep %d/%d %s done at %.0f s" % (rep + 1, REPS, client,
                                                     time.monotonic() - T0), file=sys.stderr)
    print("\n## Per-SSL-call cost, 1/10/50 concurrent traced agents, each beside an untraced twin "
          "(%d streaming calls each; %d repeats: median (min-max))\n" % (CALLS, REPS))
    print("| client | agents | SSL calls/agent | twin CPU µs/call | traced CPU µs/call "
          "| added µs/call | added vs 1 agent | uprobe runs/call | BPF ns/run | BPF vs 1 agent "
          "| daemon CPU ms/agent | daemon RSS MiB | lost |")
    print("| --- " * 13 + "|")
    per = lambda r, k: r[k] / max(r["ssl_calls"], 1)
    added = lambda r: (r["traced_us"] - r["twin_us"]) / max(r["ssl_calls"], 1)
    bpf = lambda r: r["uprobe_ns"] / max(r["uprobe_runs"], 1)
    med = lambda f, rs: statistics.median([f(r) for r in rs])
    for client in ("python3", "bun"):
        one = runs[(client, 1, 0)]
        for n, bys in CONFIGS:
            rs = runs[(client, n, bys)]
            # ratio of the medians; in parentheses the ratios of each repeat (one daemon)
            ratio = [added(r) / added(o) if added(o) > 0 else float("nan") for r, o in zip(rs, one)]
            bratio = [bpf(r) / bpf(o) for r, o in zip(rs, one)]
            print("| %s | %s | %d | %s | %s | %s | %.2f (%.2f-%.2f) | %.2f | %s | %.2f (%.2f-%.2f) "
                  "| %s | %.1f | %d |" % (
                      client, "%d + %d bystanders" % (n, bys) if bys else str(n),
                      med(lambda r: r["ssl_calls"], rs) // n,
                      spread([per(r, "twin_us") for r in rs]),
                      spread([per(r, "traced_us") for r in rs]), spread([added(r) for r in rs]),
                      med(added, rs) / med(added, one), min(ratio), max(ratio),
                      med(lambda r: r["uprobe_runs"] / max(r["ssl_calls"], 1), rs),
                      spread([bpf(r) for r in rs], "%.0f"),
                      med(bpf, rs) / med(bpf, one), min(bratio), max(bratio),
                      spread([r["daemon_cpu_ms"] / n for r in rs], "%.2f"),
                      med(lambda r: r["rss_kib"], rs) / 1024, sum(r["lost"] for r in rs)))
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


def enable_bpf_stats():
    """BPF run-time statistics on while the returned fd is open (BPF_ENABLE_STATS), whatever
    another job does with the kernel.bpf_stats_enabled sysctl meanwhile."""
    attr = ctypes.c_uint32(0)  # BPF_STATS_RUN_TIME
    fd = ctypes.CDLL(None, use_errno=True).syscall(321, 32, ctypes.byref(attr), 4)  # bpf(2)
    if fd < 0:
        sys.exit("bench/daemon: BPF_ENABLE_STATS: " + os.strerror(ctypes.get_errno()))
    return fd


def main():
    for name in ("bench_agent.py", "bench_twin.py", "bench_bys.py"):
        shutil.copy(os.path.join(HERE, "agent.py"), os.path.join(TMP, name))
    subprocess.check_call([BUN, "build", "--compile", os.path.join(HERE, "agent.js"),
                           "--outfile", os.path.join(TMP, "benchbun")], stdout=subprocess.DEVNULL)
    shutil.copy(os.path.join(TMP, "benchbun"), os.path.join(TMP, "benchtwin"))
    os.link(os.path.join(TMP, "benchbun"), os.path.join(TMP, "benchbys"))  # the same inode
    mock, port, ca = start_mock()
    stats = enable_bpf_stats()
    try:
        print("# bench/daemon: %s, %d CPUs, kernel %s" % (
            time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), os.cpu_count(), os.uname().release))
        if "--only-exec" not in os.environ.get("BENCH_DAEMON", ""):
            per_call_table(port, ca)
        ok = exec_exit_table()
    finally:
        os.close(stats)
        for p in PROCS + [mock]:
            if p.poll() is None:
                p.kill()
        shutil.rmtree(TMP, ignore_errors=True)
    sys.exit(0 if ok else 1)


main()
