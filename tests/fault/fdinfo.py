# SPDX-License-Identifier: MIT
"""fdinfo.py - shared by the kill_at_*.py helpers: what a process's fds hold."""
import os


def holding(pid, text):
    """The fds (numbers, ascending) of process pid whose /proc/PID/fdinfo file
    contains text; None when the process is gone (its fdinfo directory cannot be
    listed)."""
    try:
        fds = os.listdir("/proc/%d/fdinfo" % pid)
    except OSError:
        return None
    found = []
    for fd in fds:
        try:
            with open("/proc/%d/fdinfo/%s" % (pid, fd)) as f:
                if text in f.read():
                    found.append(int(fd))
        except OSError:
            pass
    return sorted(found)


def count(pid, text):
    """How many of process pid's fds hold text (holding); None when it is gone."""
    fds = holding(pid, text)
    return None if fds is None else len(fds)
