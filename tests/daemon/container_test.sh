#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# container_test.sh - an agent in another mount namespace (a container's view of
# the files): `unshare --mount` with, bind-mounted inside only, a directory holding
# a copy of python3 named pyctr<PID> (its path is empty on the host) and a copy
# of libssl.so.3 over the system one (another inode than the host's). The daemon
# (rule `exe pyctr<PID>`, a name of this run only; the agent, already running, is found by the daemon's /proc
# scan) must resolve both through /proc/PID/root and put the uprobes on the copy:
# the agent's 2 calls to the mock provider are checked whole in plaintext against
# the mock's log (check_container.py).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
lib=/lib/x86_64-linux-gnu/libssl.so.3
start_mock
ctr_exe=pyctr$$ # this run's only: another run of this test may trace at the same time
mkdir -p "$tmp/image" "$tmp/ctr"
cp "$(readlink -f "$py")" "$tmp/image/$ctr_exe"
cp "$here/agent.py" "$tmp/image/agent.py"
cp "$lib" "$tmp/image/libssl.so.3"
stat -Lc '%i' "$lib" > "$tmp/host_libssl"
stat -c '%i' "$tmp/image/libssl.so.3" > "$tmp/ctr_libssl"

# Inside: $tmp/ctr shows the image (empty on the host), libssl is the image's copy.
# PYTHONHOME: the copy finds the system's standard library from its new place. The
# agent maps libssl, then waits for the gate: the daemon finds it by its /proc scan.
PYTHONHOME=/usr unshare --mount --propagation private --fork sh -c '
	mount --bind "$1/image" "$1/ctr" && mount --bind "$1/ctr/libssl.so.3" "$2" &&
	echo $$ > "$1/agent.pid" &&
	exec "$1/ctr/$4" "$1/ctr/agent.py" "$3" "$1/mock/ca.pem" "$1/gate"
' sh "$tmp" "$lib" "$(cat "$tmp/mock/port")" "$ctr_exe" > "$tmp/agent.out" &
agent=$!
pids+=($agent)
for _ in $(seq 100); do grep -q libssl "/proc/$(cat "$tmp/agent.pid" 2>/dev/null || echo 0)/maps" \
	2>/dev/null && break; sleep 0.05; done
agent_pid=$(cat "$tmp/agent.pid")
awk '/libssl/ { print $4, $5; exit }' "/proc/$agent_pid/maps" > "$tmp/mapped_libssl"
readlink "/proc/$agent_pid/exe" > "$tmp/agent_exe"
"$xperf" daemon -o "$tmp/out" --node cnode --exe "$ctr_exe" --raw "$tmp/raw.jsonl" \
	2> "$tmp/daemon.err" &
daemon=$!
pids+=($daemon)
for _ in $(seq 200); do grep -q ready "$tmp/daemon.err" && break; sleep 0.05; done
touch "$tmp/gate"
wait $agent
ls "$tmp/ctr" > "$tmp/host_view" # nothing: the mounts were the namespace's
sleep 0.3
kill -TERM $daemon
rc=0
wait $daemon || rc=$?
cat "$tmp/daemon.err"
python3 "$here/check_container.py" "$tmp" --rc $rc --exe "$ctr_exe"
