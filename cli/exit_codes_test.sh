#!/usr/bin/env bash
# exit_codes_test.sh XPERF XPERF_BPF - lib/exit_codes.h's table, subcommand by
# subcommand, on the inputs a hostile user tries: missing paths (2 everywhere),
# FIFOs, devices, directories and dangling links where a file is expected (2,
# at once: a FIFO must not hang), output paths that are devices, FIFOs or
# symlinks (2, left exactly as they were), repeated options and malformed
# lists (64), an OTLP clock offset that overflows (2), writes that fail (1).
# Runs as root (local): device nodes are made with mknod.
set -uo pipefail
xperf=$(realpath "$1") bpf=$(realpath "$2")
turn=schema/testdata/valid/llm_turn_full.json
t="${TEST_TMPDIR:-$(mktemp -d)}/exit"
rm -rf "$t" && mkdir -p "$t"
fail=0

expect() { # expect RC DESCRIPTION -- command...: the exit code, one stderr line naming the problem
	local want=$1 what=$2 rc
	shift 3
	timeout 20 "$@" >"$t/out" 2>"$t/err" </dev/null
	rc=$?
	if [ "$rc" != "$want" ]; then
		echo "FAIL: $what: exit $rc, want $want: $*"; head -3 "$t/err"; fail=1
	fi
}
said() { # said TEXT: the last command's stderr holds TEXT
	grep -qF -- "$1" "$t/err" || { echo "FAIL: stderr lacks '$1': $(head -2 "$t/err")"; fail=1; }
}
same() { # same PATH STAT: PATH's type, mode, inode and device numbers did not change
	[ "$(stat -c '%F %a %i %t:%T' "$1")" = "$2" ] || { echo "FAIL: $1 changed"; fail=1; }
}

mknod -m 666 "$t/null" c 1 3 && mknod -m 666 "$t/full" c 1 7 || { echo "FAIL: mknod (root?)"; exit 1; }
mkfifo "$t/fifo"
ln -s "$t/victim" "$t/link"
echo keep >"$t/victim" && chmod 644 "$t/victim"
mkdir "$t/dir" "$t/empty" "$t/session"
ln -s /nonexistent "$t/session/turn_001.json"
ln -s turn_002.json "$t/session/turn_002.json"
cp "$turn" "$t/turn.json"
mkdir -p "$t/fleet/node1/session1" && cp "$turn" "$t/fleet/node1/session1/turn_001.json"
null=$(stat -c '%F %a %i %t:%T' "$t/null") full=$(stat -c '%F %a %i %t:%T' "$t/full")
fifo=$(stat -c '%F %a %i %t:%T' "$t/fifo") victim=$(stat -c '%F %a %i %t:%T' "$t/victim")

# inputs: missing, FIFO, device, directory, dangling links
for cmd in "analyze turn" "export --format chrome" "gpu breakdown"; do
	expect 2 "$cmd: missing file" -- $xperf $cmd "$t/nope.json"; said "$t/nope.json"
	expect 2 "$cmd: FIFO" -- $xperf $cmd "$t/fifo"; said "not a regular file"
	expect 2 "$cmd: device" -- $xperf $cmd /dev/zero; said "not a regular file"
done
expect 2 "analyze session: missing dir" -- $xperf analyze session "$t/nope"; said "$t/nope"
expect 2 "analyze session: only dangling links" -- $xperf analyze session "$t/session"
expect 2 "export: session of dangling links" -- $xperf export --format otlp "$t/session"; said turn_001.json
expect 2 "fleet report: missing dir" -- $xperf fleet report "$t/nope"; said "no such directory"
expect 2 "diff: missing dir" -- $xperf diff "$t/fleet" "$t/nope"; said "$t/nope: no such directory"
expect 2 "top --once: missing dir" -- $xperf top "$t/nope" --once; said "$t/nope"
expect 2 "analyze --prices: missing" -- $xperf analyze turn "$t/turn.json" --prices "$t/nope"
said "$t/nope"
expect 2 "analyze --prices FIFO (no hang)" -- $xperf analyze turn "$turn" --prices "$t/fifo"
said "not a regular file"
expect 2 "fleet --prices FIFO (no hang)" -- $xperf fleet report "$t/fleet" --prices "$t/fifo"
expect 2 "validate: missing" -- $xperf validate "$t/nope.json"
(cd "$t" && timeout 20 "$xperf" validate /dev/zero fifo link nope.json dir empty \
	>/dev/null 2>err; echo $? >rc)
