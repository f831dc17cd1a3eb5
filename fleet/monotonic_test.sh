#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# monotonic_test.sh XPERF - `xperf fleet serve` counters never go down: a session deleted
# (retention), a session that loses turns, and a restart of the exporter (its ledger file)
# leave every counter, histogram bucket, _count and _sum at least where it was, and equal to
# what was counted before the deletions; new turns still add. Every scrape passes
# `promtool check metrics` (Debian's prometheus package); histograms are consistent with the
# counters (turn-duration _count = turns_total per node and agent). Token and cost counters
# (priced with `--prices FILE`; one session's model is in no price line) equal the sums of the
# sessions' own `xperf analyze session --prices FILE` reports per node and agent
# (check_fleet.py usage): at the start, and after the deletions and the restart with the new
# session added (the deleted traces still counted).
set -euo pipefail
xperf=$(readlink -f "$1")
tmp=${TEST_TMPDIR:-$(mktemp -d)}
command -v promtool >/dev/null || { echo "FAIL: promtool not installed (setup.sh: prometheus)"; exit 1; }
fail() { echo "FAIL: $*"; exit 1; }
pid=
trap '[ -z "$pid" ] || kill "$pid" 2>/dev/null || true' EXIT
tree=$tmp/tree
cp -rL fleet/testdata/fleet "$tree" # regular files: the models are written in below
# The fixture's LLM calls name a model the price table below prices, but for sess-b2's.
python3 - "$tree" <<'PY'
import glob, json, sys
for p in glob.glob(sys.argv[1] + "/*/*/turn_*.json"):
    try:
        t = json.load(open(p))
    except ValueError:  # the fixture's invalid files stay as they are
        continue
    for s in t.get("spans", []):
        if s["stage"] == "llm_inference":
            s.setdefault("attributes", {})["gen_ai.response.model"] = \
                "other-1" if "/sess-b2/" in p else "model-x-1"
    json.dump(t, open(p, "w"))
PY
printf 'date 2026-01-01\nmodel-x*  3  15  0.30  3.75  15\n' >"$tmp/prices.tsv"
cp -r "$tree" "$tmp/orig" # the traces as first counted
usage() { # SCRAPE DIR...: token and cost counters = the sessions' own analyses
	python3 fleet/check_fleet.py usage "$xperf" "$tmp/prices.tsv" "$tmp/$1.prom" "${@:2}" ||
		fail "token and cost counters of $1"
}
state=$tmp/state/ledger.json
mkdir -p "$tmp/state"

start() { # the exporter on a free port, logging to $tmp/serve.log; sets pid, url
	: >"$tmp/serve.log"
	"$xperf" fleet serve "$1" --listen 127.0.0.1:0 --interval 1 --state "$state" \
		--prices "$tmp/prices.tsv" \
		2>>"$tmp/serve.log" &
	pid=$!
	local port=
	for _ in $(seq 1 100); do
		port=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\) .*/\1/p' "$tmp/serve.log" 2>/dev/null)
		[ -n "$port" ] && break
		sleep 0.1
	done
	[ -n "$port" ] || fail "exporter did not start: $(cat "$tmp/serve.log")"
	url=http://127.0.0.1:$port/metrics
}
scans() { grep -c " s$" "$tmp/serve.log" || true; }
scrape() { # NAME: after one more scan than now, /metrics into $tmp/NAME.prom, checked by promtool
	local n
	n=$(scans)
	for _ in $(seq 1 300); do
		[ "$(scans)" -gt "$n" ] && curl -sf "$url" >"$tmp/$1.prom" && break
		sleep 0.1
	done
	[ -s "$tmp/$1.prom" ] || fail "no scrape $1: $(tail -3 "$tmp/serve.log")"
	promtool check metrics <"$tmp/$1.prom" >"$tmp/$1.lint" 2>&1 || fail "promtool: $1: $(cat "$tmp/$1.lint")"
}
stop() { kill -TERM "$pid"; wait "$pid" || fail "exporter exit $?"; pid=; }

start "$tree"
scrape before
usage before "$tmp"/orig/*/sess-*/
rm -r "$tree/gpu-node-a/sess-a1"                  # retention deletes a session
rm "$(ls "$tree"/gpu-node-b/sess-b1/turn_*.json | tail -1)" # and one turn of another
scrape deleted
stop
start "$tree/"                                     # a restart, DIR spelled otherwise
scrape restarted
cp -r "$tree/gpu-node-a/sess-a2" "$tree/gpu-node-a/sess-a3"   # new turns still count
scrape grown
usage grown "$tmp"/orig/*/sess-*/ "$tree/gpu-node-a/sess-a3"
stop
echo '{"ledger": "xperf.fleet.serve", "length": 3' >"$state"   # a torn or foreign ledger
start "$tree"
scrape fresh
stop
grep -q "$state: not JSON: counters start from the files" "$tmp/serve.log" ||
	fail "a bad ledger was not reported: $(cat "$tmp/serve.log")"

python3 - "$tmp" <<'PY'
import re, sys
tmp = sys.argv[1]
def parse(name):
    out = {}
    for line in open("%s/%s.prom" % (tmp, name)):
        if line.startswith("#") or not line.strip():
            continue
        key, value = line.rsplit(" ", 1)
        out[key] = float(value)
    return out
def counters(m):
    return {k: v for k, v in m.items()
            if re.match(r"xperf_\w+(_total|_bucket|_count|_sum)\{", k)}
snaps = [counters(parse(n)) for n in ("before", "deleted", "restarted", "grown")]
for a, b, what in ((0, 1, "deleting traces"), (1, 2, "a restart")):
    changed = {k: (snaps[a][k], snaps[b].get(k)) for k in snaps[a] if snaps[b].get(k) != snaps[a][k]}
    assert not changed, "%s changed counters: %s" % (what, list(changed.items())[:5])
grew = [k for k in snaps[3] if snaps[3][k] > snaps[2].get(k, 0)]
shrank = [k for k in snaps[2] if snaps[3].get(k, 0) < snaps[2][k]]
assert not shrank and any(k.startswith("xperf_turns_total{") for k in grew), (shrank, grew[:5])
m = parse("grown")
for k, v in m.items():
    if k.startswith("xperf_turns_total{"):
        h = k.replace("xperf_turns_total", "xperf_turn_duration_seconds_count")
        assert m[h] == v, (k, v, m[h])
print("fleet serve: %d counter samples unchanged by a deleted session, a deleted turn and a "
      "restart; %d grew with a new session; promtool clean" % (len(snaps[0]), len(grew)))
PY
