#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# daemon_test.sh - `xperf-bpf daemon` on the running kernel with real agents
# (python3 on the system libssl) against the mock provider over TLS:
#   - an agent already running when the daemon starts (the /proc scan),
#   - an agent started after it (exec discovery, `cmdline` rule),
#   - short-lived agents (a 1 ms process, `exe` rule: traced by the kernel at exec),
#   - a process matching no rule: none of its records reaches the ring,
#   - SIGHUP: a rules file with an error is refused (file:line) and the old rules kept;
#     a valid one replaces them (the old pattern stops matching, the new one matches),
#   - SIGTERM with an agent mid-session: its open turn written complete: false,
#     exit 0 within 5 s.
# check_daemon.py holds the assertions (ground truth: the mock's own log, the pids).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
start_mock
# Names of this run only (another run of this test may trace at the same time): the
# rules name this run's files and a command of its own (at most 14 bytes: in the kernel).
quick=quick$$
mkdir -p "$tmp/bin"
cp /bin/true "$tmp/bin/$quick"
cp "$here/agent.py" "$tmp/plain.py"
cp "$here/agent.py" "$tmp/other.py"
cp "$here/agent.py" "$tmp/agent.py"
printf '# agents of daemon_test\ncmdline *%s/agent.py*\nexe %s   # a 1 ms agent\n' "$tmp" "$quick" \
	> "$tmp/rules"

"$py" "$tmp/agent.py" "$port" "$ca" "$tmp/gate" > "$tmp/before.out" &
before=$!
pids+=($before)
sleep 0.3 # it runs (and has mapped libssl) before the daemon starts
XPERF_CACHE_DIR=$tmp/locate "$xperf" daemon -o "$tmp/out" --node testnode --rules "$tmp/rules" --raw "$tmp/raw.jsonl" \
	2> "$tmp/daemon.err" &
daemon=$!
pids+=($daemon)
wait_for ready "$tmp/daemon.err"
touch "$tmp/gate"
wait $before
# No wait before its first call: a cmdline-matched agent is filtered in first, then
# probed (the locator's cache is empty: python3 is examined on this run).
"$py" "$tmp/agent.py" "$port" "$ca" > "$tmp/after.out" &
after=$!
wait $after
"$py" "$tmp/plain.py" "$port" "$ca" > "$tmp/plain.out" &
plain=$!
wait $plain
quick_pids=()
for _ in 1 2 3; do
	"$tmp/bin/$quick" &
	quick_pids+=($!)
	wait $!
done
HOLD_S=60 CALLS=1 "$py" "$tmp/agent.py" "$port" "$ca" > "$tmp/held.out" &
held=$!
pids+=($held)
wait_for done "$tmp/held.out"

printf 'exe x\nbinary agent\n' > "$tmp/rules.new"
mv "$tmp/rules.new" "$tmp/rules"
kill -HUP $daemon
wait_for "rules:2: unknown rule" "$tmp/daemon.err"
printf 'cmdline *%s/other.py*\n' "$tmp" > "$tmp/rules.new"
mv "$tmp/rules.new" "$tmp/rules"
kill -HUP $daemon
wait_for "1 rules loaded" "$tmp/daemon.err"
"$py" "$tmp/agent.py" "$port" "$ca" > "$tmp/old_rule.out" &
old_rule=$!
wait $old_rule
"$py" "$tmp/other.py" "$port" "$ca" > "$tmp/new_rule.out" &
new_rule=$!
wait $new_rule
sleep 0.5 # the last session's exit reaches the daemon

t0=$(date +%s%N)
kill -TERM $daemon
rc=0
wait $daemon || rc=$?
t1=$(date +%s%N)
kill $held 2>/dev/null || true
cat "$tmp/daemon.err"
python3 "$here/check_daemon.py" "$tmp" --rc $rc --stop-ms $(((t1 - t0) / 1000000)) \
	--before $before --after $after --plain $plain --held $held --old-rule $old_rule \
	--new-rule $new_rule --quick "${quick_pids[@]}"
