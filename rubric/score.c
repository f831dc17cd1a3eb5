/* SPDX-License-Identifier: MIT */
/*
 * score.c - the seven dimensions, with the original pipeline's thresholds
 * kept as data. Where a dimension overlaps theory's L4 table the L4 verdict
 * is computed next to it (and IPC's FAIL bound is L4 ipc_low's threshold).
 * Hardware counters are preferred to cachegrind when the machine has a PMU.
 */
#include "rubric/score.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rubric/stats.h"
#include "theory/theory.h"

const char *const rb_tier_names[4] = { "fast", "medium", "deep", "asm" };
const char *const rb_cx_names[XP_CX_COUNT] = { "linear", "nlogn", "quadratic" };
const char *const rb_tierv_names[5] = { "N/A", "N/A (noise)", "FAIL", "WARN", "PASS" };
const char *const rb_dim_names[D_COUNT] = {
	"Algorithmic Scaling", "Wall-Time Stability", "CPU Efficiency", "L1 Cache Efficiency",
	"Last-Level Cache",    "Branch Prediction",   "Memory Profile",
};
const char *const rb_sub_names[S_COUNT] = {
	"complexity_exponent", "call_amplification", "data_reuse",
	"write_amplification", "allocation_churn",   "multiplicative_paths",
};
const char *const rb_sub_keys[S_COUNT] = {
	"k", "ratio", "ratio", "ratio", "peaks", "path_count"
};
static const int sub_decimals[S_COUNT] = { 3, 1, 1, 3, 0, 0 };

/* complexity_exponent bounds per --expected-complexity. */
static const struct rb_bounds k_bounds[XP_CX_COUNT] = {
	[XP_CX_LINEAR] = { 1.1, 1.3 },
	[XP_CX_NLOGN] = { 1.3, 1.5 },
	[XP_CX_QUADRATIC] = { 2.0, 2.2 },
};
static const struct rb_bounds sub_bounds[S_COUNT] = {
	[S_CALL_AMP] = { 10, 100 }, [S_DATA_REUSE] = { 10, 100 }, [S_WRITE_AMP] = { 0.2, 0.5 },
	[S_CHURN] = { 2, 5 }, [S_MULT_PATHS] = { 0, 1 },
};
static const struct rb_bounds wall_bounds = { 3, 8 };
static const struct rb_bounds top_fn_bounds = { 20, 35 };
static const double ipc_pass = 1.5; /* IPC >= 1.5 PASS; the FAIL bound is L4 ipc_low */
static const struct rb_bounds mem_ratio_bounds = { 1.1, 1.5 };

/* Cache and branch dimensions: metric, bounds, cachegrind and counter ratios, L4 twin. */
static const struct cache_dim {
	int dim;
	const char *key;
	struct rb_bounds b;
	enum rb_cg_ev num1, num2, den1, den2; /* (num1 + num2) / (den1 + den2); CG_NEV: none */
	enum xp_counter hw_num, hw_den;
	const char *l4;
} cache_dims[] = {
	{ D_L1, "miss_pct", { 1.0, 5.0 }, CG_D1MR, CG_NEV, CG_DR, CG_NEV,
	  XP_CTR_L1D_MISSES, XP_CTR_L1D_LOADS, "l1d_miss_rate" },
	{ D_LL, "miss_pct", { 0.5, 2.0 }, CG_DLMR, CG_DLMW, CG_DR, CG_DW,
	  XP_CTR_LLC_MISSES, XP_CTR_L1D_LOADS, "llc_mpki" },
	{ D_BRANCH, "miss_pct", { 1.0, 3.0 }, CG_BCM, CG_NEV, CG_BC, CG_NEV,
	  XP_CTR_BRANCH_MISSES, XP_CTR_BRANCHES, "branch_miss_rate" },
};

/* A function row counts when it has at least this share of the program's denominator. */
#define ROW_MIN_SHARE 0.001

/* PASS if v <= b.pass, WARN if v <= b.warn, else FAIL. */
static enum rb_tierv grade(double v, struct rb_bounds b)
{
	return v <= b.pass ? T_PASS : v <= b.warn ? T_WARN : T_FAIL;
}

/* Points: 4, 2, 0 for PASS, WARN, FAIL; -1 for N/A. */
static void set_tier(struct rb_score *s, enum rb_tierv t)
{
	s->tier = t;
	s->score = t == T_PASS ? 4 : t == T_WARN ? 2 : t == T_FAIL ? 0 : -1;
}

static void add_metric(struct rb_score *s, const char *key, double v, int decimals, double pass)
{
	if (s->nm < XP_RB_MAX_METRICS)
		s->m[s->nm++] = (struct rb_metric){ key, rb_round(v, decimals), pass };
}

static void not_available(struct rb_score *s, const char *why)
{
	set_tier(s, T_NA);
	snprintf(s->note, sizeof(s->note), "%s", why);
}

