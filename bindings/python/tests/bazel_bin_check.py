#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bazel_bin_check.py ROOT - run by test.sh after the whole suite: the
README's library, ROOT/bazel-bin/sdk/libxperf.so, is the normal build (no
sanitizer runtime needed), loads into a plain python3 and writes a turn that
`ROOT/bazel-bin/cli/xperf validate` accepts. Prints one line; exit 0 or 1."""

import glob
import os
import subprocess
import sys
import tempfile

root = os.path.abspath(sys.argv[1])
lib = os.path.join(root, "bazel-bin/sdk/libxperf.so")
os.environ["XPERF_LIB"] = lib
sys.path.insert(0, os.path.join(root, "bindings/python"))
import xperf  # noqa: E402  (after XPERF_LIB: the module loads the library on import)


def main():
    d = tempfile.mkdtemp(prefix="bazel_bin_check.")
    xperf.init(agent_info={"name": "bazel-bin-check"}, trace_dir=d)
    with xperf.turn() as t:
        with t.span("tool_call", tool_name="true"):
            pass
    xperf.shutdown()
    files = glob.glob(os.path.join(d, "*", "turn_*.json"))
    r = subprocess.run([os.path.join(root, "bazel-bin/cli/xperf"), "validate"] + files,
                       capture_output=True, text=True)
    if len(files) != 1 or r.returncode:
        print("FAIL: %s: %d turn file(s), validate: %s" % (lib, len(files), r.stderr.strip()))
        return 1
    print("ok: %s loads into python3 and writes a valid turn" % lib)
    return 0


sys.exit(main())
