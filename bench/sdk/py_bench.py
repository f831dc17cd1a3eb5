# SPDX-License-Identifier: MIT
"""py_bench.py - ns per turn.enter/turn.leave pair through the Python binding,
side by side with a bare pair of time.monotonic_ns() calls in the same run,
and two calls into libxperf that return at once (the ctypes floor).
Configurations run round-robin in each repetition; median, min and max.

usage: python3 py_bench.py [pairs per repetition] [repetitions]  (PYTHONPATH=bindings/python)
"""

import statistics
import sys
import tempfile
import time

import xperf


def bare(pairs):
    t0 = time.perf_counter_ns()
    for _ in range(pairs):
        time.monotonic_ns()
        time.monotonic_ns()
    return (time.perf_counter_ns() - t0) / pairs


def ctypes_floor(pairs):
    """Two calls into libxperf that return at once (no session: XP_ENOINIT)."""
    leave = xperf._c().xperf_leave
    t0 = time.perf_counter_ns()
    for _ in range(pairs):
        leave(1, 1)
        leave(1, 1)
    return (time.perf_counter_ns() - t0) / pairs


def sdk(pairs, counters, trace_dir):
    xperf.init(agent_info={"name": "py-bench"}, trace_dir=trace_dir, counters=counters)
    turn = xperf.start_turn()
    turn.leave(turn.enter("orchestration"))  # opens the counters
    t0 = time.perf_counter_ns()
    for _ in range(pairs):
        turn.leave(turn.enter("prompt_assembly"))
    t = (time.perf_counter_ns() - t0) / pairs
    xperf.end_turn(turn)
    xperf.shutdown()
    return t


def main(argv):
    pairs = int(argv[1]) if len(argv) > 1 else 2000
    reps = int(argv[2]) if len(argv) > 2 else 15
    confs = [("python: bare monotonic_ns pair", None), ("  two ctypes calls", "ctypes"),
             ("python: clocks only", False), ("python: software counters", "software")]
    times = {name: [] for name, _ in confs}
    with tempfile.TemporaryDirectory(prefix="xperf-py-bench.") as d:
        for _ in range(reps):
            for name, counters in confs:
                if counters is None:
                    times[name].append(bare(pairs))
                elif counters == "ctypes":
                    times[name].append(ctypes_floor(pairs))
                else:
                    times[name].append(sdk(pairs, counters, d))
    base = statistics.median(times[confs[0][0]])
    print("\n%-28s %10s %10s %10s %8s" % ("Python binding", "median ns", "min", "max", "ratio"))
    for name, _ in confs:
        t = sorted(times[name])
        print("%-28s %10.0f %10.0f %10.0f %7.1fx" % (name, statistics.median(t), t[0], t[-1],
                                                   statistics.median(t) / base))


if __name__ == "__main__":
    main(sys.argv)
