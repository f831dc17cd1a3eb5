#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/daemon/run.sh [REPS] - what `xperf-bpf daemon` costs as the agents of a node grow,
# and whether it keeps up with processes that start fast (root; REPS >= 5, default 5;
# under 5 minutes at 5 on a 2-core machine). Results and method: bench/daemon/README.md.
#
# Table 1: 1, 10 and 50 concurrent traced agent processes, each making 8 (BENCH_CALLS=N: N)
# streaming calls to the mock provider (demo/mock_provider.py, over TLS) after one
# out of the measure: python3 (the system libssl) and a `bun build --compile` client
# (BoringSSL inside, found by the locator). Beside each traced agent, in the same run
# and gated together, an untraced twin: the same program on files no uprobe sits on (a
# copy of libssl, a copy of the executable). Added cost per SSL call = (traced - twin
# CPU) / the traced SSL calls (their sessions' records); with BPF run time per program
# run (BPF_ENABLE_STATS), the daemon's CPU (schedstat) per agent, its RSS and records
# lost; one daemon per repeat and client; median (min-max) of REPS repeats.
# BENCH_BYSTANDERS=1 adds a control row: 1 traced agent among 49 untraced ones that trap.
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
