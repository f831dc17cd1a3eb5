/* SPDX-License-Identifier: MIT */
/*
 * report.c - benchmark_report.md, in the original's section order, plus
 * what it lacked: the environment fingerprint in the header, the reason of
 * every N/A, the ledger comparison, the interpretation band.
 */
#include "rubric/report.h"

#include <stdio.h>
#include <string.h>

#include "rubric/findings.h"
#include "rubric/score.h"
#include "rubric/valgrind.h"

static void header(FILE *f, const struct rb_outcome *oc)
{
	const struct rb_env *e = &oc->env;

	fprintf(f, "# Performance Benchmark Report\n\n**Generated**: %s\n", e->generated_human);
	fprintf(f, "**Root**: `%s`\n**Tier**: %s\n", oc->o->root ? oc->o->root : ".",
		rb_tier_names[oc->o->tier]);
	if (oc->o->nsizes) {
		fprintf(f, "**Sizes**: [");
		for (int i = 0; i < oc->o->nsizes; i++)
			fprintf(f, "%s%ld", i ? ", " : "", oc->o->sizes[i]);
		fprintf(f, "]\n");
	}
	fprintf(f, "**Environment**: %s, kernel %s, governor %s, SMT %s, load %.2f\n\n",
		e->cpu_model, e->kernel, e->governor, e->smt, e->load_avg_1m);
	fprintf(f, "## Prerequisites\n\n- Valgrind: %s\n", e->valgrind ? "found" : "not found");
	fprintf(f, "- perf_event_paranoid: %d\n- Hardware PMU: %s\n", e->perf_paranoid,
		e->pmu ? "present" : "absent (hardware counters N/A; cachegrind simulates caches)");
	fprintf(f, "- CPU governor: %s (%s)\n- RAM: %ldMB\n", e->governor,
		strcmp(e->governor, "performance")
			? "WARNING, set to performance for stable results"
			: "OK",
		e->ram_mb);
	fprintf(f, "- Cache model: %s\n", XP_CG_MODEL);
	if (oc->m->timing_error[0])
		fprintf(f, "- **Timing stopped**: %s\n", oc->m->timing_error);
	if (oc->o->attach)
		fprintf(f, "- Attached to each scored run: `%s` (%d runs, %d failed%s%s)\n",
			oc->o->attach, oc->m->attach_runs, oc->m->attach_failed,
			oc->m->attach_failed ? "; first: " : "", oc->m->attach_error);
	fputc('\n', f);
}

static void scaling(FILE *f, const struct rb_outcome *oc)
{
	const struct rb_score *s = &oc->r.dim[D_SCALING];

	fprintf(f, "## Algorithmic Scaling Analysis\n\n");
	if (s->tier == T_NA)
		fprintf(f, "*%s.*\n\n| Available ", s->note);
	else
		fprintf(f, "**Result: %s** (score: %d/4)\n\n| ", rb_tierv_names[s->tier], s->score);
	fprintf(f, "Sub-check | Value | Tier |\n|---|---|---|\n");
	for (int i = 0; i < S_COUNT; i++)
		if (s->sub_present[i])
			fprintf(f, "| %s | %g | %s |\n", rb_sub_names[i], s->sub_value[i],
				rb_tierv_names[s->sub_tier[i]]);
	if (s->tier == T_NA) {
		fprintf(f, "\nMissing sub-checks:\n");
		for (int i = 0; i < S_COUNT; i++)
			if (!s->sub_present[i])
				fprintf(f, "- %s\n", rb_sub_names[i]);
		if (!s->sub_present[S_EXPONENT])
			fprintf(f, "\n*Add at least two real input sizes via `--sizes`, and ensure "
				   "explicit `--target` commands use `{SIZE}`.*\n");
	}
	if (oc->r.fit.ok)
		fprintf(f,
			"\nBest-fit growth class on %s time: **%s** (relative residual of "
			"t = a + b f(n): linear %.4f, nlogn %.4f, quadratic %.4f)\n",
			oc->r.fit.time_source, rb_cx_names[oc->r.fit.best],
			oc->r.fit.residual[XP_CX_LINEAR], oc->r.fit.residual[XP_CX_NLOGN],
			oc->r.fit.residual[XP_CX_QUADRATIC]);
	if (s->tier == T_FAIL)
		fprintf(f, "\n> **STOP**: Fix algorithmic scaling before hardware-level "
			   "optimization.\n"
			   "> Expected impact: 10-1000x improvement.\n"
			   "> Hardware optimizations (cache, branch, ASM) are irrelevant until "
			   "this is "
			   "resolved.\n");
	fputc('\n', f);
}

static void regressions(FILE *f, const char *title, const struct rb_regressions *g)
{
	if (g->n == 0) {
		fprintf(f, "%s: no scored dimension regressed.\n\n", title);
		return;
	}
	fprintf(f, "%s:\n\n| Dimension | Reference | Current | Tier Drop |\n|---|---|---|---|\n",
		title);
	for (int i = 0; i < g->n; i++)
		fprintf(f, "| %s | %s | %s | %d |\n", rb_dim_names[g->r[i].dim],
			rb_tierv_names[g->r[i].ref], rb_tierv_names[g->r[i].cur],
			g->r[i].drop);
	fputc('\n', f);
}

