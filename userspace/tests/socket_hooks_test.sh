#!/usr/bin/env bash
# socket_hooks_test.sh - the socket tier's hooks (userspace/sock_hooks.h), read
# back with bpftool while xperf-bpf traces a sleeper: by default on this kernel
# the socket tracepoints and no raw_syscalls program (no other process's syscall
# runs one); with --socket-hooks syscalls (or XPERF_SOCKET_HOOKS) only the raw
# syscall pair; capture.json names the mode and why; a bad mode is a usage error.
source "$(dirname "$(realpath "$0")")/lib.sh"

progs() {	# progs NAME XPERF-OPTS...: the tracing programs that run lists, one per line
	local name=$1 xb
	shift
	XPERF_SESSION_ID=$name "$XB" record -q -o "$T/out" "$@" -- "$WL" sleep 4000 > /dev/null &
	xb=$!
	# The command execs once every module is attached: wait for that
	until pgrep -f "$WL sleep 4000" -P $xb > /dev/null; do sleep 0.05; done
	# and the list of programs it holds is steady.
	local last=x now
	for _ in $(seq 100); do
		now=$(cat /proc/$xb/fdinfo/* 2>/dev/null | sed -n 's/^prog_id:\s*//p' | sort -u || true)
		[ "$now" = "$last" ] && break
		last=$now
		sleep 0.3
	done
	: > "$T/$name.jsonl"
	for id in $now; do
		bpftool prog show id "$id" -j >> "$T/$name.jsonl" 2>/dev/null && echo >> "$T/$name.jsonl"
	done
	wait $xb
}

check() {	# check NAME MODE: programs and capture.json of run NAME are MODE's
	python3 - "$T/$1.jsonl" "$T/out/$1/capture.json" "$2" <<'PY'
import json, sys
names = {json.loads(l)["name"] for l in open(sys.argv[1]) if l.strip()}
tls = json.load(open(sys.argv[2]))["modules"]["tls"]
mode = sys.argv[3]
socket = {"sock_send", "sock_recv", "sock_state", "sock_destroy", "mmap_unlocked"}
syscalls = {"sys_enter", "sys_exit"}
want, stray = (socket, syscalls) if mode == "socket" else (syscalls, socket)
errs = []
if not want <= names or names & stray:
    errs.append("programs %s: want %s, none of %s" % (sorted(names), sorted(want), sorted(stray)))
if tls["socket_hooks"] != mode or not tls["socket_hooks_why"].startswith(mode + ": "):
    errs.append("capture.json: %s / %s" % (tls["socket_hooks"], tls["socket_hooks_why"]))
print("%s: %s" % (mode, "; ".join(errs) or "ok: " + tls["socket_hooks_why"]))
sys.exit(bool(errs))
PY
}

progs auto
progs socket --socket-hooks socket
progs syscalls --socket-hooks syscalls
XPERF_SOCKET_HOOKS=syscalls progs env
check auto socket
check socket socket
check syscalls syscalls
check env syscalls
rc=0
XPERF_SOCKET_HOOKS=fentry "$XB" record -q -- true 2> "$T/err" || rc=$?
[ $rc = 64 ] && grep -q "invalid XPERF_SOCKET_HOOKS" "$T/err" || fail "bad XPERF_SOCKET_HOOKS: exit $rc"
rc=0
"$XB" record -q --socket-hooks kprobe -- true 2> "$T/err" || rc=$?
[ $rc = 64 ] || fail "bad --socket-hooks: exit $rc"
echo PASS
