/* SPDX-License-Identifier: MIT */
/*
 * score_test.c - the research file's test vectors (§10) against the stats,
 * scoring and findings code, plus the hardware-counter path on recorded
 * values (this machine has no PMU). Vector numbers are in the comments.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/test_check.h"
#include "rubric/findings.h"
#include "rubric/measure.h"
#include "rubric/score.h"
#include "rubric/stats.h"

#define NEAR(a, b, eps) (fabs((double)(a) - (double)(b)) <= (eps))

static struct rb_opts opts(enum rb_cx cx, long n, int nsizes)
{
	struct rb_opts o = { .expected = cx, .max_cv = 5.0, .reps = 5, .valgrind_size = n };

	o.nsizes = nsizes;
	return o;
}

/* A size group from wall times, statistics filled the way measure.c does. */
static void put_size(struct rb_meas *m, long size, const double *wall, int n)
{
	struct rb_size *z = &m->size[m->nsizes++];
	struct rb_run runs[XP_RB_MAX_REPS];

	memset(runs, 0, sizeof(runs));
	z->size = size;
	z->nruns = n;
	memcpy(z->wall, wall, (size_t)n * sizeof(*wall));
	rb_size_stats(z, runs);
}

static void test_fit(void)
{
	const double n1[] = { 0, 100, 1000 }, t1[] = { 1, 10, 100 };
	const double n3[] = { 1000, 4000, 16000 }, t3[] = { 0.086, 0.206, 0.624 };

	CHECK(NEAR(rb_loglog_slope(n1, t1, 3), 1.0, 1e-12), "vector 1");
	CHECK(rb_round(rb_loglog_slope(n3, t3, 3), 3) == 0.715, "vector 3: %.4f",
	      rb_loglog_slope(n3, t3, 3));
	CHECK(rb_loglog_slope(n1, t1, 1) == 1.0, "fewer than two pairs -> 1.0");
}

/* Vector 2: two sizes, exponent only -> k 1.0 but the dimension is N/A. */
static void test_vector2(void)
{
	struct rb_meas m = { 0 };
	struct rb_opts o = opts(XP_CX_LINEAR, 10000, 2);
	struct rb_result r;

	put_size(&m, 10, (double[]){ 0.01 }, 1);
	put_size(&m, 100, (double[]){ 0.1 }, 1);
	rb_score_all(&m, &o, NULL, &r);
	const struct rb_score *s = &r.dim[D_SCALING];
	CHECK(s->sub_present[S_EXPONENT] && s->sub_value[S_EXPONENT] == 1.0, "k %g",
	      s->sub_value[S_EXPONENT]);
	CHECK(s->tier == T_NA && s->score == -1, "N/A with missing sub-checks");
	CHECK(!strcmp(s->note, "Incomplete evidence for strict scaling rubric"), "%s", s->note);
}

static struct rb_cg_fn row(const char *name, uint64_t dr, uint64_t dw)
{
	struct rb_cg_fn f = { .ev = { [CG_DR] = dr, [CG_DW] = dw } };

	snprintf(f.name, sizeof(f.name), "%s", name);
	return f;
}

/* Vectors 4, 5, 6, 13 (as parsed values): ratio sub-checks. */
static void test_ratio_subchecks(void)
{
	struct rb_meas m = { 0 };
	struct rb_opts o = opts(XP_CX_NLOGN, 100, 0);
	struct rb_result r;
	struct rb_cg_fn rows5[] = { row("a.c", 60, 0), row("b.c", 60, 0) };

	m.cl_stage.ran = 1;
	m.cl.total_calls = 5000;
	rb_score_all(&m, &o, NULL, &r);
	CHECK(r.dim[D_SCALING].sub_value[S_CALL_AMP] == 50.0 &&
		      r.dim[D_SCALING].sub_tier[S_CALL_AMP] == T_WARN,
	      "vector 4");

	o.valgrind_size = 10;
	m.cg_stage.ran = 1;
	m.cg.fn = rows5;
	m.cg.nfn = 2;
	m.cg.total[CG_DR] = 120;
	rb_score_all(&m, &o, NULL, &r);
	CHECK(r.dim[D_SCALING].sub_value[S_DATA_REUSE] == 6.0 &&
		      r.dim[D_SCALING].sub_tier[S_DATA_REUSE] == T_PASS,
	      "vector 5: %g", r.dim[D_SCALING].sub_value[S_DATA_REUSE]);

	struct rb_cg_fn rows6[] = { row("hot.c", 100, 100), row("cold.c", 10000, 0) };
	m.cg.fn = rows6;
	m.cg.total[CG_DR] = 10100;
	m.cg.total[CG_DW] = 100;
	rb_score_all(&m, &o, NULL, &r);
	CHECK(r.dim[D_SCALING].sub_value[S_WRITE_AMP] == 1.0 &&
		      r.dim[D_SCALING].sub_tier[S_WRITE_AMP] == T_FAIL,
	      "vector 6: %g", r.dim[D_SCALING].sub_value[S_WRITE_AMP]);

	m.cl.total_calls = 400;
	m.cl.mult_paths = 2;
	o.valgrind_size = 100;
	rb_score_all(&m, &o, NULL, &r);
	CHECK(r.dim[D_SCALING].sub_tier[S_MULT_PATHS] == T_FAIL, "vector 13: two paths FAIL");
}

