#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""kill_at_attach.py PID [LINKS] - without LINKS, print the uprobe links
process PID holds now. With it: SIGKILL process PID once it is seen holding
LINKS uprobe links or more; with LINKS 0, once it is seen with a libssl open (it
reads its symbols: the kernel is about to register each uprobe in every process
mapping the file) or holding its first uprobe link. Counting links, not time,
puts the kill inside an attach however fast the machine plants them (about
4 ms for 18 when quiet, several times that under load). Prints the uprobe links
it held and its thread ids when killed; exit 1 when the process ended first or
did none of that within 30 s."""
import os
import signal
import sys
import time

import fdinfo


def uprobe_links(pid):
    return fdinfo.count(pid, "link_type:\tperf\n")


def opened_libssl(pid):
    try:
        fds = os.listdir("/proc/%d/fd" % pid)
    except OSError:
        return None
    for fd in fds:
        try:
            if "libssl.so" in os.readlink("/proc/%d/fd/%s" % (pid, fd)):
                return True
        except OSError:
            pass
    return False


def main():
    pid = int(sys.argv[1])
    if len(sys.argv) == 2:
        print(uprobe_links(pid) or 0)
        return
    want = int(sys.argv[2])
    t0 = time.monotonic()
    while True:
        seen = opened_libssl(pid)
        if seen is None or time.monotonic() - t0 > 30:
            sys.exit(1)
        n = uprobe_links(pid) or 0
        if n >= max(want, 1) or (want == 0 and seen):
            break
    n = uprobe_links(pid)
    tids = os.listdir("/proc/%d/task" % pid)
    os.kill(pid, signal.SIGKILL)
    print(n or 0, *tids)


if __name__ == "__main__":
    main()
