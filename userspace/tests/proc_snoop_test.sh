#!/usr/bin/env bash
# proc_snoop_test.sh - fork/exec/exit of a shell pipeline traced by
# `xperf-bpf record`, compared with libbpf-tools execsnoop and exitsnoop
# running at the same time (snoop_compare.py says what must match).
source "$(dirname "$(realpath "$0")")/lib.sh"

# execsnoop attaches syscall tracepoints, which need tracefs.
mountpoint -q /sys/kernel/tracing || mount -t tracefs tracefs /sys/kernel/tracing
execsnoop -q > "$T/exec.txt" 2>&1 &
es=$!
exitsnoop > "$T/exit.txt" 2>&1 &
xs=$!
trap 'kill -INT $es $xs 2>/dev/null || true' EXIT
for _ in $(seq 50); do
	grep -q PCOMM "$T/exec.txt" && grep -q PCOMM "$T/exit.txt" && break
	sleep 0.1
done

# In a file: execsnoop cuts arguments at 128 bytes.
cat > "$T/pipeline.sh" <<'SH'
ls / | wc -l > /dev/null
false
sh -c "exit 5"
(cd /tmp && /bin/true a b "c d")
sleep 0.1 &
wait
sh -c 'kill -TERM $$'
exit 3
SH
cd "$T"
"$XB" record -q "${XB_OPTS[@]}" --raw "$T/raw.jsonl" -- sh pipeline.sh > /dev/null 2>&1 || true
sleep 0.5
kill -INT $es $xs
wait $es $xs || true
trap - EXIT

root=$(python3 -c '
import json, sys
print(json.loads(open(sys.argv[1]).readline())["tgid"])' "$T/raw.jsonl")
python3 "$HERE/snoop_compare.py" "$T/raw.jsonl" "$T/exec.txt" "$T/exit.txt" "$root"
# The pipeline's own exit: code 3, and the killed child: SIGTERM.
py "$T/raw.jsonl" 'first("exit", tgid=root)["exit_code"] == 3' root="$root"
py "$T/raw.jsonl" 'any(r["signal"] == 15 for r in of("exit"))'
# cwd of the subshell's exec is where it cd'd to; the others run in $T.
py "$T/raw.jsonl" 'first("exec", filename="/bin/true")["cwd"] == "/tmp"'
py "$T/raw.jsonl" 'first("exec", tgid=root)["cwd"] == t' t="$T" root="$root"
echo PASS
