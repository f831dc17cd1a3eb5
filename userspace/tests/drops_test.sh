#!/usr/bin/env bash
# drops_test.sh - loss is counted, never silent. 3000 threads started and
# joined one after another (about 20 records each):
#   default ring: zero drops, every fork and thread exit delivered;
#   a 4 KiB ring flooded by a ping-pong alongside: drops happen, and
#   delivered + dropped == produced for each record type with a known
#   count (fork, thread exit); the loss is reported on stderr, in the raw
#   dump's end record and in capture.json.
source "$(dirname "$(realpath "$0")")/lib.sh"
N=3000

"$XB" record -q --raw "$T/ok.jsonl" -- "$WL" threads $N > /dev/null 2> "$T/ok.err"
py "$T/ok.jsonl" 'end["dropped"] == 0 and end["malformed"] == 0'
py "$T/ok.jsonl" 'len([r for r in of("fork") if r["thread"]]) == n' n=$N
py "$T/ok.jsonl" 'len([r for r in of("thread_exit") if r["tgid"] == of("exec")[0]["tgid"]]) == n + 1' n=$N
! grep -q "lost" "$T/ok.err" || fail "losses reported at a moderate rate: $(cat "$T/ok.err")"
# The rate it sustained, for the log: records per second of the run.
py "$T/ok.jsonl" 'print("%d records/s without loss" % (len(recs) * 1e9 / (recs[-1]["ts_ns"] - recs[0]["ts_ns"]))) or True'

# A ping-pong alongside floods the 4 KiB ring (a thread start alone may
# be slower than the consumer on a quiet machine).
"$XB" record -q --ring-size 4096 --raw "$T/tiny.jsonl" -o "$T/out" -- sh -c \
	"\"$WL\" pingpong 200000 > /dev/null & \"$WL\" threads $N > /dev/null; wait" 2> "$T/tiny.err"
py "$T/tiny.jsonl" 'end["dropped"] > 0'
# Produced: P processes (exit records: sh, the two workloads, the
# ping-pong's peer, any helper such as LeakSanitizer's under ASan), all
# single-threaded but the thread workload; forks = N threads + P - 1 (all
# but the root); thread exits = N + P (every process's main thread).
procs='(len(of("exit")) + end["drops"].get("exit", 0))'
py "$T/tiny.jsonl" "len(of('fork')) + end['drops'].get('fork', 0) == n + $procs - 1" n=$N
py "$T/tiny.jsonl" "len(of('thread_exit')) + end['drops'].get('thread_exit', 0) == n + $procs" n=$N
py "$T/tiny.jsonl" 'all(end["records"].get(t, 0) == len(of(t)) for t in ("fork", "sched", "exit"))'
lost=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readlines()[-1])["dropped"])' \
	"$T/tiny.jsonl")
grep -q "^xperf-bpf: warning: $lost records lost (ring full: " "$T/tiny.err" ||
	fail "stderr does not report the $lost losses: $(cat "$T/tiny.err")"
python3 - "$T"/out/*/capture.json "$lost" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
assert c["dropped"] == int(sys.argv[2]), (c["dropped"], sys.argv[2])
assert sum(c["drops"].values()) == c["dropped"]
PY
[ "$(stat -c %a "$T"/out/*/capture.json)" = 600 ] || fail "capture.json is not mode 0600"
[ "$(stat -c %a "$T/tiny.jsonl")" = 600 ] || fail "the raw dump is not mode 0600"
echo PASS