/* Vectors 7, 8, 9: the noise gate and per-size CVs. */
static void test_wall(void)
{
	struct rb_meas m = { 0 };
	struct rb_opts o = opts(XP_CX_NLOGN, 10, 0);
	struct rb_result r;

	put_size(&m, 0, (double[]){ 1, 1, 1, 3 }, 4);
	rb_score_all(&m, &o, NULL, &r);
	CHECK(r.dim[D_WALL].tier == T_NOISE && r.dim[D_WALL].score == -1, "vector 7 tier");
	CHECK(NEAR(r.dim[D_WALL].m[0].value, 66.67, 0.005), "vector 7 cv %g",
	      r.dim[D_WALL].m[0].value);
	CHECK(r.max_possible == 0 && r.total == 0, "noise excluded from the total");

	memset(&m, 0, sizeof(m));
	put_size(&m, 0, (double[]){ 1, 1.01, 0.99, 1 }, 4);
	m.cg_stage.ran = 1;
	m.cg.total[CG_DR] = 1000;
	m.cg.total[CG_D1MR] = 5; /* L1 0.5 %: PASS */
	m.cg.have = 1ull << CG_DR | 1ull << CG_D1MR;
	rb_score_all(&m, &o, NULL, &r);
	CHECK(r.dim[D_WALL].tier == T_PASS && NEAR(r.dim[D_WALL].m[0].value, 0.82, 0.005) &&
		      r.dim[D_WALL].m[0].pass == 3.0,
	      "vector 8 cv %g", r.dim[D_WALL].m[0].value);
	CHECK(r.dim[D_L1].tier == T_PASS, "vector 8: L1 PASS");
	/* LL and branch have no events in this profile: N/A, so only wall + L1 (+CPU) count. */
	CHECK(r.total == r.max_possible && r.dim[D_LL].tier == T_NA, "vector 8 total %d/%d",
	      r.total, r.max_possible);

	memset(&m, 0, sizeof(m));
	o.nsizes = 2;
	put_size(&m, 10, (double[]){ 0.01, 0.0101 }, 2);
	put_size(&m, 1000, (double[]){ 1.0, 1.01 }, 2);
	rb_score_all(&m, &o, NULL, &r);
	CHECK(r.dim[D_WALL].tier == T_PASS && r.dim[D_WALL].ncv == 2 &&
		      r.dim[D_WALL].cv_by_size[0] == 0.7 && r.dim[D_WALL].cv_by_size[1] == 0.7,
	      "vector 9");
}

static void test_percentiles(void)
{
	const double v[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };

	CHECK(NEAR(rb_percentile(v, 10, 50), 5.5, 1e-9), "vector 10 p50");
	CHECK(NEAR(rb_percentile(v, 10, 95), 10.45, 1e-9), "vector 10 p95 %g",
	      rb_percentile(v, 10, 95));
	CHECK(NEAR(rb_percentile(v, 10, 99), 10.89, 1e-9), "vector 10 p99");
	CHECK(rb_median((double[]){ 3, 1, 2, 10 }, 4) == 2.5, "median is the middle, not the mean");
}

