#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# cli_late_lib_test.sh - `xperf-bpf record` on a client that starts with no
# libssl and later dlopens renamed copies from a temp dir (tls_client_dlopen):
# the tls module probes them on XP_EV_MAP_EXEC, so the payloads concatenated
# by position are the server's bytes in both directions, and capture.json
# counts the late library. The same with the first calls right after the
# dlopen, racing the attach: what is missed is never silent (the capture is
# exact or capture.json counts socket I/O before the probes). Then a command
# that maps no TLS library: map records are seen, nothing is attached.
set -euo pipefail
here=$(dirname "$0")
xperf=$(readlink -f "$here/../../cli/xperf-bpf")
source "$here/server.sh" tlslate
mkdir "$tmp/lib"
cp /lib/x86_64-linux-gnu/libssl.so.3 "$tmp/lib/libssl-late.so.3"
cp /lib/x86_64-linux-gnu/libcrypto.so.3 "$tmp/lib/libcrypto-late.so.3"
# Calls of at most 27000 bytes: under the default 4 MiB payload cap.
client=("$here/tls_client_dlopen" "$port" "$tmp/certs/ca.pem" 60000 30000)
export TLS_LIB_DIR=$tmp/lib TLS_DLOPEN_WAIT_MS=500
TLS_WAIT_PROBED=1 "$xperf" record -q --capture-payloads --raw "$tmp/late.jsonl" \
	-o "$tmp/late" -- "${client[@]}"
TLS_CALL_WAIT_MS=0 "$xperf" record -q --capture-payloads --raw "$tmp/race.jsonl" \
	-o "$tmp/race" -- "${client[@]}"
"$xperf" record -q -o "$tmp/none" -- sh -c 'ls / > /dev/null'
sleep 0.2
python3 "$here/check_late_lib.py" "$tmp"
