#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# rubric_it_test.sh - `xperf rubric` end to end on programs built for the test:
# growth classes, software counters against `perf stat` on the same runs (--attach),
# the noise gate, baseline and ledger regressions, the Valgrind tiers, and
# bad input with its exit codes, peak RSS against the program's own. Runs real
# processes: tagged local.
set -uo pipefail

XPERF=${XPERF:-cli/xperf}
SCALE=$(pwd)/rubric/testprogs/scale
FAULTS=$(pwd)/rubric/testprogs/faults
PEAK=$(pwd)/rubric/testprogs/peak
T=$(mktemp -d "${TEST_TMPDIR:-/tmp}/rubric_it.XXXXXX")
fails=0
check() { # check DESCRIPTION COMMAND...
	if "${@:2}"; then echo "ok   $1"; else echo "FAIL $1"; fails=$((fails + 1)); fi
}
# jq-free JSON assertions: py FILE EXPR -> exit status of bool(EXPR) with d = the document.
py() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1"; }
expect() { # expect CODE PATTERN ARGS... : exit code and a one-line error matching PATTERN
	"$XPERF" rubric "${@:3}" >/dev/null 2>"$T/err"
	local rc=$?
	[ "$rc" = "$1" ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q -- "$2" "$T/err" ||
		{ echo "  rc=$rc: $(cat "$T/err")"; return 1; }
}

# 1. Growth classes (CPU time of exact-cost programs; sizes keep each run under ~0.5 s).
# The smallest run must dwarf the fixed cost of starting a program: on one VM kind here
# exec alone takes 2.2 ms of task clock (scale linear 1; /bin/true 1.2), and at sizes 4x
# (quadratic 2x) smaller it pulled the linear k to 0.78 and the quadratic one below 1.7.
rubric_scale() { # MODE SIZES EXPECTED DIR
	"$XPERF" rubric --target "$SCALE $1 {SIZE}" --sizes "$2" --tier fast \
		--expected-complexity "$3" --reps 5 --out-dir "$4" >/dev/null 2>"$4.err"
}
rubric_scale linear 8192,32768,131072,524288 linear "$T/lin"
rubric_scale nlogn 8192,32768,131072,524288 nlogn "$T/nlogn"
rubric_scale quadratic 512,1024,2048,4096 linear "$T/quad"
S=benchmark_summary.json
check "linear program: best class linear" py "$T/lin/$S" "d['complexity_fit']['best_class']=='linear'"
check "linear program: k in [0.85,1.1], PASS under linear" py "$T/lin/$S" \
	"0.85<=d['complexity_exponent']<=1.1 and d['rubric']['dimensions']['Algorithmic Scaling']['sub_checks']['complexity_exponent']['tier']=='PASS'"
check "n log n program: best class nlogn" py "$T/nlogn/$S" "d['complexity_fit']['best_class']=='nlogn'"
check "quadratic program: best class quadratic" py "$T/quad/$S" "d['complexity_fit']['best_class']=='quadratic'"
check "quadratic program: k in [1.7,2.2], FAIL under linear" py "$T/quad/$S" \
	"1.7<=d['complexity_exponent']<=2.2 and d['rubric']['dimensions']['Algorithmic Scaling']['sub_checks']['complexity_exponent']['tier']=='FAIL'"
check "fast tier: scaling N/A, missing sub-checks listed" py "$T/lin/$S" \
	"d['rubric']['dimensions']['Algorithmic Scaling']['tier']=='N/A' and 'allocation_churn' in d['rubric']['dimensions']['Algorithmic Scaling']['missing_sub_checks']"
check "no progress bar when stderr is not a terminal" bash -c "! grep -q \$'\r' '$T/lin.err'"

# 2. Software counters against `perf stat` on the same runs: --attach starts perf stat on
# each scored run's child while it is held before execve, so both count the very same
# process. faults 30000 150: 30000 page faults, 3000 sleeps, about 350 ms of CPU.
if ! command -v perf >/dev/null; then
	check "perf is installed (setup.sh installs linux-perf)" false
fi
"$XPERF" rubric --target "$FAULTS {SIZE} 150" --sizes 30000 --tier fast --reps 5 --out-dir "$T/pf" \
	--attach "perf stat -x, -o $T/perf-{SIZE}-{RUN}.csv -e task-clock,page-faults,context-switches,cpu-migrations -p {PID}" \
	>/dev/null 2>"$T/pf.err"
check "--attach: perf stat started on all 5 runs, none failed" py "$T/pf/$S" \
	"d['attach']['runs']==5 and d['attach']['failed']==0 and len(d['runs_by_size']['30000'])==5"
check "same runs: task clock, page faults, context switches within 1% of perf stat; migrations within 3" \
	python3 - "$T/pf/$S" "$T/perf-30000-{RUN}.csv" <<'PY'
import csv, json, sys
runs = json.load(open(sys.argv[1]))["runs_by_size"]["30000"]
# xperf name, perf name, perf unit, bound: relative for the first three, absolute for migrations.
pairs = [("task_clock_ns", "task-clock", 1e6, 0.01), ("page_faults", "page-faults", 1, 0.01),
         ("context_switches", "context-switches", 1, 0.01), ("cpu_migrations", "cpu-migrations", 1, 3)]
ok = len(runs) == 5
print("  run  counter                   xperf    perf stat    diff")
for i, run in enumerate(runs, 1):
    rows = csv.reader(l for l in open(sys.argv[2].format(RUN=i)) if l.strip() and l[0] != "#")
    perf = {row[2]: row[0] for row in rows}
    for mine, theirs, unit, bound in pairs:
        a = run["values"][mine]
        b = float(perf[theirs]) * unit if perf.get(theirs, "<").replace(".", "").isdigit() else -1
        diff = f"{100 * (a - b) / b:+.3f}%" if bound < 1 and b > 0 else f"{a - b:+.0f}"
        good = b >= 0 and (abs(a - b) <= bound * b if bound < 1 else abs(a - b) <= bound)
        print(f"  {i:3d}  {mine:17s} {a:13.0f} {b:12.0f}  {diff}{'' if good else '  <- out of bounds'}")
        ok &= good
sys.exit(0 if ok else 1)
PY
# --attach without perf: a fixed --attach-wait, a tool that fails at once, one that ignores SIGINT.
"$XPERF" rubric --binary "$FAULTS" --sizes 10 --tier fast --reps 2 --out-dir "$T/aw" \
	--attach "sleep 600 {PID}" --attach-wait 20 >/dev/null 2>"$T/aw.err"
check "--attach-wait: released after the delay, stopped by SIGINT, no error" py "$T/aw/$S" \
	"d['attach']=={'command':'sleep 600 {PID}','runs':2,'failed':0} and not open('$T/aw.err').read()"
check "--attach tool failing: exit 1, one line, the runs still scored" expect 1 \
	"--attach failed on 2 of 2 runs; first: size 10 run 1: exited with status 1 before it was ready" \
	--binary "$FAULTS" --sizes 10 --tier fast --reps 2 --out-dir "$T/af" --attach "false {PID}"
check "--attach tool failing: summary and report say so, runs kept" py "$T/af/$S" \
	"d['attach']['failed']==2 and 'before it was ready' in d['attach']['first_error'] and len(d['runs_by_size']['10'])==2 and '2 failed; first: size 10 run 1' in open('$T/af/benchmark_report.md').read()"
"$XPERF" rubric --binary "$FAULTS" --sizes 10 --tier fast --reps 2 --out-dir "$T/ai" \
	--attach "sh -c 'trap \"\" INT; sleep 37.5 & wait' {PID}" >/dev/null 2>"$T/ai.err"
check "--attach ignoring SIGINT: killed with its group after 5 s, reported" bash -c \
	"grep -q 'did not exit within 5 s of SIGINT: killed' '$T/ai.err' && ! pgrep -f 'sleep 3[7].5'"
check "hardware counters unavailable with a reason, never zero" py "$T/pf/$S" \
	"all(('PMU' in v or 'not supported' in v) for k,v in d['counters_by_size']['30000']['unavailable'].items()) if not d['prerequisites']['hardware_pmu'] else 'cycles' in d['counters_by_size']['30000']['values']"

# 3. The noise gate.
"$XPERF" rubric --binary "$FAULTS" --sizes 200 --tier fast --max-cv 0.0001 --out-dir "$T/noise" \
	>/dev/null 2>&1
check "max-cv 0.0001: wall time N/A (noise), score -1, excluded" py "$T/noise/$S" \
	"d['rubric']['dimensions']['Wall-Time Stability']['tier']=='N/A (noise)' and d['rubric']['dimensions']['Wall-Time Stability']['score']==-1 and d['rubric']['max_possible']==4*sum(1 for v in d['rubric']['dimensions'].values() if v['score']>=0)"
"$XPERF" rubric --binary "$FAULTS" --sizes 200 --tier fast --max-cv 999 --out-dir "$T/quiet" \
	>/dev/null 2>&1
check "max-cv 999: wall time scored" py "$T/quiet/$S" \
	"d['rubric']['dimensions']['Wall-Time Stability']['tier'] in ('PASS','WARN','FAIL')"

# 4. Baseline and ledger regressions (Memory Profile on peak RSS). r0 is only a
# baseline (not in the ledger), so both ledger runs r1 and r2 have Memory Profile
# scored: whichever of them is "best" on a noisy machine, r3's drop shows against it.
L=$T/ledger.jsonl
"$XPERF" rubric --binary "$FAULTS" --sizes 2000 --tier fast --out-dir "$T/r0" >/dev/null 2>&1
"$XPERF" rubric --binary "$FAULTS" --sizes 2000 --tier fast --out-dir "$T/r1" \
	--baseline "$T/r0/$S" --baseline-ledger "$L" >/dev/null 2>&1
"$XPERF" rubric --binary "$FAULTS" --sizes 2000 --tier fast --out-dir "$T/r2" \
	--baseline "$T/r1/$S" --baseline-ledger "$L" >/dev/null 2>&1
head -2 "$L" >"$T/ledger.before"
"$XPERF" rubric --binary "$FAULTS" --sizes 40000 --tier fast --out-dir "$T/r3" \
	--baseline "$T/r2/$S" --baseline-ledger "$L" --findings-out "$T/findings.json" >/dev/null 2>&1
# Only Memory Profile is asserted: on a loaded machine Wall-Time Stability may
# drop a tier between r1 and r2, which is a real (noise) regression, not this check's.
check "same program against its baseline: memory PASS, no memory regression" py "$T/r2/$S" \
	"d['rubric']['dimensions']['Memory Profile']['tier']=='PASS' and not any(r['dimension']=='Memory Profile' for r in d['baseline_regressions'])"
check "20x the memory: PASS -> FAIL, drop 2, blocker" py "$T/r3/$S" \
	"d['regression_blocker'] and {'dimension':'Memory Profile','baseline_tier':'PASS','current_tier':'FAIL','drop':2} in d['baseline_regressions']"
check "ledger vs_last and vs_best report the drop" py "$T/r3/$S" \
	"any(r['dimension']=='Memory Profile' and r['drop']==2 for r in d['ledger_regressions']['vs_last']) and any(r['dimension']=='Memory Profile' for r in d['ledger_regressions']['vs_best'])"
check "ledger is append-only: 3 lines, first 2 unchanged" bash -c \
	"[ \$(wc -l <'$L') = 3 ] && head -2 '$L' | cmp -s - '$T/ledger.before'"
check "report shows the ledger comparison" grep -q "Against the last run:" "$T/r3/benchmark_report.md"
check "findings: sorted, 16-hex ids, FAIL memory finding" py "$T/findings.json" \
	"[f['metric']['name'] for f in d]==sorted(f['metric']['name'] for f in d) and all(len(f['id'])==16 for f in d) and any(f['metric']['name']=='baseline_ratio' and f['severity']=='high' for f in d)"
check "outputs are mode 0600" bash -c "[ \$(stat -c %a '$T/r3/$S') = 600 ] && [ \$(stat -c %a '$L') = 600 ]"

# 5. Valgrind tiers: cachegrind for caches and branches, callgrind, massif; asm's objdump.
if command -v valgrind >/dev/null; then
	"$XPERF" rubric --binary "$FAULTS" --sizes 100,200 --tier asm --out-dir "$T/deep" \
		>/dev/null 2>"$T/deep.err"
	check "deep tier: cache, branch and CPU from cachegrind, memory from massif" py "$T/deep/$S" \
		"all(d['rubric']['dimensions'][k]['source'].startswith('cachegrind') for k in ('L1 Cache Efficiency','Last-Level Cache','Branch Prediction','CPU Efficiency')) and d['rubric']['dimensions']['Memory Profile']['source']=='massif'"
	check "deep tier: all six scaling sub-checks" py "$T/deep/$S" \
		"len(d['rubric']['dimensions']['Algorithmic Scaling']['sub_checks'])==6 and d['rubric']['dimensions']['Algorithmic Scaling']['tier']!='N/A'"
	check "cache geometry recorded" py "$T/deep/$S" "d['prerequisites']['cache_model'].startswith('D1=32768,8,64')"
	check "raw Valgrind files kept" test -s "$T/deep/tier2/cachegrind.out" -a -s "$T/deep/tier3/massif.out"
	check "asm tier: disassembly of the target, in the report" bash -c \
		"grep -q '<main>:' '$T/deep/tier4/objdump_faults.txt' && grep -q 'ASM Audit' '$T/deep/benchmark_report.md'"
	"$XPERF" rubric --binary "$FAULTS" --sizes 100 --tier medium --source-prefix testprogs/ \
		--out-dir "$T/own" >/dev/null 2>&1
	"$XPERF" rubric --binary "$FAULTS" --sizes 100 --tier medium --source-prefix /nowhere/ \
		--out-dir "$T/none" >/dev/null 2>&1
	check "--source-prefix: rates over the program's own rows" py "$T/own/$S" \
		"d['source_prefix']=='testprogs/' and d['rubric']['dimensions']['L1 Cache Efficiency']['source']=='cachegrind'"
	check "--source-prefix matching nothing: N/A with the reason" py "$T/none/$S" \
		"'--source-prefix' in d['rubric']['dimensions']['L1 Cache Efficiency']['note'] and d['rubric']['dimensions']['CPU Efficiency']['tier']=='N/A'"
fi

# 6. Bad input: one line on stderr, documented exit codes.
echo '{"rubric": {"dimensions": {,}}}' >"$T/bad.json"
check "missing binary: 2" expect 2 "no/such/prog" --binary /no/such/prog --out-dir "$T/x"
check "bad sizes: 64" expect 64 "invalid --sizes" --binary "$FAULTS" --sizes 1,x --out-dir "$T/x"
check "unparseable baseline: 2 with path:line:col" expect 2 "bad.json:1:[0-9]*: invalid JSON" \
	--binary "$FAULTS" --sizes 10 --out-dir "$T/x" --baseline "$T/bad.json"
check "target without {SIZE}: 64" expect 64 "must contain {SIZE}" --target "$FAULTS 5" \
	--sizes 10 --out-dir "$T/x"
check "target not executable: 2" expect 2 "cannot execute" --target "/no/such {SIZE}" \
	--sizes 10 --out-dir "$T/x"
check "no --out-dir: 64" expect 64 "out-dir" --binary "$FAULTS"
check "--attach without {PID}: 64" expect 64 "must contain {PID}" --binary "$FAULTS" \
	--out-dir "$T/x" --attach "perf stat -p 1"
check "--attach tool missing: 2" expect 2 "no-such-tool: not an executable" --binary "$FAULTS" \
	--out-dir "$T/x" --attach "no-such-tool {PID}"
check "--attach-wait alone: 64" expect 64 "needs --attach" --binary "$FAULTS" --out-dir "$T/x" \
	--attach-wait 10
check "unknown flag: 64, one line" expect 64 "unrecognized option '--bogus'" --bogus
"$XPERF" rubric --target "$SCALE nosuchmode {SIZE}" --sizes 10 --tier fast --out-dir "$T/fail" \
	>/dev/null 2>&1
rc=$?
check "target failing: exit 1, outputs still written with the reason" py "$T/fail/$S" \
	"$rc==1 and 'exited with status 2' in d['timing_error']"
"$XPERF" rubric --target "sleep {SIZE}" --sizes 30 --tier fast --timeout 0.5 --out-dir "$T/slow" \
	>/dev/null 2>&1
rc=$?
check "--timeout: the run is killed, exit 1, reason written" py "$T/slow/$S" \
	"$rc==1 and 'killed after the --timeout of 0.5 s' in d['timing_error']"

# 7. A signal stops new runs; what was measured is scored and written.
"$XPERF" rubric --target "$SCALE linear {SIZE}" --sizes 100000,200000 --tier fast --reps 40 \
	--out-dir "$T/sig" >/dev/null 2>&1 &
pid=$!
# SIGTERM once the warm-up and two scored runs of the first size are over (its 4th run seen;
# runs take 0.4 s or more): a fixed 2 s was under 2 scored runs on a loaded machine, which
# keeps none.
runs=""
for _ in $(seq 3000); do
	for p in $(pgrep -f "scale linear 100000" || true); do
		[[ " $runs " == *" $p "* ]] || runs="$runs $p"
	done
	[ "$(wc -w <<< "$runs")" -ge 4 ] && break
	sleep 0.02
done
kill -TERM "$pid"
wait "$pid"
rc=$?
check "SIGTERM: exit 1, partial runs written" py "$T/sig/$S" \
	"$rc==1 and 'interrupted by signal 15' in d['timing_error'] and len(d['wall_time_median_by_size'])==1"

# 8. Peak RSS is the program's own: a static program of 1 touched page (~0.8 MB) and
# of 2048 (8 MB more) reports its own VmHWM at its end; the rubric's peak must lie at
# or above it and at most 512 KB above (exit-time work), where wait4's ru_maxrss reads
# the RSS the forked child had before execve (xperf's, ~1.7 MB) for the small one.
"$XPERF" rubric --target "$PEAK {SIZE} $T/self-{SIZE}" --sizes 1,2048 --reps 3 --tier fast \
	--max-cv 999 --out-dir "$T/rss" >/dev/null 2>&1
for n in 1 2048; do
	self=$(sort -n "$T/self-$n" 2>/dev/null | tail -1)
	check "peak RSS of size $n: the program's own (its VmHWM ${self:-?} kB, +0..512 kB)" \
		py "$T/rss/$S" "0 <= d['counters_by_size']['$n']['peak_rss_bytes'] / 1024 - ${self:-1e9} <= 512"
done
check "peak RSS source: exit_vmhwm" py "$T/rss/$S" \
	"d['rubric']['dimensions']['Memory Profile']['source']=='exit_vmhwm'"

# 9. The progress bar appears on a terminal (script(1) gives the run a pty).
if command -v script >/dev/null; then
	script -qec "$XPERF rubric --binary $FAULTS --sizes 10 --tier fast --out-dir $T/tty" \
		/dev/null >"$T/tty.out" 2>&1
	check "progress bar on a terminal" grep -q "runs, size 10" "$T/tty.out"
fi

rm -rf "$T"
echo "$fails failed"
[ "$fails" = 0 ]
