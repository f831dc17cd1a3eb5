/* SPDX-License-Identifier: MIT */
/*
 * vgparse_test.c - the Valgrind parsers on files recorded from Valgrind
 * 3.19 (testdata/, target testdata/stream.c at size 5000), checked against
 * Valgrind's own figures for the same runs (its end-of-run summary, and
 * grep/awk over the raw files), then on broken inputs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/in_file.h"
#include "lib/test_check.h"
#include "rubric/vgparse.h"

static char *load(const char *path, size_t *len)
{
	char *buf = NULL;
	int rc = xp_in_read(path, XP_VG_MAX_BYTES, &buf, len);

	CHECK(rc == 0, "read %s: %d", path, rc);
	return buf;
}

static void test_cachegrind_recorded(void)
{
	struct rb_cg_profile p;
	char err[256];
	size_t len;
	char *buf = load("rubric/testdata/cachegrind.out", &len);

	if (!buf)
		return;
	CHECK(rb_cg_parse("cachegrind.out", buf, len, &p, err, sizeof(err)) == 0, "%s", err);
	/* cachegrind's stderr summary of this run: I refs 235,909; D refs 34,907 rd + 15,976 wr. */
	CHECK(p.total[CG_IR] == 235909 && p.total[CG_DR] == 34907 && p.total[CG_DW] == 15976,
	      "refs %lu %lu %lu", (unsigned long)p.total[CG_IR], (unsigned long)p.total[CG_DR],
	      (unsigned long)p.total[CG_DW]);
	CHECK(p.total[CG_D1MR] == 1952 && p.total[CG_D1MW] == 1039, "D1 misses");
	CHECK(p.total[CG_DLMR] == 1002 && p.total[CG_DLMW] == 974, "LLd misses");
	CHECK(p.total[CG_BC] == 35874 && p.total[CG_BCM] == 3336, "conditional branches");
	CHECK(p.have == (1ull << CG_NEV) - 1, "all events present");
	uint64_t ir = 0;
	int main_seen = 0;
	for (size_t i = 0; i < p.nfn; i++) {
		ir += p.fn[i].ev[CG_IR];
		main_seen |= !strcmp(p.fn[i].name, "main");
	}
	CHECK(ir == p.total[CG_IR] && main_seen, "per-function Ir sums to the total (%lu)",
	      (unsigned long)ir);
	/* --source-prefix: only the test program's own rows (main, in two files: atol inlined). */
	uint64_t main_ir = 0;
	for (size_t i = 0; i < p.nfn; i++)
		if (!strcmp(p.fn[i].name, "main") && strstr(p.fn[i].file, "testdata/stream.c"))
			main_ir = p.fn[i].ev[CG_IR];
	rb_cg_filter(&p, "/work/wt/rubric/rubric/testdata/");
	CHECK(p.filtered && p.nfn == 1 && !strcmp(p.fn[0].name, "main") && main_ir > 0 &&
		      p.sel[CG_IR] == main_ir && p.total[CG_IR] == 235909,
	      "filter: %zu rows, sel Ir %lu", p.nfn, (unsigned long)p.sel[CG_IR]);
	rb_cg_free(&p);
	/* Cut mid-file: no summary: line any more. */
	CHECK(rb_cg_parse("cut.out", buf, len / 2, &p, err, sizeof(err)) == -1 &&
		      strstr(err, "cut.out:") && strstr(err, "summary"),
	      "truncated: %s", err);
	free(buf);
}