[ "$(cat "$t/rc")" = 2 ] && grep -q "6 files, 6 invalid" "$t/err" ||
	{ echo "FAIL: validate count: $(cat "$t/err")"; fail=1; }
expect 2 "gpu merge: missing --gpu-dir" -- $xperf gpu merge --gpu-dir "$t/nope" "$t/turn.json"
said "no such directory"
cmp -s "$turn" "$t/turn.json" || { echo "FAIL: gpu merge rewrote the turn"; fail=1; }
expect 2 "rubric --baseline FIFO (no hang)" -- $xperf rubric --target true --out-dir "$t/rb" \
	--baseline "$t/fifo"
expect 2 "rubric --baseline-ledger FIFO" -- $xperf rubric --target true --out-dir "$t/rb" \
	--baseline-ledger "$t/fifo"
expect 2 "rubric --baseline device" -- $xperf rubric --target true --out-dir "$t/rb" \
	--baseline /dev/zero; said "not a regular file"

# outputs: devices, FIFOs, symlinks are refused and left as they were
for o in null full fifo link; do
	expect 2 "analyze -o $o" -- $xperf analyze turn "$turn" -o "$t/$o"; said "not a regular file"
	expect 2 "export -o $o" -- $xperf export --format chrome -o "$t/$o" "$turn"
	expect 2 "fleet report -o $o" -- $xperf fleet report "$t/fleet" -o "$t/$o"
	expect 2 "diff -o $o" -- $xperf diff "$t/fleet/node1" "$t/fleet/node1" -o "$t/$o"
	expect 2 "rubric --findings-out $o" -- $xperf rubric --target true --out-dir "$t/rb" \
		--findings-out "$t/$o"
	expect 2 "xperf-bpf --raw $o" -- $bpf record -q -o "$t/traces" --raw "$t/$o" -- true
done
same "$t/null" "$null"; same "$t/full" "$full"; same "$t/fifo" "$fifo"; same "$t/victim" "$victim"
[ "$(cat "$t/victim")" = keep ] || { echo "FAIL: symlink target written"; fail=1; }
expect 1 "analyze -o in a missing dir" -- $xperf analyze turn "$turn" -o "$t/nope/r.json"

# usage: repeated options, malformed values and lists
expect 64 "analyze --depth twice" -- $xperf analyze turn "$turn" --depth L2 --depth L3
expect 64 "export --format twice" -- $xperf export --format chrome --format otlp "$turn"
said "--format given twice"
expect 64 "fleet -o twice" -- $xperf fleet report "$t/fleet" -o "$t/a" -o "$t/b"
expect 64 "theory --format twice" -- $xperf theory --format json --format=text
expect 64 "gpu --gpu-dir twice" -- $xperf gpu merge --gpu-dir "$t" --gpu-dir "$t" "$t/turn.json"
expect 64 "demo -o twice" -- $xperf demo -o "$t/a" -o "$t/b"
expect 64 "rubric --sizes 1,,2" -- $xperf rubric --target "true {SIZE}" --out-dir "$t/rb" --sizes 1,,2
expect 64 "rubric --sizes 1,2," -- $xperf rubric --target "true {SIZE}" --out-dir "$t/rb" --sizes 1,2,
expect 64 "rubric --tier twice" -- $xperf rubric --target true --out-dir "$t/rb" --tier fast --tier=deep
expect 64 "xperf-bpf -d nan" -- $bpf record -q -d nan -- true
expect 64 "xperf-bpf -d inf" -- $bpf record -q -d inf -- true
expect 64 "xperf-bpf -d twice" -- $bpf record -q -d 1 --duration 2 -- true
expect 64 "xperf-bpf --raw twice" -- $bpf record -q --raw "$t/a" --raw "$t/b" -- true
expect 64 "xperf-bpf daemon --node twice" -- $bpf daemon --exe x --node a --node=b; said "--node given twice"
expect 64 "diff --seed twice" -- $xperf diff "$t/fleet" "$t/fleet" --seed 1 --seed=2
expect 64 "analyze --measurability A,,B" -- $xperf analyze turn "$turn" --measurability A,,B
expect 64 "diff --resamples inf" -- $xperf diff "$t/fleet" "$t/fleet" --resamples inf

# OTLP clock offsets that overflow int64 or reach before 1970
for off in 9223372036854775807 -9223372036854775807; do
	expect 2 "otlp offset $off" -- $xperf export --format otlp --clock-offset-ns $off "$turn"
	said "outside the Unix times"
done
expect 0 "otlp default offset" -- $xperf export --format otlp "$turn"

[ $fail = 0 ] && echo "exit_codes_test: all checks passed"
exit $fail
