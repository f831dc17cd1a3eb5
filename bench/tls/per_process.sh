#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# per_process.sh [REPS] - what `xperf-bpf --tls-per-process` covers, beside
# what it saves (run.sh: an untraced process no longer traps): the plaintext
# captured of a traced agent's TLS children, per library (the default: uprobes
# on the file, every mapper) and per process (uprobes planted in each traced
# process once its exec record reaches the consumer), REPS runs interleaved:
#   exec_curl    sh -c 'curl ...': a child exec'd by the traced command, TLS
#                within milliseconds of its exec;
#   exec_python  sh -c 'python3 client.py ...': the same, TLS ~100 ms later;
#   fork_python  python3 imports ssl, forks, the child (no exec) makes the calls.
# A run is complete when the request bytes captured in the write direction
# equal the bytes the server logged. Then what each mode costs an agent that
# starts many short TLS tools: SPAWNS curl children in a row (each maps libssl
# and fails to connect at once), bare and traced both ways: the loop's wall
# time and the fds xperf-bpf holds at its end (per process: links per child).
# Root, from the repository root.
set -euo pipefail
REPS=${1:-5}
SPAWNS=${2:-50}
cd "$(dirname "$0")/../.."
bazel build -c opt //cli:xperf-bpf >/dev/null 2>&1
xb=$(readlink -f bazel-bin/cli/xperf-bpf)
here=$PWD/tests/tls
source "$here/server.sh" perproc
ca=$tmp/certs/ca.pem
head -c 60000 /dev/urandom > "$tmp/body"
py_client="python3 $here/client.py $port $ca 60000 30000"
declare -A cmd=(
	[exec_curl]="curl -sS --cacert $ca --data-binary @$tmp/body -o /dev/null https://localhost:$port/c"
	[exec_python]="$py_client"
	[fork_python]="python3 -c 'import os, runpy, ssl, sys
sys.argv = [\"client.py\", \"$port\", \"$ca\", \"60000\", \"30000\"]
pid = os.fork()
if pid == 0:
    runpy.run_path(\"$here/client.py\", run_name=\"__main__\")
    os._exit(0)
os.waitpid(pid, 0)'"
)
n=0
for _ in $(seq "$REPS"); do
	for c in exec_curl exec_python fork_python; do
		for mode in per_library per_process; do
			opt=()
			[ $mode = per_process ] && opt=(--tls-per-process)
			n=$((n + 1))
			ls "$tmp/log" > "$tmp/before"
			"$xb" record -q --raw "$tmp/$n.jsonl" "${opt[@]}" -o "$tmp/out" -- \
				sh -c "${cmd[$c]}"
			sleep 0.2	# the server's log
			want=$(cd "$tmp/log" && ls | grep -vxFf "$tmp/before" | grep '\.in$' |
				xargs -r cat | wc -c)
			got=$(python3 -c '
import json, sys
print(sum(r["len"] for r in map(json.loads, open(sys.argv[1]))
          if r["type"] == "tls_data" and r["dir"] == "write"))' "$tmp/$n.jsonl")
			echo "$c $mode $got $want" >> "$tmp/res"
		done
	done
done
loop="for i in \$(seq $SPAWNS); do curl -s https://localhost:1; done"
for _ in $(seq "$REPS"); do
	for mode in bare per_library per_process; do
		opt=()
		[ $mode = per_process ] && opt=(--tls-per-process)
		t0=$(date +%s.%N)
		if [ $mode = bare ]; then
			sh -c "$loop; echo 0" > "$tmp/fds"
		else
			"$xb" record -q "${opt[@]}" -o "$tmp/out" -- \
				sh -c "$loop; ls /proc/\$PPID/fd | wc -l" > "$tmp/fds" 2>/dev/null
		fi
		echo "$mode $(echo "$(date +%s.%N) - $t0" | bc) $(cat "$tmp/fds")" >> "$tmp/spawn"
	done
done
python3 - "$tmp/res" "$REPS" "$tmp/spawn" "$SPAWNS" <<'PY'
import sys
rows = {}
for line in open(sys.argv[1]):
    c, mode, got, want = line.split()
    rows.setdefault((c, mode), []).append((int(got), int(want)))
print("TLS children of a traced command, %s runs each, interleaved: request bytes captured" % sys.argv[2])
print()
print("| child | uprobes | complete runs | captured / sent, each run |")
print("| --- | --- | --- | --- |")
for (c, mode), v in rows.items():
    done = sum(1 for g, w in v if w and g == w)
    print("| %s | %s | %d/%d | %s |" % (c, mode, done, len(v),
                                      " ".join("%d/%d" % gw for gw in v)))
import statistics
spawn = {}
for line in open(sys.argv[3]):
    mode, secs, fds = line.split()
    spawn.setdefault(mode, []).append((float(secs), int(fds)))
print()
print("%s short curl children in a row (record's whole run, start-up included), %s runs each, "
      "interleaved" % (sys.argv[4], sys.argv[2]))
print()
print("| uprobes | wall s | min-max | ratio | fds held by xperf-bpf at the end |")
print("| --- | --- | --- | --- | --- |")
bare = statistics.median(s for s, _ in spawn["bare"])
for mode, v in spawn.items():
    w = [s for s, _ in v]
    print("| %s | %.1f | %.1f-%.1f | %.2f | %s |" % (mode, statistics.median(w), min(w), max(w),
                                                   statistics.median(w) / bare,
                                                   "-" if mode == "bare" else
                                                   int(statistics.median(f for _, f in v))))
PY