static void test_cachegrind_broken(void)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "events: Ir\n12 5\n", "cg:2: count line outside" },
		{ "fn=f\n1 2\n", "cg:2: count line outside" },
		{ "events: Ir Dr\nfn=f\n1 2 3 4\n", "cg:3:" },
		{ "events: Ir\nfn=f\n1 99999999999999999999\n", "cg:3:" },
		{ "events: Ir\nfn=f\n1 2x\nsummary: 2\n", "cg:3:" },
		{ "events: Ir\nevents: Ir\n", "cg:2: second events" },
		{ "events: Ir\nsummary: x\n", "cg:2: bad summary" },
		{ "", "no events:" },
	};
	struct rb_cg_profile p;
	char err[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err[0] = '\0';
		CHECK(rb_cg_parse("cg", cases[i].in, strlen(cases[i].in), &p, err, sizeof(err)) ==
				      -1 &&
			      strstr(err, cases[i].want),
		      "case %zu: '%s'", i, err);
	}
	/* Vector 14, in the raw format: totals zipped with the events: line by name. */
	const char *v14 = "events: Ir I1mr D1mr\nsummary: 123 7 8\n";
	CHECK(rb_cg_parse("cg", v14, strlen(v14), &p, err, sizeof(err)) == 0 &&
		      p.total[CG_IR] == 123 && p.total[CG_D1MR] == 8 && p.total[CG_DR] == 0,
	      "vector 14: %s", err);
	rb_cg_free(&p);
	/* Trailing zero counts may be omitted; unknown events are ignored. */
	const char *ok = "events: Xx Ir Dr\nfn=f\n3 7 100\n4 1\nsummary: 8 100 0\n";
	CHECK(rb_cg_parse("cg", ok, strlen(ok), &p, err, sizeof(err)) == 0, "%s", err);
	CHECK(p.nfn == 1 && p.fn[0].ev[CG_IR] == 100 && p.fn[0].ev[CG_DR] == 0, "short lines");
	CHECK(!(p.have & (1ull << CG_BC)), "Bc absent");
	rb_cg_free(&p);
}

static void test_callgrind(void)
{
	struct rb_cl_profile c;
	char err[256];
	size_t len;
	char *buf = load("rubric/testdata/callgrind.out", &len);

	if (buf) {
		/* grep -o 'calls=[0-9]*' | awk: sum 1069, 11 edges above 10. */
		CHECK(rb_cl_parse("cl", buf, len, 10, &c, err, sizeof(err)) == 0 &&
			      c.total_calls == 1069 && c.mult_paths == 11,
		      "recorded: %lu %lu", (unsigned long)c.total_calls,
		      (unsigned long)c.mult_paths);
		CHECK(rb_cl_parse("cl", buf, len, 0, &c, err, sizeof(err)) == 0 &&
			      c.mult_paths == 0,
		      "N 0: no multiplicative paths");
		free(buf);
	}
	/* Vector 13. */
	const char *v13 = "events: Ir\ncalls=150 1\n0 1\ncalls=250 2\n0 1\n";
	CHECK(rb_cl_parse("cl", v13, strlen(v13), 100, &c, err, sizeof(err)) == 0 &&
		      c.total_calls == 400 && c.mult_paths == 2,
	      "vector 13");
	const char *bad = "events: Ir\ncalls=x 1\n";
	CHECK(rb_cl_parse("cl", bad, strlen(bad), 1, &c, err, sizeof(err)) == -1 &&
		      !strcmp(err, "cl:2: bad calls= count"),
	      "%s", err);
	CHECK(rb_cl_parse("cl", "calls=1 2\n", 10, 1, &c, err, sizeof(err)) == -1, "no events:");
}

static void test_massif(void)
{
	struct rb_ms_profile m;
	char err[256];
	size_t len;
	char *buf = load("rubric/testdata/massif.out", &len);

	if (buf) {
		/* mem_heap_B: 0 40000 44096 44096 4096 0 (a plateau is no strict maximum). */
		CHECK(rb_ms_parse("ms", buf, len, &m, err, sizeof(err)) == 0 &&
			      m.peak_bytes == 44096 && m.nsnap == 6 && m.local_maxima == 0,
		      "recorded: peak %lu of %d, %d maxima", (unsigned long)m.peak_bytes, m.nsnap,
		      m.local_maxima);
		free(buf);
	}
	const char *saw = "mem_heap_B=1\nmem_heap_B=3\nmem_heap_B=1\nmem_heap_B=3\nmem_heap_B=1\n";
	CHECK(rb_ms_parse("ms", saw, strlen(saw), &m, err, sizeof(err)) == 0 &&
		      m.local_maxima == 2 && m.peak_bytes == 3,
	      "sawtooth");
	const char *bad = "snapshot=0\nmem_heap_B=-4\n";
	CHECK(rb_ms_parse("ms", bad, strlen(bad), &m, err, sizeof(err)) == -1 &&
		      !strcmp(err, "ms:2: bad mem_heap_B= value"),
	      "%s", err);
}

int main(void)
{
	test_cachegrind_recorded();
	test_cachegrind_broken();
	test_callgrind();
	test_massif();
	printf("vgparse_test: %d failure(s)\n", test_failures);
	return test_failures != 0;
}