/* An L4 row against a value; a missing row (NULL) leaves the score without one. */
static void l4_check(struct rb_score *s, const struct th_l4 *l4, double v)
{
	if (!l4)
		return;
	s->l4_id = l4->id;
	s->l4_value = v;
	s->l4_fires = l4->cmp == XP_FIRE_ABOVE ? v > l4->threshold : v < l4->threshold;
}

static const struct rb_size *largest(const struct rb_meas *m)
{
	const struct rb_size *best = NULL;

	for (int i = 0; i < m->nsizes; i++)
		if (m->size[i].nruns > 0 && (!best || m->size[i].size >= best->size))
			best = &m->size[i];
	return best;
}

static uint64_t cg_sum(const uint64_t *ev, enum rb_cg_ev a, enum rb_cg_ev b)
{
	return (a < CG_NEV ? ev[a] : 0) + (b < CG_NEV ? ev[b] : 0);
}

/*
 * Per-size median CPU time (task-clock) when every size has it, else median
 * wall time. CPU time is the algorithm's work; wall time adds the waits of a
 * shared machine (load 4 on this 2-core VM made linear look like n^0.7).
 */
static const char *scaling_times(const struct rb_meas *m, double *n, double *t, size_t *cnt)
{
	const uint64_t tc = 1ull << XP_CTR_TASK_CLOCK;
	int cpu = 1;

	*cnt = 0;
	for (int i = 0; i < m->nsizes; i++)
		if (m->size[i].nruns > 0 && m->size[i].wall_median > 0)
			cpu &= (m->size[i].ctr.mask & tc) &&
			       m->size[i].ctr.value[XP_CTR_TASK_CLOCK] > 0;
	for (int i = 0; i < m->nsizes; i++) {
		const struct rb_size *z = &m->size[i];
		if (z->nruns == 0 || !(z->wall_median > 0))
			continue;
		n[*cnt] = (double)z->size;
		t[(*cnt)++] = cpu ? z->ctr.value[XP_CTR_TASK_CLOCK] / 1e9 : z->wall_median;
	}
	return cpu ? "task_clock" : "wall";
}

static void sub_check(struct rb_score *s, int sub, double v, struct rb_bounds b)
{
	s->sub_present[sub] = 1;
	s->sub_value[sub] = rb_round(v, sub_decimals[sub]);
	s->sub_tier[sub] = grade(s->sub_value[sub], b);
	s->sub_pass[sub] = b.pass;
}

static void scaling_exponent(const struct rb_meas *m, const struct rb_opts *o,
			     struct rb_result *r)
{
	double n[XP_RB_MAX_SIZES], t[XP_RB_MAX_SIZES];
	size_t cnt;
	const char *src = scaling_times(m, n, t, &cnt);

	if (o->nsizes < 2 || cnt < 2)
		return;
	rb_fit_classes(n, t, cnt, &r->fit);
	/* The class fit needs sizes > 1; k alone follows the original (n > 0). */
	r->fit.k = rb_power_exponent(n, t, cnt);
	r->fit.time_source = src;
	sub_check(&r->dim[D_SCALING], S_EXPONENT, r->fit.k, k_bounds[o->expected]);
}

/* data_reuse (Dr / N) and write_amplification (Dw / Dr): worst significant function. */
static void scaling_cachegrind(const struct rb_meas *m, long N, struct rb_score *s)
{
	const struct rb_cg_profile *p = &m->cg;
	double reuse = -1, wamp = -1, n = N > 0 ? (double)N : 1;

	if (!m->cg_stage.ran || p->total[CG_DR] == 0)
		return;
	for (size_t i = 0; i < p->nfn; i++) {
		const uint64_t *ev = p->fn[i].ev;
		if (ev[CG_DR] == 0 || ev[CG_DR] < ROW_MIN_SHARE * (double)p->total[CG_DR])
			continue;
		reuse = fmax(reuse, (double)ev[CG_DR] / n);
		wamp = fmax(wamp, (double)ev[CG_DW] / (double)ev[CG_DR]);
	}
	if (wamp < 0) {
		reuse = (double)p->total[CG_DR] / n;
		wamp = (double)p->total[CG_DW] / (double)p->total[CG_DR];
	}
	if (N > 0)
		sub_check(s, S_DATA_REUSE, reuse, sub_bounds[S_DATA_REUSE]);
	sub_check(s, S_WRITE_AMP, wamp, sub_bounds[S_WRITE_AMP]);
}

static void score_scaling(const struct rb_meas *m, const struct rb_opts *o,
			  struct rb_result *r)
{
	struct rb_score *s = &r->dim[D_SCALING];
	long N = o->valgrind_size;
	int present = 0, warns = 0, fails = 0;