/* Vector 11 (CPU concentration) and vector 12 (IPC, branch rate) on recorded counters. */
static void test_cpu_and_hw(void)
{
	struct rb_meas m = { 0 };
	struct rb_opts o = opts(XP_CX_NLOGN, 10, 0);
	struct rb_result r;
	struct rb_cg_fn fns[] = { { .name = "hot", .ev = { [CG_IR] = 80 } },
				  { .name = "rest", .ev = { [CG_IR] = 20 } } };

	m.cg_stage.ran = 1;
	m.cg.fn = fns;
	m.cg.nfn = 2;
	m.cg.total[CG_IR] = 100;
	rb_score_all(&m, &o, NULL, &r);
	CHECK(r.dim[D_CPU].tier == T_FAIL && r.dim[D_CPU].m[0].value == 80.0, "vector 11");

	memset(&m, 0, sizeof(m));
	put_size(&m, 0, (double[]){ 1, 1 }, 2);
	struct xp_counter_values *c = &m.size[0].ctr;
	c->value[XP_CTR_CYCLES] = 100;
	c->value[XP_CTR_INSTRUCTIONS] = 200;
	c->value[XP_CTR_BRANCHES] = 10;
	c->value[XP_CTR_BRANCH_MISSES] = 1;
	c->mask = 1ull << XP_CTR_CYCLES | 1ull << XP_CTR_INSTRUCTIONS | 1ull << XP_CTR_BRANCHES |
		  1ull << XP_CTR_BRANCH_MISSES;
	rb_score_all(&m, &o, NULL, &r);
	CHECK(r.dim[D_CPU].tier == T_PASS && r.dim[D_CPU].m[0].value == 2.0, "vector 12 IPC");
	CHECK(r.dim[D_BRANCH].m[0].value == 10.0 && r.dim[D_BRANCH].tier == T_FAIL &&
		      !strcmp(r.dim[D_BRANCH].source, "perf_event"),
	      "vector 12 branch %g", r.dim[D_BRANCH].m[0].value);
	CHECK(r.dim[D_BRANCH].l4_id && r.dim[D_BRANCH].l4_fires, "L4 branch_miss_rate 0.1 fires");
	/* IPC below L4 ipc_low's threshold (1.0) fails; between 1.0 and 1.5 warns. */
	c->value[XP_CTR_INSTRUCTIONS] = 120;
	rb_score_all(&m, &o, NULL, &r);
	CHECK(r.dim[D_CPU].tier == T_WARN && !r.dim[D_CPU].l4_fires, "IPC 1.2 WARN");
	c->value[XP_CTR_INSTRUCTIONS] = 90;
	rb_score_all(&m, &o, NULL, &r);
	CHECK(r.dim[D_CPU].tier == T_FAIL && r.dim[D_CPU].l4_fires, "IPC 0.9 FAIL");
	CHECK(r.dim[D_L1].tier == T_NA && strstr(r.dim[D_L1].note, "hardware counters"),
	      "L1 N/A says why: %s", r.dim[D_L1].note);
	/* Cache rates from hardware counters (values of the size a PMU machine reports). */
	c->value[XP_CTR_INSTRUCTIONS] = 2.0e9;
	c->value[XP_CTR_L1D_LOADS] = 6.0e8;
	c->value[XP_CTR_L1D_MISSES] = 1.2e7; /* 2 %: WARN; L4 l1d_miss_rate 0.02 does not fire */
	c->value[XP_CTR_LLC_LOADS] = 2.0e7;
	c->value[XP_CTR_LLC_MISSES] = 6.0e6; /* 1 % of loads: WARN; 3 MPKI: L4 llc_mpki fires */
	c->mask |= 1ull << XP_CTR_L1D_LOADS | 1ull << XP_CTR_L1D_MISSES | 1ull << XP_CTR_LLC_LOADS |
		   1ull << XP_CTR_LLC_MISSES;
	rb_score_all(&m, &o, NULL, &r);
	CHECK(r.dim[D_L1].tier == T_WARN && r.dim[D_L1].m[0].value == 2.0 &&
		      !strcmp(r.dim[D_L1].l4_id, "l1d_miss_rate") && !r.dim[D_L1].l4_fires,
	      "L1 from counters: %g", r.dim[D_L1].m[0].value);
	CHECK(r.dim[D_LL].tier == T_WARN && r.dim[D_LL].m[0].value == 1.0 &&
		      !strcmp(r.dim[D_LL].l4_id, "llc_mpki") &&
		      NEAR(r.dim[D_LL].l4_value, 3.0, 1e-9) && r.dim[D_LL].l4_fires,
	      "LLC from counters: %g, %g MPKI", r.dim[D_LL].m[0].value, r.dim[D_LL].l4_value);
}

static void test_memory(void)
{
	struct rb_meas m = { 0 };
	struct rb_opts o = opts(XP_CX_NLOGN, 10, 0);
	struct rb_result r;
	struct rb_base_mem base = { 1000, "massif" };

	put_size(&m, 0, (double[]){ 1, 1 }, 2);
	m.size[0].maxrss_kb = 2048;
	rb_score_all(&m, &o, NULL, &r);
	CHECK(r.dim[D_MEMORY].tier == T_NA && r.dim[D_MEMORY].m[0].value == 2048 * 1024.0,
	      "peak RSS without a baseline: N/A, value kept");
	m.ms_stage.ran = 1;
	m.ms.peak_bytes = 1400;
	m.ms.local_maxima = 4;
	rb_score_all(&m, &o, NULL, &r);
	CHECK(r.dim[D_MEMORY].tier == T_WARN && !strcmp(r.dim[D_MEMORY].source, "massif"),
	      "4 heap peaks: WARN");
	rb_score_all(&m, &o, &base, &r);
	CHECK(r.dim[D_MEMORY].tier == T_WARN && r.dim[D_MEMORY].m[1].value == 1.4,
	      "baseline ratio 1.4 WARN");
	snprintf(base.source, sizeof(base.source), "rusage");
	m.ms.local_maxima = 0;
	rb_score_all(&m, &o, &base, &r);
	CHECK(r.dim[D_MEMORY].tier == T_PASS && r.dim[D_MEMORY].nm == 1,
	      "a baseline from another source is not compared");
}

