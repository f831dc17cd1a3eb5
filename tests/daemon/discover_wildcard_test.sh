#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# discover_wildcard_test.sh - a wildcard host rule (`host *.azNNN.test`, the shape of
# `*.openai.azure.com`; NNN: this run's, so that two runs at once do not trace each other's
# agents) decided in the kernel: python3 agents that match no exec rule, against the mock
# provider over TLS with the server name of their ClientHello set per agent:
#   - eastus.openai.azNNN.test and One.AZNNN.TEST (any depth below the suffix, any case):
#     traced at their ClientHello, a session each, every call in plaintext,
#   - azNNN.test (the suffix itself) and evilazNNN.test (no dot before it): never traced,
#     none of their records in the ring (--raw holds every record read, owned or not);
#   - /metrics after those discoveries (promtool-valid): the two host matches traced, the
#     kernel's counters (4 ClientHellos examined at least, 2 processes traced);
#   - a rules file with a wildcard anywhere but as the whole first label is refused at
#     start with its file:line, exit 64.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
fail() { echo "FAIL: $*"; cat "$tmp/daemon.err" 2>/dev/null; exit 1; }

printf 'host *.azure.test\nhost api.*.test\n' > "$tmp/bad.rules"
rc=0
"$xperf" daemon -o "$tmp/out" --rules "$tmp/bad.rules" 2> "$tmp/bad.err" || rc=$?
[ $rc = 64 ] || fail "a bad wildcard: exit $rc, not 64"
grep -q "bad.rules:2: " "$tmp/bad.err" || fail "no file:line for the bad wildcard: $(cat "$tmp/bad.err")"

start_mock
# A zone of this run only (another run of this test may trace at the same time).
zone=az$$.test
printf '# a provider'"'"'s regional endpoints\nhost *.%s\n' "${zone^}" > "$tmp/rules"
"$xperf" daemon -o "$tmp/out" --node wild --rules "$tmp/rules" --raw "$tmp/raw.jsonl" \
	--metrics-listen 127.0.0.1:0 2> "$tmp/daemon.err" &
daemon=$!
pids+=($daemon)
wait_for ready "$tmp/daemon.err"
mport=$(sed -n 's/.*metrics on port \([0-9]*\).*/\1/p' "$tmp/daemon.err")
names=("eastus.openai.$zone" "One.${zone^^}" "$zone" "evil$zone")
agents=()
for sni in "${names[@]}"; do
	"$py" "$here/net_agent.py" "$port" "$ca" "$sni" > "$tmp/$sni.out" &
	agents+=($!)
	wait $! || fail "agent $sni failed"
done
for _ in $(seq 100); do [ "$(grep -c 'session .* ended' "$tmp/daemon.err")" = 2 ] && break; sleep 0.05; done
sleep 1.2 # the next /metrics refresh
curl -sf "http://127.0.0.1:$mport/metrics" > "$tmp/metrics.prom" || fail "no /metrics"
promtool check metrics < "$tmp/metrics.prom" || fail "promtool"
value() { awk -v m="$1" '$1 == m { print $2 }' "$tmp/metrics.prom"; }
[ "$(value 'xperf_daemon_rule_matches_total{rule="host",outcome="traced"}')" = 2 ] ||
	fail "metrics: host matches traced $(value 'xperf_daemon_rule_matches_total{rule="host",outcome="traced"}'), not 2"
[ "$(value xperf_daemon_net_traced_total)" = 2 ] || fail "metrics: net_traced_total not 2"
[ "$(value xperf_daemon_net_client_hellos_total)" -ge 4 ] || fail "metrics: fewer than 4 ClientHellos"
kill -TERM $daemon
wait $daemon || fail "daemon exit status $?"
"$py" - "$tmp" "$zone" "${agents[@]}" <<'PY' || fail "see above"
import glob, json, os, sys
tmp, zone, pids = sys.argv[1], sys.argv[2], [int(p) for p in sys.argv[3:]]
recs = [json.loads(l) for l in open(os.path.join(tmp, "raw.jsonl"))]
assert recs[-1]["type"] == "end", "raw dump cut"
sessions = {json.load(open(c))["root_pid"]: os.path.dirname(c)
            for c in glob.glob(os.path.join(tmp, "out", "wild", "*", "capture.json"))}
errs = []
for pid, sni, traced in zip(pids, ("eastus.openai." + zone, "one." + zone, zone, "evil" + zone),
                            (True, True, False, False)):
    mine = [r for r in recs if r.get("tgid") == pid]
    if traced:
        found = [r for r in mine if r["type"] == "sock_discover"]
        writes = [r for r in mine if r["type"] == "tls_data" and r["dir"] == "write"]
        turns = glob.glob(os.path.join(sessions.get(pid, "/nonexistent"), "turn_*.json"))
        ok = (found and found[0]["rule"] == "host" and found[0]["name"] == sni and
              pid in sessions and len(writes) >= 2 and len(turns) == 2)
        print("%s %s: traced by the wildcard (%s), %d plaintext writes, %d turns" %
              ("ok  " if ok else "FAIL", sni, found[0]["name"] if found else None,
               len(writes), len(turns)))
    else:
        ok = not mine and pid not in sessions
        print("%s %s: never traced (%d records in the ring)" %
              ("ok  " if ok else "FAIL", sni, len(mine)))
    if not ok:
        errs.append(sni)
sys.exit(1 if errs else 0)
PY
echo "PASS: *.$zone traced two names below it (any case), not $zone nor evil$zone"
