/* SPDX-License-Identifier: MIT */
/*
 * summary.c - the machine-readable outputs. Key order follows the original
 * (insertion order), with the added keys after the ones they refine.
 */
#include "rubric/summary.h"

#include <stdio.h>

#include "rubric/stats.h"
#include "rubric/valgrind.h"
#include "theory/theory.h"

/* Sub-check names in alphabetical order, for missing_sub_checks. */
static const int subs_sorted[S_COUNT] = { S_CHURN,	S_CALL_AMP,   S_EXPONENT,
					  S_DATA_REUSE, S_MULT_PATHS, S_WRITE_AMP };

/* sub_checks, and missing_sub_checks when some (not all, not none) are present. */
static void sub_checks_json(const struct rb_score *s, cJSON *payload)
{
	cJSON *subs = cJSON_AddObjectToObject(payload, "sub_checks");
	int present = 0;

	for (int i = 0; i < S_COUNT; i++) {
		if (!s->sub_present[i])
			continue;
		cJSON *c = cJSON_AddObjectToObject(subs, rb_sub_names[i]);
		cJSON_AddNumberToObject(c, rb_sub_keys[i], s->sub_value[i]);
		cJSON_AddStringToObject(c, "tier", rb_tierv_names[s->sub_tier[i]]);
		present++;
	}
	if (present == 0 || present == S_COUNT)
		return;
	cJSON *missing = cJSON_AddArrayToObject(payload, "missing_sub_checks");
	for (int i = 0; i < S_COUNT; i++)
		if (!s->sub_present[subs_sorted[i]])
			cJSON_AddItemToArray(missing,
					     cJSON_CreateString(rb_sub_names[subs_sorted[i]]));
}

/* One dimension's payload ({score, tier, metrics..., note?, l4?, sub_checks?}). */
static cJSON *dim_json(const struct rb_score *s, int dim)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "score", s->score);
	cJSON_AddStringToObject(o, "tier", rb_tierv_names[s->tier]);
	for (int i = 0; i < s->nm; i++)
		cJSON_AddNumberToObject(o, s->m[i].key, s->m[i].value);
	if (dim == D_WALL && s->nm == 0)
		cJSON_AddNullToObject(o, "cv");
	if (dim == D_WALL && s->ncv > 0) {
		cJSON *by = cJSON_AddObjectToObject(o, "cv_by_size");
		for (int i = 0; i < s->ncv; i++) {
			char k[32];
			snprintf(k, sizeof(k), "%ld", s->cv_size[i]);
			cJSON_AddNumberToObject(by, k, s->cv_by_size[i]);
		}
	}
	if (dim == D_SCALING)
		sub_checks_json(s, o);
	if (s->source)
		cJSON_AddStringToObject(o, "source", s->source);
	if (s->note[0])
		cJSON_AddStringToObject(o, "note", s->note);
	if (s->l4_id) {
		cJSON *l4 = cJSON_AddObjectToObject(o, "l4");
		cJSON_AddStringToObject(l4, "id", s->l4_id);
		cJSON_AddNumberToObject(l4, "value", rb_round(s->l4_value, 4));
		cJSON_AddBoolToObject(l4, "fires", s->l4_fires);
	}
	return o;
}

static void add_regressions(cJSON *arr, const struct rb_regressions *g, const char *ref_key)
{
	for (int i = 0; i < g->n; i++) {
		cJSON *r = cJSON_CreateObject();
		cJSON_AddStringToObject(r, "dimension", rb_dim_names[g->r[i].dim]);
		cJSON_AddStringToObject(r, ref_key, rb_tierv_names[g->r[i].ref]);
		cJSON_AddStringToObject(r, "current_tier", rb_tierv_names[g->r[i].cur]);
		cJSON_AddNumberToObject(r, "drop", g->r[i].drop);
		cJSON_AddItemToArray(arr, r);
	}
}

static void add_env(cJSON *doc, const struct rb_env *e)
{
	cJSON *p = cJSON_AddObjectToObject(doc, "prerequisites");
	cJSON_AddBoolToObject(p, "valgrind", e->valgrind);
	cJSON_AddNumberToObject(p, "perf_paranoid", e->perf_paranoid);
	cJSON_AddBoolToObject(p, "hardware_pmu", e->pmu);
	cJSON_AddStringToObject(p, "governor", e->governor);
	cJSON_AddStringToObject(p, "cache_model", XP_CG_MODEL);
	cJSON_AddNumberToObject(p, "ram_mb", (double)e->ram_mb);

	cJSON *v = cJSON_AddObjectToObject(doc, "environment");
	cJSON_AddStringToObject(v, "cpu_model", e->cpu_model);
	cJSON_AddStringToObject(v, "kernel", e->kernel);
	cJSON_AddStringToObject(v, "governor", e->governor);
	cJSON_AddStringToObject(v, "smt", e->smt);
	cJSON_AddNumberToObject(v, "load_avg_1m", rb_round(e->load_avg_1m, 2));
	cJSON_AddStringToObject(v, "timestamp_utc", e->timestamp_utc);
}

