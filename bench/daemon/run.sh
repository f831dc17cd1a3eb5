#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/daemon/run.sh [REPS] - what `xperf-bpf daemon` costs as the agents of a node grow,
# and whether it keeps up with processes that start fast (root; REPS >= 5, default 5;
# about 7 minutes at 5 on a 2-core machine). Results: bench/daemon/README.md.
#
# Table 1: 1, 10 and 50 concurrent agent processes, each making 8 (BENCH_CALLS=N: N)
# streaming calls to the mock provider (demo/mock_provider.py, over TLS): python3 (the system libssl) and a
# `bun build --compile` client (BoringSSL inside, found by the locator). Every
# configuration runs bare (no daemon: the daemon's uprobes are on the library files, so
# bare means none loaded) and traced (a daemon per run, the agents discovered by its
# rules), interleaved, REPS times. Each agent measures its own CPU time over its calls
# (getrusage / process.cpuUsage: no start-up); the added cost per SSL call is (traced -
# bare) / the SSL calls the traced run recorded (tls_data records of every session),
# computed per pair of runs, median (min-max). Also the daemon's CPU time from the gate
# to the sessions' end per agent, its RSS, and records lost.
#
# Table 2: SPAWN_RATE (1000) processes a second for 3 s (a copy of /bin/true matched by
# an `exe` rule: each one an agent, traced from its exec), counted three ways on the
# same run: the spawner, bpftrace on sched_process_exec/exit (the kernel's ground truth),
# and the daemon's --raw dump (exec and exit records), with its loss counters.
set -euo pipefail
cd "$(dirname "$0")/../.."
reps=${1:-5}
[ "$reps" -ge 5 ] || { echo "bench/daemon: REPS >= 5" >&2; exit 64; }
[ "$(id -u)" = 0 ] || { echo "bench/daemon: needs root (BPF)" >&2; exit 77; }
bazel build -c opt //cli:xperf-bpf >&2
xperf=$(bazel info -c opt bazel-bin 2>/dev/null)/cli/xperf-bpf
bun=${XPERF_BUN:-third_party/npm/node_modules/bun/bin/bun.exe}
python3 bench/daemon/bench.py "$(readlink -f "$xperf")" "$(readlink -f "$bun")" "$reps"
