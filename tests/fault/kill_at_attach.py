#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""kill_at_attach.py PID [DELAY_US] - without DELAY_US, print the uprobe links
process PID holds now. With it: SIGKILL process PID DELAY_US microseconds after
it is seen with a libssl open (it reads its symbols: the kernel is about to
register each uprobe in every process mapping the file) or holding its first
uprobe link, whichever comes first. Prints the uprobe links it held and its
thread ids when killed; exit 1 when the process ended first or did neither
within 30 s."""
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
    delay = int(sys.argv[2]) / 1e6
    t0 = time.monotonic()
    while True:
        seen = opened_libssl(pid)
        if seen is None or time.monotonic() - t0 > 30:
            sys.exit(1)
        if seen or uprobe_links(pid):
            break
        time.sleep(0.0002)
    time.sleep(delay)
    n = uprobe_links(pid)
    tids = os.listdir("/proc/%d/task" % pid)
    os.kill(pid, signal.SIGKILL)
    print(n or 0, *tids)


if __name__ == "__main__":
    main()
