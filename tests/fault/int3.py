#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""int3.py LIB PID... - prints "PID@ADDR" for each process that maps LIB (a libssl)
and has an int3 (a uprobe's) as the first byte of its SSL_write or SSL_read now."""
import ctypes
import sys


def base(pid, lib):
    """Where pid mapped lib's first page (file offset 0), or None."""
    with open("/proc/%d/maps" % pid) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 6 and parts[5] == lib and int(parts[2], 16) == 0:
                return int(parts[0].split("-")[0], 16)
    return None


def main():
    lib, pids = sys.argv[1], [int(p) for p in sys.argv[2:]]
    ours = ctypes.CDLL(lib)
    here = base(int(open("/proc/self/stat").read().split()[0]), lib)
    offs = [ctypes.cast(getattr(ours, f), ctypes.c_void_p).value - here
            for f in ("SSL_write", "SSL_read")]
    for pid in pids:
        try:
            b = base(pid, lib)
            with open("/proc/%d/mem" % pid, "rb") as f:
                for o in offs:
                    f.seek(b + o)
                    if f.read(1) == b"\xcc":
                        print("%d@%x" % (pid, b + o))
        except (OSError, TypeError):
            pass


if __name__ == "__main__":
    main()