	scaling_exponent(m, o, r);
	if (m->cl_stage.ran && N > 0 && m->cl.total_calls > 0)
		sub_check(s, S_CALL_AMP, (double)m->cl.total_calls / (double)N,
			  sub_bounds[S_CALL_AMP]);
	scaling_cachegrind(m, N, s);
	if (m->ms_stage.ran)
		sub_check(s, S_CHURN, m->ms.local_maxima, sub_bounds[S_CHURN]);
	if (m->cl_stage.ran)
		sub_check(s, S_MULT_PATHS, (double)m->cl.mult_paths, sub_bounds[S_MULT_PATHS]);
	for (int i = 0; i < S_COUNT; i++) {
		present += s->sub_present[i];
		warns += s->sub_present[i] && s->sub_tier[i] == T_WARN;
		fails += s->sub_present[i] && s->sub_tier[i] == T_FAIL;
	}
	if (present == 0)
		not_available(s, "Insufficient data for scaling analysis");
	else if (present < S_COUNT)
		not_available(s, "Incomplete evidence for strict scaling rubric");
	else
		set_tier(s, fails ? T_FAIL : warns >= 2 ? T_WARN : T_PASS);
}

/* Scored CV = the worst per-size CV; the noise gate turns it into N/A (noise). */
static void score_wall(const struct rb_meas *m, double max_cv, struct rb_score *s)
{
	double worst = -1;

	for (int i = 0; i < m->nsizes; i++) {
		const struct rb_size *z = &m->size[i];
		if (z->nruns == 0 || !(z->wall_median > 0))
			continue;
		s->cv_size[s->ncv] = z->size;
		s->cv_by_size[s->ncv] = rb_round(z->wall_cv, 2);
		worst = fmax(worst, s->cv_by_size[s->ncv++]);
	}
	if (worst < 0) {
		not_available(s, "no timing data");
		return;
	}
	add_metric(s, "cv", worst, 2, wall_bounds.pass);
	if (worst > max_cv) {
		set_tier(s, T_NOISE);
		snprintf(s->note, sizeof(s->note), "cv %.2f%% above --max-cv %.2f%%", worst,
			 max_cv);
		s->ncv = 0;
		return;
	}
	set_tier(s, grade(worst, wall_bounds));
}

static enum rb_tierv worse(enum rb_tierv a, enum rb_tierv b)
{
	return a < b ? a : b;
}

/* Hotspot concentration (cachegrind self Ir of the top function) and IPC. */
static void score_cpu(const struct rb_meas *m, struct rb_score *s)
{
	const struct rb_size *z = largest(m);
	const struct th_l4 *l4 = th_l4_find("ipc_low");
	const double fail_below = l4 ? l4->threshold : 1.0;
	enum rb_tierv t = T_PASS;
	uint64_t top = 0;
	double ipc;
	int any = 0;

	if (m->cg_stage.ran && m->cg.total[CG_IR] > 0 && m->cg.nfn > 0) {
		for (size_t i = 0; i < m->cg.nfn; i++)
			if (m->cg.fn[i].ev[CG_IR] > top)
				top = m->cg.fn[i].ev[CG_IR];
		double pct = rb_round(100.0 * (double)top / (double)m->cg.total[CG_IR], 1);
		add_metric(s, "top_fn_pct", pct, 1, top_fn_bounds.pass);
		t = worse(t, grade(pct, top_fn_bounds));
		s->source = "cachegrind";
		any = 1;
	}
	if (z && xp_counters_ratio(&z->ctr, XP_CTR_INSTRUCTIONS, XP_CTR_CYCLES, &ipc) == 0) {
		ipc = rb_round(ipc, 3);
		add_metric(s, "IPC", ipc, 3, ipc_pass);
		/* better when higher: PASS >= 1.5, WARN >= the L4 ipc_low bound, else FAIL */
		t = worse(t, ipc >= ipc_pass ? T_PASS : ipc >= fail_below ? T_WARN : T_FAIL);
		l4_check(s, l4, ipc);
		s->source = any ? "cachegrind+perf_event" : "perf_event";
		any = 1;
	}
	if (!any) {
		snprintf(s->note, sizeof(s->note), "cachegrind: %s; IPC: %s",
			 !m->cg_stage.ran ? m->cg_stage.why : "no rows under --source-prefix",
			 z ? z->ctr.why[XP_CTR_CYCLES] : "no runs");
		set_tier(s, T_NA);
		return;
	}
	set_tier(s, t);
}

/*
 * Misses, accesses and instructions over the program's totals, or over the
 * --source-prefix rows together; 0, or -1 when there are no accesses. The
 * original took the worst cg_annotate row, so a loader function with a few
 * hundred accesses could decide the score; sums weigh every access once.
 */
