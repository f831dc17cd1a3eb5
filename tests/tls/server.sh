# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# server.sh PREFIX - sourced by the tests, with $here set: a temp dir $tmp
# (removed at exit with the server), a CA and a leaf in $tmp/certs, and
# tls_server.py logging each connection's bytes into $tmp/log, on $port.
tmp=$(mktemp -d "${TEST_TMPDIR:-/tmp}/$1.XXXXXX")
trap 'kill $srv 2>/dev/null || true; rm -rf "$tmp"' EXIT
mkdir -p "$tmp/log"
"$here/certs.sh" "$tmp/certs"
python3 "$here/tls_server.py" "$tmp/certs" "$tmp/log" > "$tmp/port" &
srv=$!
for _ in $(seq 50); do [ -s "$tmp/port" ] && break; sleep 0.1; done
port=$(cat "$tmp/port")
