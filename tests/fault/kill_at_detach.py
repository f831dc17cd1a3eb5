#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""kill_at_detach.py PID DELAY_US - SIGKILL process PID DELAY_US microseconds after
the first of its BPF links is gone (its detach has begun: it held N links once
it had attached). Prints "N LEFT": the links it held then and when killed; exit
1 when the process ended before that."""
import os
import signal
import sys
import time

import fdinfo


def links(pid):
    return fdinfo.count(pid, "link_id:")


def main():
    pid, delay = int(sys.argv[1]), int(sys.argv[2]) / 1e6
    most = 0
    while True:
        n = links(pid)
        if n is None:
            sys.exit(1)
        if most and n < most:
            break
        most = max(most, n)
        time.sleep(0.0005 if most else 0.02)
    time.sleep(delay)
    left = links(pid)
    os.kill(pid, signal.SIGKILL)
    print(most, left if left is not None else 0)


if __name__ == "__main__":
    main()
