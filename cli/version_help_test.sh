#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# version_help_test.sh XPERF XPERF_BPF - both binaries print the one version (lib/version.h);
# each xperf-bpf subcommand's --help shows its own usage and options.
set -euo pipefail
xperf=$1 xb=$2
fail() { echo "FAIL: $*"; exit 1; }
want=$(sed -n 's/^#define XP_VERSION "\(.*\)"$/\1/p' lib/version.h)
[ -n "$want" ] || fail "no XP_VERSION in lib/version.h"
[ "$("$xperf" --version)" = "xperf $want (TurnTrace schema 1.0)" ] || fail "xperf --version: $("$xperf" --version)"
[ "$("$xb" --version)" = "xperf-bpf $want" ] || fail "xperf-bpf --version: $("$xb" --version)"
[ "$("$xb" record --version)" = "xperf-bpf $want" ] || fail "xperf-bpf record --version"

"$xb" record --help >"$TEST_TMPDIR/record" || fail "record --help: exit $?"
head -1 "$TEST_TMPDIR/record" | grep -qx 'Usage: xperf-bpf record \[OPTION...\] -- CMD \[ARG...\]' ||
	fail "record --help: $(head -1 "$TEST_TMPDIR/record")"
grep -q -- "--raw=FILE" "$TEST_TMPDIR/record" || fail "record --help lists no options"
! grep -q -- "--pid\|attach" "$TEST_TMPDIR/record" || fail "record --help shows attach's usage"
"$xb" attach --help >"$TEST_TMPDIR/attach"
head -1 "$TEST_TMPDIR/attach" | grep -qx 'Usage: xperf-bpf attach \[OPTION...\] --pid PID' ||
	fail "attach --help: $(head -1 "$TEST_TMPDIR/attach")"
grep -q -- "--pid=PID" "$TEST_TMPDIR/attach" || fail "attach --help lacks --pid"
"$xb" --help | grep -q "xperf-bpf record --help" || fail "xperf-bpf --help does not point to the subcommands'"
echo "version $want in both binaries; record and attach have their own --help"
