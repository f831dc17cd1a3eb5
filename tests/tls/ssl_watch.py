#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""ssl_watch.py SECONDS - an untraced process that maps libssl.so.3 (by its soname:
LD_LIBRARY_PATH picks the copy) and
samples, every 10 ms for SECONDS, the first byte of its own SSL_write: 0xcc
is the int3 of a uprobe the kernel planted in this process. Prints
"ready" once mapped, then "breakpoint=1" if it ever saw one, else 0."""
import ctypes
import sys
import time

ssl = ctypes.CDLL("libssl.so.3")
addr = ctypes.cast(ssl.SSL_write, ctypes.c_void_p).value
print("ready", flush=True)
seen, end = 0, time.monotonic() + float(sys.argv[1])
while time.monotonic() < end:
    seen |= ctypes.string_at(addr, 1) == b"\xcc"
    time.sleep(0.01)
print("breakpoint=%d" % seen, flush=True)
