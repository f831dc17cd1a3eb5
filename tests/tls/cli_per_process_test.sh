#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# cli_per_process_test.sh - `xperf-bpf record --tls-per-process`: the TLS
# uprobes go into the traced process only. An untraced process mapping the
# same libssl (ssl_watch.py, sampling its own SSL_write) never holds a
# breakpoint, while the traced python3 client is captured byte for byte in
# both directions. The control run without the flag (uprobes on the library
# file, every mapper) shows the watcher's breakpoint, so the check can fail.
set -euo pipefail
here=$(dirname "$0")
xperf=$(readlink -f "$here/../../cli/xperf-bpf")
source "$here/server.sh" tlsproc
py=/usr/bin/python3 # Debian's: the system libssl.so.3, as the watcher maps
# run NAME [OPTION...]: the client traced, the watcher beside it; prints its verdict.
run() {
	local name=$1
	shift
	"$py" "$here/ssl_watch.py" 4 > "$tmp/$name.watch" &
	local w=$!
	for _ in $(seq 100); do grep -q ready "$tmp/$name.watch" && break; sleep 0.05; done
	IMPORT_DELAY_S=0.5 "$xperf" record -q --capture-payloads --raw "$tmp/$name.jsonl" "$@" \
		-o "$tmp/$name" -- "$py" "$here/client.py" "$port" "$tmp/certs/ca.pem" 60000 30000
	wait $w
	sed -n 's/^breakpoint=//p' "$tmp/$name.watch"
}
own=$(run own --tls-per-process)
all=$(run all)
sleep 0.2
python3 "$here/check_per_process.py" "$tmp" "$own" "$all"
