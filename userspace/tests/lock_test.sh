#!/usr/bin/env bash
# lock_test.sh - concurrent runs on one -o DIR. Each run writes into its own
# DIR/<session>/ (turn files, capture.json), so two runs at once keep both
# outputs. A session directory is locked for its run: a second run given
# the same XPERF_SESSION_ID is refused with exit 75 and a one-line error
# naming the directory and the first run's pid, before its command starts;
# the lock goes with the first run, and the traced command does not inherit it.
source "$(dirname "$(realpath "$0")")/lib.sh"

# Two runs at once, no session id given: two sessions, two capture.json.
"$XB" record -q -o "$T/shared" -- sleep 1 > /dev/null 2> "$T/a.err" &
a=$!
"$XB" record -q -o "$T/shared" -- sleep 1 > /dev/null 2> "$T/b.err" ||
	fail "second concurrent run: $(cat "$T/b.err")"
wait $a || fail "first concurrent run: $(cat "$T/a.err")"
n=$(ls "$T"/shared/*/capture.json | wc -l)
[ "$n" = 2 ] || fail "$n capture.json files for two concurrent runs"

export XPERF_SESSION_ID=same
"$XB" record -q -o "$T/out" -- sleep 60 > /dev/null 2> "$T/first.err" &
first=$!
sleeper=
for _ in $(seq 100); do	# the command runs once its session is locked
	sleeper=$(pgrep -P "$first" -x sleep) && break
	sleep 0.1
done
[ -n "$sleeper" ] || fail "no traced sleep under pid $first"
trap 'kill $sleeper 2> /dev/null || true' EXIT
lock="$T/out/same/.lock"
[ "$(cat "$lock")" = "$first" ] || fail "the lock file says $(cat "$lock")"
[ "$(stat -c %a "$lock")" = 600 ] || fail "lock file mode $(stat -c %a "$lock")"

msg="xperf-bpf: $T/out/same is in use by xperf-bpf pid $first; set another XPERF_SESSION_ID"
for mode in record attach; do
	rc=0
	if [ $mode = record ]; then
		"$XB" record -q -o "$T/out" -- touch "$T/ran" > /dev/null 2> "$T/second.err" || rc=$?
	else
		"$XB" attach -q --pid "$sleeper" -o "$T/out" > /dev/null 2> "$T/second.err" || rc=$?
	fi
	[ $rc = 75 ] || fail "second $mode of session 'same': exit $rc ($(cat "$T/second.err"))"
	[ "$(cat "$T/second.err")" = "$msg" ] || fail "second $mode said: $(cat "$T/second.err")"
done
[ ! -e "$T/ran" ] || fail "the refused record ran its command"
[ ! -e "$T/out/same/capture.json" ] || fail "a refused run wrote capture.json"

! ls -l "/proc/$sleeper/fd" | grep -q '\.lock' || fail "the traced command inherited the lock"
kill -INT $first
wait $first || fail "first run: exit $? ($(cat "$T/first.err"))"
[ -s "$T/out/same/capture.json" ] || fail "first run wrote no capture.json"
"$XB" record -q -o "$T/out" -- true > /dev/null 2> "$T/again.err" ||
	fail "the session stayed locked after its run: $(cat "$T/again.err")"
echo PASS