/* Each scored run of z in order ({RUN} - 1): wall time, peak RSS, valid counters. */
static void add_runs(cJSON *arr, const struct rb_size *z)
{
	for (int r = 0; r < z->nruns; r++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "wall_s", rb_round(z->wall[r], 6));
		cJSON_AddNumberToObject(o, "peak_rss_bytes", (double)z->rec[r].maxrss_kb * 1024);
		cJSON *vals = cJSON_AddObjectToObject(o, "values");
		for (int c = 0; c < XP_CTR_COUNT; c++)
			if (z->rec[r].mask & (1ull << c))
				cJSON_AddNumberToObject(vals, th_counter_name_table[c].name,
							z->rec[r].value[c]);
		cJSON_AddItemToArray(arr, o);
	}
}

/* wall_time_* by size, per-size counters with their reasons, and the runs. */
static void add_sizes(cJSON *doc, const struct rb_meas *m)
{
	cJSON *med = cJSON_AddObjectToObject(doc, "wall_time_median_by_size");
	cJSON *mean = cJSON_AddObjectToObject(doc, "wall_time_mean_by_size");
	cJSON *ctr = cJSON_AddObjectToObject(doc, "counters_by_size");
	cJSON *runs = cJSON_AddObjectToObject(doc, "runs_by_size");

	for (int i = 0; i < m->nsizes; i++) {
		const struct rb_size *z = &m->size[i];
		char k[32];
		if (z->nruns == 0)
			continue;
		snprintf(k, sizeof(k), "%ld", z->size);
		cJSON_AddNumberToObject(med, k, rb_round(z->wall_median, 6));
		cJSON_AddNumberToObject(mean, k, rb_round(z->wall_mean, 6));
		cJSON *c = cJSON_AddObjectToObject(ctr, k);
		cJSON *vals = cJSON_AddObjectToObject(c, "values");
		cJSON *un = cJSON_AddObjectToObject(c, "unavailable");
		cJSON_AddNumberToObject(c, "peak_rss_bytes", (double)z->maxrss_kb * 1024);
		for (int j = 0; j < XP_CTR_COUNT; j++) {
			if (z->ctr.mask & (1ull << j))
				cJSON_AddNumberToObject(vals, th_counter_name_table[j].name,
							z->ctr.value[j]);
			else
				cJSON_AddStringToObject(un, th_counter_name_table[j].name, z->ctr.why[j]);
		}
		add_runs(cJSON_AddArrayToObject(runs, k), z);
	}
}

static void add_attach(cJSON *doc, const struct rb_opts *o, const struct rb_meas *m)
{
	if (!o->attach)
		return;
	cJSON *a = cJSON_AddObjectToObject(doc, "attach");
	cJSON_AddStringToObject(a, "command", o->attach);
	cJSON_AddNumberToObject(a, "runs", m->attach_runs);
	cJSON_AddNumberToObject(a, "failed", m->attach_failed);
	if (m->attach_failed)
		cJSON_AddStringToObject(a, "first_error", m->attach_error);
}

static void add_fit(cJSON *doc, const struct rb_fit *f)
{
	if (!f->time_source)
		return;
	cJSON *o = cJSON_AddObjectToObject(doc, "complexity_fit");
	cJSON_AddStringToObject(o, "time_source", f->time_source);
	cJSON_AddNumberToObject(o, "k", rb_round(f->k, 3));
	if (!f->ok)
		return;
	cJSON_AddStringToObject(o, "best_class", rb_cx_names[f->best]);
	for (int c = 0; c < XP_CX_COUNT; c++) {
		char k[40];
		snprintf(k, sizeof(k), "slope_vs_%s", rb_cx_names[c]);
		cJSON_AddNumberToObject(o, k, rb_round(f->slope[c], 3));
		snprintf(k, sizeof(k), "residual_%s", rb_cx_names[c]);
		cJSON_AddNumberToObject(o, k, rb_round(f->residual[c], 4));
	}
}

static void add_rubric(cJSON *doc, const struct rb_result *r)
{
	cJSON *rb = cJSON_AddObjectToObject(doc, "rubric");
	cJSON_AddNumberToObject(rb, "total", r->total);
	cJSON_AddNumberToObject(rb, "max_possible", r->max_possible);
	cJSON *dims = cJSON_AddObjectToObject(rb, "dimensions");
	for (int d = 0; d < D_COUNT; d++)
		cJSON_AddItemToObject(dims, rb_dim_names[d], dim_json(&r->dim[d], d));
}

