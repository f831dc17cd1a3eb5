# shellcheck shell=bash
# writer.sh - sourced by gap.sh and floor.sh after sink.sh (from the repository
# root, $bench: ssl_bench): the writer runs on private copies of libssl and
# libcrypto in $tmp/lib ($lib: the libssl its probes go on), so that other
# sessions' uprobes on the system libssl do not tax it; bpftrace's counting
# uprobe + uretprobe pair on its SSL_write (bpftrace_start); stop PID.
mkdir "$tmp/lib"
for l in $(ldd "$bench" | awk '/libssl|libcrypto/ {print $3}'); do cp "$l" "$tmp/lib/"; done
export LD_LIBRARY_PATH=$tmp/lib
lib=$(ldd "$bench" | awk '/libssl/ {print $3}')

stop() {	# stop PID: SIGINT (bpftrace prints its maps), SIGKILL if it stays 5 s
	kill -INT "$1"
	for _ in $(seq 50); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
	kill -KILL "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
}

bpftrace_start() {	# bpftrace's uprobe + uretprobe pair, attached; its pid in $bt
	bpftrace -e "uprobe:$lib:SSL_write { @n = count(); }
		uretprobe:$lib:SSL_write { @r = count(); }" > "$tmp/bt.log" 2>&1 &
	bt=$!
	# until both uprobes are attached ("Attaching" comes before, and its perf buffer
	# holds a perf event per CPU before any probe: counting its perf event fds let
	# 3 of 5 runs start unprobed at load average 10)
	for _ in $(seq 300); do
		[ "$(bpftool perf 2>/dev/null | grep -cE "^pid $bt .* uret?probe ")" -ge 2 ] && break
		sleep 0.1
	done
	sleep 0.5
}
