#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# cli_per_process_test.sh - `xperf-bpf record --tls-per-process`: the TLS
# uprobes go into the traced process only. An untraced process mapping the
# same libssl (ssl_watch.py, sampling its own SSL_write) never holds a
# breakpoint, while the traced python3 client is captured byte for byte in
# both directions. The control run without the flag (uprobes on the library
# file, every mapper) shows the watcher's breakpoint, so the check can fail.
# Both map a private copy of libssl (LD_LIBRARY_PATH; xperf-bpf links none):
# on the system's, any other tracer on the machine, or a uprobe a killed one
# leaked for good, shows the watcher an int3 that is not this run's (3 of 3
# runs on the shared VM; userspace/README.md).
set -euo pipefail
here=$(dirname "$0")
xperf=$(readlink -f "$here/../../cli/xperf-bpf")
source "$here/server.sh" tlsproc
py=/usr/bin/python3 # Debian's: libssl.so.3 by its soname, as the watcher maps it
mkdir -p "$tmp/lib"
cp /lib/x86_64-linux-gnu/libssl.so.3 "$tmp/lib/"
# run NAME [OPTION...]: the client traced, the watcher beside it; prints its verdict.
run() {
	local name=$1
	shift
	LD_LIBRARY_PATH=$tmp/lib "$py" "$here/ssl_watch.py" 4 > "$tmp/$name.watch" &
	local w=$!
	for _ in $(seq 100); do grep -q ready "$tmp/$name.watch" && break; sleep 0.05; done
	LD_LIBRARY_PATH=$tmp/lib IMPORT_DELAY_S=0.5 "$xperf" record -q --capture-payloads --raw "$tmp/$name.jsonl" "$@" \
		-o "$tmp/$name" -- "$py" "$here/client.py" "$port" "$tmp/certs/ca.pem" 60000 30000
	wait $w
	sed -n 's/^breakpoint=//p' "$tmp/$name.watch"
}
own=$(run own --tls-per-process)
all=$(run all)
sleep 0.2
python3 "$here/check_per_process.py" "$tmp" "$own" "$all"
