#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_metrics.py DIR FLEET_PROM --agents N --turns N - the assertions of metrics_test.sh
over the scrapes DIR/scrape_*.prom of the daemon's /metrics, in order:
  - no counter (TYPE counter; histogram buckets, _count, _sum) ever goes down or goes
    away between two scrapes, health and fleet figures alike;
  - the last scrape counts the agents that ran and the turns they made (one per call,
    a deleted session's included: the fleet ledger);
  - its fleet figures (every xperf_ sample but the daemon's own and the scan's timing)
    equal those of `xperf fleet serve` over the same directory with the same ledger
    (FLEET_PROM): the same metrics as the fleet exporter;
  - conventions: every family has HELP and TYPE, counters end in _total, labels never
    name a process (pid) or a session."""
import argparse
import glob
import re

from checklib import done, expect

ap = argparse.ArgumentParser()
ap.add_argument("dir")
ap.add_argument("fleet_prom")
ap.add_argument("--agents", type=int, required=True)
ap.add_argument("--turns", type=int, required=True)
a = ap.parse_args()
SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (\S+)$')


def parse(path):
    """{series: value}, {family: type}, {family: has HELP}."""
    series, types, helps = {}, {}, set()
    for line in open(path):
        line = line.rstrip("\n")
        if line.startswith("# TYPE "):
            _, _, name, t = line.split(" ", 3)
            types[name] = t
        elif line.startswith("# HELP "):
            helps.add(line.split(" ", 3)[2])
        elif line and not line.startswith("#"):
            m = SAMPLE.match(line)
            if not m:
                expect(False, "%s: bad line %r" % (path, line))
                continue
            series[m.group(1) + (m.group(2) or "")] = float(m.group(3))
    return series, types, helps


def family(name, types):
    for suffix in ("_bucket", "_count", "_sum", ""):
        base = name[:len(name) - len(suffix)] if suffix and name.endswith(suffix) else name
        if base in types:
            return base
    return name


def is_counter(series, types):
    name = series.split("{")[0]
    return types.get(family(name, types)) in ("counter", "histogram")


scrapes = sorted(glob.glob(a.dir + "/scrape_*.prom"), key=lambda p: int(re.findall(r"\d+", p)[-1]))
expect(len(scrapes) >= 10, "%d scrapes while agents came and went" % len(scrapes))
parsed = [parse(p) for p in scrapes]
down = []
for (prev, _, _), (cur, types, _), path in zip(parsed, parsed[1:], scrapes[1:]):
    for s, v in prev.items():
        if is_counter(s, types) and (s not in cur or cur[s] < v):
            down.append("%s: %s %s -> %s" % (path.rsplit("/", 1)[-1], s, v, cur.get(s)))
expect(not down, "no counter went down or away across %d scrapes%s" %
       (len(scrapes), "".join("\n     " + d for d in down[:10])))
last, types, helps = parsed[-1]
counters = [s for s in last if is_counter(s, types)]
expect(len(counters) > 50, "%d counter series checked" % len(counters))
expect(last.get("xperf_daemon_agents_traced_total") == a.agents,
       "agents_traced_total %s == %d agents started" % (last.get("xperf_daemon_agents_traced_total"),
                                                        a.agents))
expect(last.get("xperf_daemon_sessions_ended_total") == a.agents, "every session ended")
turns = sum(v for s, v in last.items() if s.startswith("xperf_turns_total{"))
expect(turns == a.turns, "fleet xperf_turns_total %d == %d calls made (a deleted session "
       "still counted)" % (turns, a.turns))
fleet, ftypes, _ = parse(a.fleet_prom)
skip = ("xperf_daemon_", "xperf_scan_", "xperf_last_scan_")
mine = {s: v for s, v in last.items() if not s.startswith(skip)}
theirs = {s: v for s, v in fleet.items() if not s.startswith(skip)}
diff = sorted(set(mine.items()) ^ set(theirs.items()))
expect(mine and not diff, "the daemon's fleet figures (%d samples) == `xperf fleet serve`'s%s" %
       (len(mine), "".join("\n     %s" % (d,) for d in diff[:10])))
fams = set(family(s.split("{")[0], types) for s in last)
expect(all(f in types and f in helps for f in fams), "HELP and TYPE for every family")
bad = [f for f in fams if types.get(f) == "counter" and not f.endswith("_total")]
expect(not bad, "counters end in _total %s" % bad)
bad = [s for s in last if re.search(r'\b(pid|tgid|session|path)="', s)]
expect(not bad, "no per-process or per-session label %s" % bad[:3])
done()
