#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# least_privilege_test.sh - `xperf-bpf daemon` as uid 65534 through setpriv with
# only CAP_BPF, CAP_PERFMON and CAP_SYS_PTRACE (bounding, ambient and effective
# sets) discovers a real TLS client (python3 on the system libssl, run as root)
# and traces it: exec, exit, scheduler, the socket tier (connect, SNI, ciphertext
# sizes). The TLS plaintext uprobes are refused by this kernel without
# CAP_SYS_ADMIN (perf_uprobe_event_init, upstream ba677dbe77af, 2025, in the
# stable kernels): the daemon says so on stderr and goes on. daemon_test.sh
# (root) captures the same agent's plaintext, so the "no plaintext" check can fail.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# /tmp, not TEST_TMPDIR: uid 65534 must reach it (TEST_TMPDIR lies under /root)
TMPROOT=/tmp . "$here/lib.sh"
chmod 755 "$tmp"
start_mock
cp "$here/agent.py" "$tmp/agent.py"
# The binary where uid 65534 can run it (the runfiles may sit under /root).
cp "$xperf" "$tmp/xperf-bpf"
chmod 755 "$tmp/xperf-bpf"

# run NAME UID CAPS: the daemon as UID with exactly CAPS, one agent (its rule names this
# run's copy: another run of this test may trace at the same time), SIGTERM;
# leaves NAME.{err,caps,pid} and NAME/raw.jsonl
run() {
	local name=$1 uid=$2 caps=$3 d a
	mkdir -p "$tmp/$name"
	chown "$uid:$uid" "$tmp/$name"
	setpriv --reuid="$uid" --regid="$uid" --clear-groups --no-new-privs \
		--bounding-set="-all,$caps" --inh-caps="-all,$caps" --ambient-caps="-all,$caps" \
		"$tmp/xperf-bpf" daemon -o "$tmp/$name/out" --node lp --cmdline "*$tmp/agent[.]py*" \
		--raw "$tmp/$name/raw.jsonl" 2> "$tmp/$name.err" &
	d=$!
	pids+=($d)
	for _ in $(seq 200); do grep -q ready "$tmp/$name.err" && break; sleep 0.05; done
	grep -q ready "$tmp/$name.err" || { cat "$tmp/$name.err"; echo "FAIL: $name: not ready"; exit 1; }
	grep '^Cap\(Eff\|Bnd\|Amb\)' "/proc/$d/status" > "$tmp/$name.caps"
	"$py" "$tmp/agent.py" "$(cat "$tmp/mock/port")" "$tmp/mock/ca.pem" > /dev/null &
	a=$!
	wait $a
	echo $a > "$tmp/$name.pid"
	sleep 0.5
	kill -TERM $d
	wait $d
	cat "$tmp/$name.err"
}
run least 65534 +bpf,+perfmon,+sys_ptrace
python3 "$here/check_least_privilege.py" "$tmp"
