# shellcheck shell=bash
# lib.sh - shared by the xperf-bpf integration tests (sourced). Each test
# gets the xperf-bpf and workload binaries as $1 and $2.
set -euo pipefail
XB=$(realpath "$1")
WL=$(realpath "$2")
XB_OPTS=("${@:3}") # more xperf-bpf options: the same test with --raw-tp
T=$(mktemp -d "${TEST_TMPDIR:-/tmp}/xpb.XXXXXX")
HERE=$(dirname "$(realpath "${BASH_SOURCE[0]}")")

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# jq-free JSON checks: python3 evaluates an expression over the raw dump.
py() {
	python3 "$HERE/raw_check.py" "$@"
}
