/* SPDX-License-Identifier: MIT */
/*
 * regress_test.c - baseline and ledger comparisons: the research file's
 * vectors 16 and 17, tier-drop rules, baseline errors with positions, the
 * ledger line layout, and the command-line splitter.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/test_check.h"
#include "rubric/cmdline.h"
#include "rubric/regress.h"
#include "rubric/summary.h"

static struct rb_result current(enum rb_tierv cpu, enum rb_tierv mem)
{
	struct rb_result r;

	memset(&r, 0, sizeof(r));
	r.dim[D_CPU].tier = cpu;
	r.dim[D_MEMORY].tier = mem;
	return r;
}

static const char *ledger16 =
	"{\"dimensions\": {\"CPU Efficiency\": \"PASS\", \"Memory Profile\": \"PASS\"}, "
	"\"rubric_total\": 24, \"tier\": \"deep\"}\n"
	"{\"dimensions\": {\"CPU Efficiency\": \"WARN\", \"Memory Profile\": \"WARN\"}, "
	"\"rubric_total\": 20, \"tier\": \"deep\"}\n";

static void test_vector16(void)
{
	struct rb_ledger l;
	struct rb_regressions g;
	struct rb_result r = current(T_FAIL, T_WARN);

	rb_ledger_parse("l.jsonl", ledger16, strlen(ledger16), &l);
	CHECK(l.entries == 2 && l.corrupt == 0, "two entries");
	rb_regress(&l.last, &r, &g);
	CHECK(g.n == 1 && g.r[0].dim == D_CPU && g.r[0].ref == T_WARN && g.r[0].cur == T_FAIL &&
		      g.r[0].drop == 1,
	      "vector 16 vs_last");
	rb_regress(&l.best, &r, &g);
	CHECK(g.n == 2 && g.r[0].dim == D_CPU && g.r[0].drop == 2 && g.r[1].dim == D_MEMORY &&
		      g.r[1].drop == 1,
	      "vector 16 vs_best (%d)", g.n);
}

static void test_vector17(void)
{
	const char *lines =
		"{\"dimensions\": {\"CPU Efficiency\": \"PASS\"}, \"rubric_total\": 20}\n"
		"\n"
		"not json at all\n"
		"{\"dimensions\": {\"CPU Efficiency\": \"WARN\"}, \"rubric_total\": 24}\n"
		"{\"dimensions\": {\"CPU Efficiency\": \"FAIL\"}, \"rubric_total\": 12}\n"
		"{\"dimensions\": {\"CPU Efficiency\": \"PASS\"}, \"rubric_total\": 24}\n"
		"{\"rubric_total\": 30}\n";
	struct rb_ledger l;
	struct rb_regressions g;
	struct rb_result r = current(T_FAIL, T_NA);

	/* The first three valid entries are vector 17; a tie on 24 keeps the first. */
	rb_ledger_parse("hist.jsonl", lines, strlen(lines), &l);
	CHECK(l.entries == 4 && l.corrupt == 2, "entries %d corrupt %d", l.entries, l.corrupt);
	CHECK(!strcmp(l.warnings[0], "Skipped corrupt line 3 in hist.jsonl") &&
		      !strcmp(l.warnings[1], "Skipped corrupt line 7 in hist.jsonl"),
	      "%s / %s", l.warnings[0], l.warnings[1]);
	rb_regress(&l.best, &r, &g);
	CHECK(g.n == 1 && g.r[0].ref == T_WARN && g.r[0].drop == 1, "vector 17 vs_best: tie keeps "
								    "the first");
	/* Only the first three lines: last entry FAIL -> no drop. */
	rb_ledger_parse("h", lines,
			   (size_t)(strstr(lines, "{\"dimensions\": {\"CPU Efficiency\": "
						  "\"PASS\"}, \"rubric_total\": 24}") -
				    lines),
			   &l);
	rb_regress(&l.last, &r, &g);
	CHECK(g.n == 0, "vector 17 vs_last empty");
	rb_ledger_parse("empty", "", 0, &l);
	CHECK(l.entries == 0 && l.corrupt == 0, "empty ledger");
}

static void test_noise_and_na_skipped(void)
{
	struct rb_ref ref = { { [D_CPU] = T_PASS, [D_WALL] = T_PASS, [D_L1] = T_NOISE }, 0 };
	struct rb_result r = current(T_NA, T_NA);
	struct rb_regressions g;

	r.dim[D_WALL].tier = T_NOISE;
	r.dim[D_L1].tier = T_FAIL;
	rb_regress(&ref, &r, &g);
	CHECK(g.n == 0, "N/A and N/A (noise) never count as drops");
}