static void comparisons(FILE *f, const struct rb_outcome *oc)
{
	if (oc->o->baseline) {
		fprintf(f, "## Baseline Comparison\n\n**Baseline**: `%s`\n\n", oc->o->baseline);
		if (oc->base_regr.n)
			fprintf(f,
				"> **Regression blocker**: one or more scored dimensions dropped "
				"versus the baseline.\n\n");
		regressions(f, "Against the baseline", &oc->base_regr);
	}
	if (oc->o->ledger) {
		fprintf(f, "## Ledger Comparison\n\n**Ledger**: `%s` (%d earlier runs)\n\n",
			oc->o->ledger, oc->ledger.entries);
		regressions(f, "Against the last run", &oc->vs_last);
		regressions(f, "Against the best run", &oc->vs_best);
		for (int i = 0; i < oc->ledger.corrupt && i < 4; i++)
			fprintf(f, "- warning: %s\n", oc->ledger.warnings[i]);
	}
}

/* The rubric's interpretation bands, scaled from /28 to the scored maximum. */
static const char *band(int total, int max)
{
	if (max == 0)
		return "No dimension could be scored";
	if (total * 28 >= 22 * max)
		return "Strong performance profile";
	if (total * 28 >= 15 * max)
		return "Workable baseline, targeted improvements recommended";
	return "High risk, algorithmic or structural issues likely";
}

static void scorecard(FILE *f, const struct rb_outcome *oc)
{
	const struct rb_result *r = &oc->r;

	fprintf(f, "## Rubric Scorecard\n\n**Total: %d/%d** (%s)\n\n", r->total, r->max_possible,
		band(r->total, r->max_possible));
	fprintf(f, "| # | Dimension | Score | Tier | Source | Note |\n|---|---|---|---|---|---|\n");
	for (int d = 0; d < D_COUNT; d++) {
		const struct rb_score *s = &r->dim[d];
		char score[8];
		snprintf(score, sizeof(score), s->score >= 0 ? "%d/4" : "-", s->score);
		fprintf(f, "| %d | %s | %s | %s | %s | %s |\n", d, rb_dim_names[d], score,
			rb_tierv_names[s->tier], s->source ? s->source : "", s->note);
	}
	fputc('\n', f);
}

static void findings(FILE *f, const struct rb_outcome *oc)
{
	const enum rb_tierv order[2] = { T_FAIL, T_WARN };

	fprintf(f, "## Findings\n\n");
	for (int k = 0; k < 2; k++) {
		for (int d = 0; d < D_COUNT; d++) {
			const struct rb_score *s = &oc->r.dim[d];
			if (s->tier != order[k])
				continue;
			fprintf(f, "### [%s] %s\n", rb_tierv_names[s->tier], rb_dim_names[d]);
			for (int i = 0; i < s->nm; i++)
				fprintf(f, "- **%s**: %g\n", s->m[i].key, s->m[i].value);
			for (int i = 0; d == D_SCALING && i < S_COUNT; i++)
				if (s->sub_present[i] && s->sub_tier[i] != T_PASS)
					fprintf(f, "- **%s**: %g (%s)\n", rb_sub_names[i],
						s->sub_value[i], rb_tierv_names[s->sub_tier[i]]);
			if (s->l4_id)
				fprintf(f, "- **L4 %s**: %g (%s)\n", s->l4_id, s->l4_value,
					s->l4_fires ? "fires" : "does not fire");
			fputc('\n', f);
		}
	}
	fprintf(f, "## Prescriptions\n\n*Priority order: Algorithmic > Data Layout > Execution > "
		   "Micro*\n\n");
	for (int d = 0; d < D_COUNT; d++)
		if (oc->r.dim[d].tier == T_FAIL || oc->r.dim[d].tier == T_WARN)
			fprintf(f, "- **%s**: %s\n", rb_dim_names[d], rb_prescriptions[d]);
	fputc('\n', f);
}

int rb_report_md(const struct rb_outcome *oc, char **buf, size_t *len)
{
	FILE *f = open_memstream(buf, len);

	if (!f)
		return -1;
	header(f, oc);
	scaling(f, oc);
	comparisons(f, oc);
	scorecard(f, oc);
	findings(f, oc);
	if (oc->m->asm_stage.ran)
		fprintf(f, "## ASM Audit\n\nDisassembly (not scored): `%s`\n\n",
			oc->m->asm_stage.artifact);
	fprintf(f,
		"## Cache Model\n\nValgrind cachegrind simulates a 2-level cache (L1 -> LL). No "
		"separate L2 simulation.\nSimulated: %s (fixed geometry, so that miss rates "
		"compare across machines).\n",
		XP_CG_MODEL);
	return fclose(f) ? -1 : 0;
}
