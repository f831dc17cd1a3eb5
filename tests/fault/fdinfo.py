# SPDX-License-Identifier: MIT
"""fdinfo.py - shared by the kill_at_*.py helpers: what a process's fds hold."""
import os


def count(pid, text):
    """How many of process pid's /proc/PID/fdinfo files contain text; None when
    the process is gone (its fdinfo directory cannot be listed)."""
    n = 0
    try:
        fds = os.listdir("/proc/%d/fdinfo" % pid)
    except OSError:
        return None
    for fd in fds:
        try:
            with open("/proc/%d/fdinfo/%s" % (pid, fd)) as f:
                n += text in f.read()
        except OSError:
            pass
    return n
