#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# version_help_test.sh XPERF XPERF_BPF - both binaries print the one version (lib/version.h);
# each xperf-bpf subcommand's --help shows its own usage and options; every subcommand of both
# answers --help and -h (exit 0, its own Usage: line) and an unknown option with exit 64 and one
# line naming it; options take the forms lib/args.h promises.
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

check() { # check BINARY [SUBCOMMAND]: help and an unknown option
	local name out=$TEST_TMPDIR/out err=$TEST_TMPDIR/err rc
	name="$(basename "$1")${2:+ $2}"
	for h in --help -h; do
		"$@" $h >"$out" 2>"$err" || fail "$name $h: exit $?"
		head -1 "$out" | grep -q "^Usage: $name \[OPTION...\]" || fail "$name $h: $(head -1 "$out")"
		[ ! -s "$err" ] || fail "$name $h wrote to stderr: $(cat "$err")"
	done
	rc=0
	"$@" --no-such-option x >"$out" 2>"$err" || rc=$?
	[ "$rc" = 64 ] || fail "$name --no-such-option: exit $rc, want 64"
	[ "$(cat "$err")" = "$name: unrecognized option '--no-such-option'" ] ||
		fail "$name --no-such-option: '$(cat "$err")'"
}
for sub in "" analyze diff export fleet demo top theory rubric validate gpu; do
	check "$xperf" $sub
done
for sub in "" attach record daemon; do
	check "$xb" $sub
done

# --name=VALUE, --name VALUE, a unique prefix, -oVALUE: one set of forms everywhere
turn=schema/testdata/valid/llm_turn_full.json
for form in "--depth=L2" "--depth L2" "--dep L2" "-o$TEST_TMPDIR/r.json" "--output=$TEST_TMPDIR/r.json"; do
	"$xperf" analyze turn "$turn" $form >/dev/null || fail "analyze $form: exit $?"
done
"$xperf" theory --format=json >"$TEST_TMPDIR/theory.json" && grep -q '"domains"' "$TEST_TMPDIR/theory.json" ||
	fail "theory --format=json"
echo "version $want in both binaries; every subcommand's --help, -h and unknown option; option forms"
