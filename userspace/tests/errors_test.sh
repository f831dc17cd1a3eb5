#!/usr/bin/env bash
# errors_test.sh - one-line errors and documented exit codes: no such
# process (2), not root (77), no kernel BTF (1), unknown command (2), bad
# output path (1), usage errors (64); record --exit-status passes the
# command's status on.
source "$(dirname "$(realpath "$0")")/lib.sh"

expect() {	# expect CODE MESSAGE CMD... : exact stderr first line and exit code
	local code=$1 msg=$2 rc=0
	shift 2
	"$@" > /dev/null 2> "$T/err" || rc=$?
	[ "$rc" = "$code" ] || fail "$*: exit $rc, expected $code ($(cat "$T/err"))"
	[ "$(head -1 "$T/err")" = "$msg" ] || fail "$*: '$(head -1 "$T/err")', expected '$msg'"
}

true &
gone=$!
wait $gone
expect 2 "xperf-bpf: no such process: $gone" "$XB" attach --pid $gone

# An unprivileged user: a copy it can execute, outside root's home.
nobody=$(mktemp -d /tmp/xpb-nobody.XXXXXX)
trap 'rm -rf "$nobody"' EXIT
cp "$XB" "$nobody/xperf-bpf"
chmod 755 "$nobody" "$nobody/xperf-bpf"
expect 77 "xperf-bpf: not permitted: xperf-bpf needs root or CAP_BPF and CAP_PERFMON (running as uid 65534 without them)" \
	setpriv --reuid=65534 --regid=65534 --clear-groups "$nobody/xperf-bpf" attach --pid 1

# A kernel without BTF: the same binary in a mount namespace where
# /sys/kernel/btf is an empty tmpfs.
expect 1 "xperf-bpf: no kernel BTF: /sys/kernel/btf/vmlinux: No such file or directory (needs CONFIG_DEBUG_INFO_BTF=y)" \
	unshare -m sh -c 'mount -t tmpfs none /sys/kernel/btf && exec "$0" record -q -- true' "$XB"

expect 2 "xperf-bpf: /nonexistent/xpb-cmd: No such file or directory" \
	"$XB" record -q -- /nonexistent/xpb-cmd
expect 1 "xperf-bpf: /nonexistent/dir/raw.jsonl: No such file or directory" \
	"$XB" record -q --raw /nonexistent/dir/raw.jsonl -- true
expect 64 "xperf-bpf: expected a subcommand: attach, record or daemon (xperf-bpf --help)" "$XB"
expect 64 "xperf-bpf attach: missing --pid" "$XB" attach
expect 64 "xperf-bpf attach: invalid --pid '12x': a process id" "$XB" attach --pid 12x
expect 64 "xperf-bpf record: missing command (record -- CMD [ARG...])" "$XB" record
expect 64 "xperf-bpf record: invalid --ring-size '5000': a power of two, 4096..1G" \
	"$XB" record --ring-size 5000 -- true
expect 64 "xperf-bpf attach: unrecognized option '--exit-status'" "$XB" attach --exit-status --pid 1

# record's own status is 0 whatever the command did; --exit-status passes the
# command's on (128+N when signal N killed it), as a shell would have it.
expect 0 "" "$XB" record -q -- sh -c 'exit 3'
expect 3 "" "$XB" record -q --exit-status -- sh -c 'exit 3'
expect 143 "" "$XB" record -q --exit-status -- sh -c 'kill -TERM $$'
expect 0 "" "$XB" record -q --exit-status -- true
# A command still running when --duration ends has no status yet: xperf-bpf's own.
expect 0 "" "$XB" record -q --exit-status --duration 1 -- sh -c 'sleep 3; exit 5'
# xperf-bpf's own failure wins over the command's status.
expect 1 "xperf-bpf: /nonexistent/dir/raw.jsonl: No such file or directory" \
	"$XB" record -q --exit-status --raw /nonexistent/dir/raw.jsonl -- sh -c 'exit 3'
echo PASS