static void test_baseline(void)
{
	const char *ok = "{\"rubric\": {\"total\": 8, \"dimensions\": {"
			 "\"CPU Efficiency\": {\"score\": 4, \"tier\": \"PASS\"},"
			 "\"Memory Profile\": {\"tier\": \"PASS\", \"peak_bytes\": 5000, "
			 "\"source\": \"massif\"}}}}";
	const char *broken = "{\n  \"rubric\": {\n    \"total\": 8,,\n";
	struct rb_ref ref;
	struct rb_base_mem mem;
	char err[256];

	CHECK(rb_baseline_parse("b.json", ok, strlen(ok), &ref, &mem, err, sizeof(err)) == 0,
	      "%s", err);
	CHECK(ref.tier[D_CPU] == T_PASS && ref.tier[D_L1] == T_NA && ref.total == 8, "tiers");
	CHECK(mem.peak_bytes == 5000 && !strcmp(mem.source, "massif"), "memory baseline");
	/* Vector 11's regression: CPU PASS -> FAIL drops 2. */
	struct rb_result r = current(T_FAIL, T_NA);
	struct rb_regressions g;
	rb_regress(&ref, &r, &g);
	CHECK(g.n == 1 && g.r[0].drop == 2, "vector 11 drop");
	CHECK(rb_baseline_parse("b.json", broken, strlen(broken), &ref, &mem, err,
				   sizeof(err)) == -1 &&
		      !strncmp(err, "b.json:3:", 9) && strstr(err, ": invalid JSON"),
	      "position: %s", err);
	CHECK(rb_baseline_parse("c.json", "[1]", 3, &ref, &mem, err, sizeof(err)) == -1 &&
		      strstr(err, "c.json:1:1: not a benchmark_summary.json"),
	      "%s", err);
}

static void test_ledger_line(void)
{
	struct rb_opts o = { .tier = XP_RB_FAST };
	struct rb_meas m = { .nsizes = 2 };
	struct rb_outcome oc = { .o = &o, .m = &m };

	oc.r = current(T_PASS, T_NA);
	oc.r.total = 4;
	snprintf(oc.env.generated_at, sizeof(oc.env.generated_at),
		 "2026-12-02T18:00:00.000001+00:00");
	char *line = rb_ledger_line(&oc);
	CHECK(line && !strchr(line, '\n'), "one line");
	CHECK(line && strstr(line, "{\"dimensions\":{\"Algorithmic Scaling\":\"N/A\",\"Branch "
				   "Prediction\":\"N/A\",\"CPU Efficiency\":\"PASS\""),
	      "sorted dimensions: %s", line);
	CHECK(line && strstr(line, "\"rubric_total\":4,\"tier\":\"fast\",\"timestamp_utc\":"
				   "\"2026-12-02T18:00:00.000001+00:00\",\"wall_time_mean\":null"),
	      "keys: %s", line);
	/* The line reads back as a ledger entry. */
	struct rb_ledger l;
	rb_ledger_parse("x", line, strlen(line), &l);
	CHECK(l.entries == 1 && l.last.tier[D_CPU] == T_PASS && l.last.total == 4, "round trip");
	free(line);
}

static void test_cmdline(void)
{
	struct rb_cmd c;
	char err[128];

	CHECK(rb_cmd_build("./prog --n {SIZE} 'a b' \"c\\\"d\" e\\ f", NULL, 42, 1, &c, err,
			   sizeof(err)) == 0,
	      "%s", err);
	CHECK(c.argc == 6 && !strcmp(c.argv[2], "42") && !strcmp(c.argv[3], "a b") &&
		      !strcmp(c.argv[4], "c\"d") && !strcmp(c.argv[5], "e f") && c.argv[6] == NULL,
	      "words (%d)", c.argc);
	CHECK(rb_cmd_build("p 'x", NULL, 1, 1, &c, err, sizeof(err)) == -1 &&
		      strstr(err, "unbalanced"),
	      "quote");
	CHECK(rb_cmd_build("   ", NULL, 1, 1, &c, err, sizeof(err)) == -1, "empty");
	CHECK(rb_cmd_build(NULL, "/bin/prog", 7, 1, &c, err, sizeof(err)) == 0 && c.argc == 2 &&
		      !strcmp(c.argv[1], "7"),
	      "binary gets the size as argv[1]");
	CHECK(rb_cmd_build("x {SIZE}{SIZE}", NULL, 3, 1, &c, err, sizeof(err)) == 0 &&
		      !strcmp(c.argv[1], "33"),
	      "every {SIZE}");
	const struct rb_cmd_var vars[] = { { "{PID}", 4321 }, { "{SIZE}", 30000 }, { "{RUN}", 2 } };
	CHECK(rb_cmd_expand("perf stat -o 'out dir/p-{SIZE}-{RUN}.csv' -p {PID} {OTHER}", vars, 3,
			    &c, err, sizeof(err)) == 0 &&
		      c.argc == 7 && !strcmp(c.argv[3], "out dir/p-30000-2.csv") &&
		      !strcmp(c.argv[5], "4321") && !strcmp(c.argv[6], "{OTHER}"),
	      "--attach placeholders (%d words)", c.argc);
}

int main(void)
{
	test_vector16();
	test_vector17();
	test_noise_and_na_skipped();
	test_baseline();
	test_ledger_line();
	test_cmdline();
	printf("regress_test: %d failure(s)\n", test_failures);
	return test_failures != 0;
}
