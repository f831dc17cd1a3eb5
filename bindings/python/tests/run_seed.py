# SPDX-License-Identifier: MIT
"""Runs the seed's SDK example (seed_example.py, verbatim from
../shared/seeds/xperf.md) unchanged. The snippet uses two names it never
defines, `elapsed_ns` and `tool_result`; they are provided as builtins so the
text itself stays exactly the seed's. The tool "fails", as in the seed."""

import builtins
import os
import sys
import types

builtins.elapsed_ns = 1_234_567
builtins.tool_result = types.SimpleNamespace(is_error=True)
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "seed_example.py")
with open(path, encoding="utf-8") as f:
    exec(compile(f.read(), path, "exec"), {"__name__": "__main__"})
import xperf  # noqa: E402  (the one the example imported)

print(xperf.session_dir())
sys.exit(0)