cJSON *rb_summary_json(const struct rb_outcome *oc)
{
	const struct rb_result *r = &oc->r;
	const struct rb_score *sc = &r->dim[D_SCALING];
	cJSON *doc = cJSON_CreateObject();

	if (sc->sub_present[S_EXPONENT])
		cJSON_AddNumberToObject(doc, "complexity_exponent", sc->sub_value[S_EXPONENT]);
	else
		cJSON_AddNullToObject(doc, "complexity_exponent");
	cJSON_AddBoolToObject(doc, "deterministic_tier", r->dim[D_CPU].tier != T_NA);
	cJSON_AddStringToObject(doc, "generated_at", oc->env.generated_at);
	cJSON_AddStringToObject(doc, "root", oc->o->root ? oc->o->root : ".");
	cJSON_AddStringToObject(doc, "tier", rb_tier_names[oc->o->tier]);
	if (oc->o->source_prefix)
		cJSON_AddStringToObject(doc, "source_prefix", oc->o->source_prefix);
	cJSON *sizes = cJSON_AddArrayToObject(doc, "sizes");
	for (int i = 0; i < oc->o->nsizes; i++)
		cJSON_AddItemToArray(sizes, cJSON_CreateNumber((double)oc->o->sizes[i]));
	add_rubric(doc, r);
	add_env(doc, &oc->env);
	add_regressions(cJSON_AddArrayToObject(doc, "baseline_regressions"), &oc->base_regr,
			"baseline_tier");
	cJSON_AddBoolToObject(doc, "regression_blocker", oc->base_regr.n > 0);
	if (r->dim[D_WALL].nm)
		cJSON_AddNumberToObject(doc, "wall_time_cv", r->dim[D_WALL].m[0].value);
	add_sizes(doc, oc->m);
	add_attach(doc, oc->o, oc->m);
	add_fit(doc, &r->fit);
	if (oc->have_pct) {
		cJSON *p = cJSON_AddObjectToObject(doc, "wall_time_percentiles");
		cJSON_AddNumberToObject(p, "p50", oc->p50);
		cJSON_AddNumberToObject(p, "p95", oc->p95);
		cJSON_AddNumberToObject(p, "p99", oc->p99);
	}
	if (oc->m->ms_stage.ran)
		cJSON_AddNumberToObject(doc, "massif_peak_bytes", (double)oc->m->ms.peak_bytes);
	if (oc->m->timing_error[0])
		cJSON_AddStringToObject(doc, "timing_error", oc->m->timing_error);
	if (oc->o->ledger) {
		cJSON *l = cJSON_AddObjectToObject(doc, "ledger_regressions");
		add_regressions(cJSON_AddArrayToObject(l, "vs_last"), &oc->vs_last,
				"previous_tier");
		add_regressions(cJSON_AddArrayToObject(l, "vs_best"), &oc->vs_best, "best_tier");
		cJSON *w = cJSON_AddArrayToObject(l, "warnings");
		for (int i = 0; i < oc->ledger.corrupt && i < 4; i++)
			cJSON_AddItemToArray(w, cJSON_CreateString(oc->ledger.warnings[i]));
	}
	return doc;
}

char *rb_ledger_line(const struct rb_outcome *oc)
{
	cJSON *doc = cJSON_CreateObject();
	cJSON *dims = cJSON_AddObjectToObject(doc, "dimensions");
	/* sort_keys=True in the original: dimension names in byte order. */
	static const int sorted[D_COUNT] = { D_SCALING, D_BRANCH, D_CPU, D_L1,
					     D_LL,	D_MEMORY, D_WALL };

	for (int i = 0; i < D_COUNT; i++)
		cJSON_AddStringToObject(dims, rb_dim_names[sorted[i]],
					rb_tierv_names[oc->r.dim[sorted[i]].tier]);
	cJSON_AddNumberToObject(doc, "rubric_total", oc->r.total);
	cJSON_AddStringToObject(doc, "tier", rb_tier_names[oc->o->tier]);
	cJSON_AddStringToObject(doc, "timestamp_utc", oc->env.generated_at);
	/* A flat mean only exists for a single group of runs, as in the original. */
	if (oc->m->nsizes == 1 && oc->m->size[0].nruns)
		cJSON_AddNumberToObject(doc, "wall_time_mean",
					rb_round(oc->m->size[0].wall_mean, 6));
	else
		cJSON_AddNullToObject(doc, "wall_time_mean");
	if (oc->have_pct)
		cJSON_AddNumberToObject(doc, "wall_time_p50", oc->p50);
	else
		cJSON_AddNullToObject(doc, "wall_time_p50");
	char *s = cJSON_PrintUnformatted(doc);
	cJSON_Delete(doc);
	return s;
}