/* Vectors 15 and 18: finding ids and the wall-time finding. */
static void test_findings(void)
{
	struct rb_result r = { 0 };
	char id[17];

	rb_finding_id("/repo", "l1_miss_rate", id);
	CHECK(!strcmp(id, "db19268a0fce0a74"), "vector 15 id %s", id);
	r.dim[D_WALL].tier = T_FAIL;
	r.dim[D_WALL].m[0] = (struct rb_metric){ "cv", 7.0, 3.0 };
	r.dim[D_WALL].nm = 1;
	cJSON *a = rb_findings_json(&r, "/repo");
	cJSON *f = cJSON_GetArrayItem(a, 0);
	cJSON *m = cJSON_GetObjectItem(f, "metric");
	CHECK(cJSON_GetArraySize(a) == 1, "one finding");
	CHECK(!strcmp(cJSON_GetObjectItem(m, "name")->valuestring, "wall_time_cv") &&
		      cJSON_GetObjectItem(m, "value")->valuedouble == 7.0 &&
		      cJSON_GetObjectItem(m, "threshold")->valuedouble == 3.0,
	      "vector 18 metric");
	CHECK(!strcmp(cJSON_GetObjectItem(f, "severity")->valuestring, "high"),
	      "vector 18 severity");
	CHECK(strstr(cJSON_GetObjectItem(f, "suggested_action")->valuestring, "governor"),
	      "prescription matched by dimension");
	cJSON_Delete(a);
}

/* k of t = c + a n^k: a start-up cost c no longer bends k low at small n. */
static void test_power_exponent(void)
{
	double n[4] = { 2048, 8192, 32768, 131072 }, t[3][4], flat[4] = { 1.0, 1.01, 0.99, 1.02 };

	for (int i = 0; i < 4; i++) {
		t[0][i] = 0.0022 + 1e-6 * n[i]; /* start-up 52% of the smallest */
		t[1][i] = 0.0022 + 2e-9 * n[i] * n[i];
		t[2][i] = 3e-7 * pow(n[i], 1.5);
	}
	CHECK(NEAR(rb_power_exponent(n, t[0], 4), 1.0, 0.0015), "linear + start-up: %.3f (log-log %.3f)",
	      rb_power_exponent(n, t[0], 4), rb_loglog_slope(n, t[0], 4));
	CHECK(NEAR(rb_power_exponent(n, t[1], 4), 2.0, 0.0015), "quadratic + start-up: %.3f",
	      rb_power_exponent(n, t[1], 4));
	CHECK(NEAR(rb_power_exponent(n, t[2], 4), 1.5, 0.0015), "no start-up: %.3f",
	      rb_power_exponent(n, t[2], 4));
	CHECK(rb_power_exponent(n, t[0], 2) == rb_loglog_slope(n, t[0], 2), "two sizes: log-log");
	CHECK(rb_power_exponent(n, flat, 4) < 0.05, "start-up and noise only: flat, %.3f",
	      rb_power_exponent(n, flat, 4));
}

static void test_fit_classes(void)
{
	double n[4] = { 4096, 16384, 65536, 262144 }, t[3][4];
	struct rb_fit fit;

	for (int i = 0; i < 4; i++) {
		t[0][i] = 1e-6 * n[i];
		t[1][i] = 1e-7 * n[i] * log(n[i]);
		t[2][i] = 1e-9 * n[i] * n[i];
	}
	for (int c = 0; c < XP_CX_COUNT; c++) {
		rb_fit_classes(n, t[c], 4, &fit);
		CHECK(fit.ok && fit.best == c, "class %s identified as %s", rb_cx_names[c],
		      rb_cx_names[fit.best]);
	}
}

int main(void)
{
	test_fit();
	test_power_exponent();
	test_vector2();
	test_ratio_subchecks();
	test_wall();
	test_percentiles();
	test_cpu_and_hw();
	test_memory();
	test_findings();
	test_fit_classes();
	printf("score_test: %d failure(s)\n", test_failures);
	return test_failures != 0;
}
