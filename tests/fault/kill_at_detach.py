#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""kill_at_detach.py PID R - stop process PID (xperf-bpf attach) with SIGTERM and
have the kernel SIGKILL it as it enters the close(2) of the K-th of its N BPF
links (K = 1 + R mod N) after the SIGTERM: a bpftrace program on
raw_syscalls:sys_enter, filtered on the process and its link fds, calls
bpf_send_signal there, so the close runs
with the SIGKILL pending, the case in which the kernel gives up a uprobe's
removal (README.md). Deterministic: no sleep has to land inside a detach that
takes about 1 ms. Prints "N K"; exit 1 when the process ended first or bpftrace
did not start or fire within 60 s."""
import os
import select
import signal
import subprocess
import sys
import time

import fdinfo

BPFTRACE = """BEGIN { %s printf("ready\\n"); }
tracepoint:signal:signal_generate /args->pid == %d && args->sig == 15/ { @stopping = 1; }
tracepoint:raw_syscalls:sys_enter /@stopping && pid == %d && args->id == 3/ {
	if (@link[args->args[0]]) {
		@closes = @closes + 1;
		if (@closes == %d) { signal("SIGKILL"); printf("killed\\n"); exit(); }
	}
}"""


def links_settled(pid):
    """The link fds once the attach is over (the same set 3 polls in a row)."""
    seen = []
    for _ in range(600):
        fds = fdinfo.holding(pid, "link_id:")
        if fds is None:
            sys.exit("kill_at_detach: process %d ended before its attach was over" % pid)
        seen = seen[-2:] + [fds]
        if fds and seen.count(fds) == 3:
            return fds
        time.sleep(0.1)
    sys.exit("kill_at_detach: the links of process %d did not settle in 60 s" % pid)


def wait_line(proc, want, deadline):
    while time.monotonic() < deadline:
        if select.select([proc.stdout], [], [], 1)[0]:
            line = proc.stdout.readline()
            if not line:
                return False
            if line.strip() == want:
                return True
    return False


def start_bpftrace(prog):
    """bpftrace running prog, its probes attached. Three tries: a load that fails
    is retried (its error is printed)."""
    for _ in range(3):
        bt = subprocess.Popen(["bpftrace", "--unsafe", "-e", prog], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
        if wait_line(bt, "ready", time.monotonic() + 60):
            return bt
        bt.kill()
        sys.stderr.write(bt.communicate()[1])
    sys.exit("kill_at_detach: bpftrace did not start")


def main():
    pid, r = int(sys.argv[1]), int(sys.argv[2])
    fds = links_settled(pid)
    k = 1 + r % len(fds)
    # the link fds in a map: a test per fd in the filter grew past what the
    # verifier takes (30 links: "dereference of modified ctx ptr")
    links = " ".join("@link[%d] = 1;" % fd for fd in fds)
    bt = start_bpftrace(BPFTRACE % (links, pid, pid, k))
    try:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            sys.exit("kill_at_detach: process %d ended before its stop" % pid)
        if not wait_line(bt, "killed", time.monotonic() + 60):
            sys.exit("kill_at_detach: no close of link %d of %d in 60 s" % (k, len(fds)))
    finally:
        bt.kill()
        bt.wait()
    print(len(fds), k)


if __name__ == "__main__":
    main()
