# SPDX-License-Identifier: MIT
# lib.sh - sourced by the daemon tests once `here` is set: xperf-bpf ($xperf),
# Debian's python3 ($py: not a shim, so the system libssl), a temporary directory
# ($tmp, below $TMPROOT when set, else TEST_TMPDIR; removed at exit with every
# process in $pids), start_mock and wait_for.
xperf=${XPERF_BPF:-$(readlink -f "$here/../../cli/xperf-bpf")}
py=/usr/bin/python3
tmp=$(mktemp -d "${TMPROOT:-${TEST_TMPDIR:-/tmp}}/$(basename "$0" .sh).XXXXXX")
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$tmp"' EXIT

# start_mock [ARG...]: the mock provider over TLS, its log TMP/mock.jsonl; its port
# in $port, its CA in $ca
start_mock() {
	"$py" "$here/../../demo/mock_provider.py" --dir "$tmp/mock" --log "$tmp/mock.jsonl" "$@" &
	pids+=($!)
	for _ in $(seq 100); do [ -s "$tmp/mock/port" ] && break; sleep 0.1; done
	port=$(cat "$tmp/mock/port")
	ca=$tmp/mock/ca.pem
}

# wait_for PATTERN FILE: until FILE has a line matching PATTERN (10 s)
wait_for() {
	for _ in $(seq 200); do grep -q -- "$1" "$2" && return 0; sleep 0.05; done
	echo "FAIL: no '$1' in $2:" >&2
	cat "$2" >&2
	exit 1
}