static int cg_counts(const struct rb_cg_profile *p, const struct cache_dim *d, double *misses,
		     double *den, double *instructions)
{
	const uint64_t *t = p->filtered ? p->sel : p->total;
	uint64_t need = 1ull << d->num1 | 1ull << d->den1;

	*misses = (double)cg_sum(t, d->num1, d->num2);
	*den = (double)cg_sum(t, d->den1, d->den2);
	*instructions = (double)t[CG_IR];
	/* An event the file lacks (no --branch-sim, no --cache-sim) is not a zero. */
	return (p->have & need) == need && *den > 0 ? 0 : -1;
}

/* L4 value of a cache dimension: per kilo-instruction, or the plain ratio. */
static void cache_l4(struct rb_score *s, const struct cache_dim *d, double misses, double den,
		     double instructions)
{
	const struct th_l4 *l4 = th_l4_find(d->l4);

	if (!l4)
		return;
	if (!strcmp(l4->unit, "MPKI") && instructions > 0)
		l4_check(s, l4, 1000.0 * misses / instructions);
	else if (strcmp(l4->unit, "MPKI") && den > 0)
		l4_check(s, l4, misses / den);
}

static void score_cache(const struct rb_meas *m, const struct cache_dim *d,
			struct rb_score *s)
{
	const struct rb_size *z = largest(m);
	double v, misses, den, instructions;

	if (z && xp_counters_ratio(&z->ctr, d->hw_num, d->hw_den, &v) == 0) {
		add_metric(s, d->key, 100.0 * v, 3, d->b.pass);
		s->source = "perf_event";
		if (z->ctr.mask & (1ull << XP_CTR_INSTRUCTIONS))
			cache_l4(s, d, z->ctr.value[d->hw_num], z->ctr.value[d->hw_den],
				 z->ctr.value[XP_CTR_INSTRUCTIONS]);
	} else if (m->cg_stage.ran && cg_counts(&m->cg, d, &misses, &den, &instructions) == 0) {
		add_metric(s, d->key, 100.0 * misses / den, 3, d->b.pass);
		s->source = "cachegrind";
		cache_l4(s, d, misses, den, instructions);
	} else {
		snprintf(s->note, sizeof(s->note), "hardware counters: %s; cachegrind: %s",
			 z ? z->ctr.why[d->hw_num] : "no runs",
			 !m->cg_stage.ran     ? m->cg_stage.why
			 : m->cg.filtered ? "no accesses in the --source-prefix rows"
					  : "no such events in cachegrind.out");
		set_tier(s, T_NA);
		return;
	}
	set_tier(s, grade(s->m[0].value, d->b));
}

static void score_memory(const struct rb_meas *m, const struct rb_base_mem *base,
			 struct rb_score *s)
{
	const struct rb_size *z = largest(m);
	double peak = 0;

	if (m->ms_stage.ran && m->ms.peak_bytes > 0) {
		peak = (double)m->ms.peak_bytes;
		s->source = "massif";
	} else if (z && z->maxrss_kb > 0) {
		peak = (double)z->maxrss_kb * 1024.0;
		s->source = z->rss_exact ? "exit_vmhwm" : "rusage";
	} else {
		not_available(s, "no massif profile and no peak RSS");
		return;
	}
	add_metric(s, "peak_bytes", peak, 0, 0.0);
	if (base && base->peak_bytes > 0 && !strcmp(base->source, s->source)) {
		double ratio = rb_round(peak / base->peak_bytes, 2);
		add_metric(s, "baseline_ratio", ratio, 2, mem_ratio_bounds.pass);
		set_tier(s, grade(ratio, mem_ratio_bounds));
	} else if (m->ms_stage.ran) {
		set_tier(s, grade(m->ms.local_maxima, sub_bounds[S_CHURN]));
		if (s->tier != T_PASS)
			add_metric(s, "churn_peaks", m->ms.local_maxima, 0,
				   sub_bounds[S_CHURN].pass);
	} else {
		not_available(s, "peak RSS alone has no threshold: needs massif (tier deep) or a "
				 "--baseline with the same source");
	}
}

void rb_score_all(const struct rb_meas *m, const struct rb_opts *o,
		     const struct rb_base_mem *base, struct rb_result *r)
{
	memset(r, 0, sizeof(*r));
	score_scaling(m, o, r);
	score_wall(m, o->max_cv, &r->dim[D_WALL]);
	score_cpu(m, &r->dim[D_CPU]);
	for (size_t i = 0; i < sizeof(cache_dims) / sizeof(cache_dims[0]); i++)
		score_cache(m, &cache_dims[i], &r->dim[cache_dims[i].dim]);
	score_memory(m, base, &r->dim[D_MEMORY]);
	for (int d = 0; d < D_COUNT; d++) {
		if (r->dim[d].score < 0)
			continue;
		r->total += r->dim[d].score;
		r->max_possible += 4;
	}
}
