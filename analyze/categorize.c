// SPDX-License-Identifier: MIT
/*
 * categorize.c - charge every nanosecond of the flattened timeline to one
 * (domain, category, L3 point), by theory's category formulas applied to the
 * time each span won in normalize.c (its exclusive time E):
 *   waste      E, when a waste mark covers the span (to the mark's L3);
 *   supply     stages flagged supply or named *wait*: E; other compute spans:
 *              E when on_cpu/dur < cpu_ratio_supply, else E x off_cpu/dur,
 *              the run-queue share to compute.supply.runqueue_delay;
 *   effective  productive stage, successful outcome: min(P, units x ref_ns),
 *              P = E - supply; all of P when the stage has no work unit;
 *   processing P - effective, to the stage's home L3.
 * Time no span covers is charged as th_rules.uncovered_stage. Shares of a
 * turn are integer ns and sum to its wall time exactly (asserted).
 */
#include "analyze/model.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cmp.h"

/* Add span s's counters, then its runq and on_cpu (xa_var_name's order), to L3 accumulator a
 * (L4 reads them). */
static void add_vars(struct xa_l3 *a, const struct xa_span *s)
{
	const struct tt_counters *k = s->sp.ctr ? s->sp.ctr : &(struct tt_counters){ .have = 0 };
	uint32_t have = 0;

	for (size_t i = 0; i < th_counter_name_count && i < TT_COUNTERS_MAX; i++) {
		if (k->have & (1u << i)) {
			a->var[i] += (double)k->val[i];
			have |= 1u << i;
		}
		if (k->unavail & (1u << i)) {
			a->var_unavail |= 1u << i;
			if (!a->why[0] && k->why[i])
				snprintf(a->why, sizeof(a->why), "%s", k->why[i]);
		}
	}
	if (s->has_sched) {
		a->var[th_counter_name_count] += (double)s->sp.runq_ns;
		a->var[th_counter_name_count + 1] += (double)s->sp.on_cpu_ns;
		have |= 3u << th_counter_name_count;
	}
	a->var_have = a->nspans++ ? a->var_have & have : have;
}

static void charge(struct xa_turn *t, const struct xa_span *s, enum th_domain d,
		   enum th_category c, const char *l3id, uint64_t ns)
{
	int i = xa_l3_index(l3id);
	const struct th_l2 *l2 = th_l2_of(d, c);

	if (!ns)
		return;
	t->cat_ns[c] += ns;
	t->l2_ns[d][c] += ns;
	/* An L3 is charged only under its own L2; otherwise the time stays on the L2. */
	if (i < 0 || !l2 || xa_l3_parent((size_t)i) != l2)
		return;
	t->l3[i].ns += ns;
	if (s)
		add_vars(&t->l3[i], s);
}

static int succeeded(const struct xa_span *s)
{
	return !s->sp.waste_l3 && !s->sp.ex.finish_length && !tt_ex_failed(&s->sp.ex, NULL, 0);
}

/* Work units of s for its stage's work attribute; the turn's LLM totals when absent. */
static int work_units(const struct xa_span *s, const double *turn_tok, double *units)
{
	for (int a = 0; a < TT_EX_NUM_COUNT; a++) {
		if (strcmp(tt_exchange_num_names[a], s->sp.st->work_attr))
			continue;
		if (tt_ex_has(&s->sp.ex, a)) {
			*units = s->sp.ex.num[a];
			return 0;
		}
		if (a <= TT_EX_OUTPUT_TOKENS && turn_tok[a] > 0) {
			*units = turn_tok[a];
			return 0;
		}
	}
	return -1;
}

static uint64_t scale(uint64_t x, uint64_t num, uint64_t den)
{
	return den ? (uint64_t)((unsigned __int128)x * num / den) : 0;
}

static void split(struct xa_turn *t, const struct xa_span *s, const double *turn_tok)
{
	const struct th_stage *st = s->sp.st;
	uint64_t e = s->excl, dur = s->sp.end_ns - s->sp.start_ns, supply = 0, runq = 0, eff = 0, p;
	double units;

	if (s->sp.waste_l3) {
		const struct th_l2 *l2 = xa_l3_parent((size_t)xa_l3_index(s->sp.waste_l3));

		charge(t, s, l2->domain, XP_CAT_WASTE, s->sp.waste_l3, e);
		return;
	}
	if (th_supply_stage(s->sp.st, s->sp.stage, s->domain)) {
		supply = e;
	} else if (s->domain == XP_DOMAIN_COMPUTE && s->has_sched && dur) {
		uint64_t on = s->sp.on_cpu_ns < dur ? s->sp.on_cpu_ns : dur;

		if ((double)on / (double)dur < th_rules.cpu_ratio_supply)
			supply = e;
		else
			supply = scale(e, dur - on, dur);
		runq = scale(supply, s->sp.runq_ns, s->sp.runq_ns + s->sp.blocked_ns);
	} else if (s->domain == XP_DOMAIN_COMPUTE && s->sp.category == XP_CAT_SUPPLY) {
		supply = e;
	}
	charge(t, s, s->domain, XP_CAT_SUPPLY, "compute.supply.runqueue_delay", runq);
	charge(t, s, s->domain, XP_CAT_SUPPLY, st ? st->supply_l3 : NULL, supply - runq);
	p = e - supply;
	if (st && st->effective && succeeded(s)) {
		if (!st->work_attr)
			eff = p;
		else if (!work_units(s, turn_tok, &units) && units > 0)
			eff = units * st->ref_ns_per_unit >= (double)p
				      ? p : (uint64_t)(units * st->ref_ns_per_unit);
		int ei = xa_l3_index(st->effective_l3);

		if (ei >= 0)
			t->l3[ei].base_ns += e;
	}
	charge(t, s, s->domain, XP_CAT_EFFECTIVE, st ? st->effective_l3 : NULL, eff);
	charge(t, s, s->domain, XP_CAT_PROCESSING, st ? st->l3_home : th_rules.unknown_stage_l3,
	       p - eff);
}

/* The category that grew most between two snapshots of cat_ns. */
static enum th_category dominant(const uint64_t *before, const uint64_t *after)
{
	enum th_category best = XP_CAT_PROCESSING;
	uint64_t most = 0;

	for (int c = 0; c < XP_CAT_COUNT; c++) {
		if (after[c] - before[c] > most) {
			most = after[c] - before[c];
			best = (enum th_category)c;
		}
	}
	return best;
}

/* Every token arrival of the turn's LLM calls, sorted. 0 ok, -1 memory. */
static int token_arrivals(const struct xa_trace *tr, struct xa_turn *t)
{
	size_t n = 0;

	for (size_t i = 0; i < tr->nspans; i++)
		n += tr->spans[i].sp.ex.ntokens;
	if (!(t->tok_ns = malloc((n + 1) * sizeof(*t->tok_ns))))
		return -1;
	for (size_t i = 0; i < tr->nspans; i++)
		for (size_t k = 0; k < tr->spans[i].sp.ex.ntokens; k++)
			t->tok_ns[t->ntok++] = tr->spans[i].sp.ex.token_ns[k];
	qsort(t->tok_ns, t->ntok, sizeof(*t->tok_ns), xp_cmp_u64);
	return 0;
}

/* "tool NAME (pid N)", at most 47 bytes of the name: the tool process whose span (span or its
 * nearest ancestor) holds a segment. */
static void tool_track(const struct xa_trace *tr, int span, char *out, size_t len)
{
	for (; span >= 0; span = tr->spans[span].sp.parent_ix) {
		const char *tool = tr->spans[span].sp.ex.str[TT_EX_TOOL];

		if (tool && *tool)
			return (void)snprintf(out, len, "tool %.47s (pid %lld)", tool,
					      (long long)tr->spans[span].sp.tid);
	}
}

static int timeline(const struct xa_trace *tr, struct xa_turn *t, const enum th_category *cat)
{
	const struct th_stage *un = th_stage_find(th_rules.uncovered_stage);

	t->segs = calloc(tr->nsegs + 1, sizeof(*t->segs));
	t->seg_stage = calloc(tr->nsegs + 1, sizeof(*t->seg_stage));
	t->seg_waste = calloc(tr->nsegs + 1, sizeof(*t->seg_waste));
	t->seg_tool = calloc(tr->nsegs + 1, sizeof(*t->seg_tool));
	if (!t->segs || !t->seg_stage || !t->seg_waste || !t->seg_tool || token_arrivals(tr, t))
		return -1;
	for (size_t k = 0; k < tr->nsegs; k++) {
		const struct xa_seg *g = &tr->segs[k];
		const struct xa_span *s = g->span >= 0 ? &tr->spans[g->span] : NULL;

		t->segs[k] = *g;
		t->segs[k].domain = s ? s->domain : un->domain;
		t->segs[k].category = s ? cat[g->span] : XP_CAT_PROCESSING;
		snprintf(t->seg_stage[k], sizeof(t->seg_stage[k]), "%s",
			 s ? s->sp.stage : th_rules.uncovered_stage);
		t->seg_waste[k] = s ? s->sp.waste_l3 : NULL;
		tool_track(tr, g->span, t->seg_tool[k], sizeof(t->seg_tool[k]));
	}
	t->nsegs = tr->nsegs;
	return 0;
}

int xa_categorize(const struct xa_trace *tr, struct xa_turn *t)
{
	const struct th_stage *un = th_stage_find(th_rules.uncovered_stage);
	double turn_tok[2] = { 0, 0 };
	uint64_t uncovered = 0, sum = 0;
	enum th_category *cat = calloc(tr->nspans + 1, sizeof(*cat));
	int rc;

	if (!cat || !un)
		return free(cat), -1;
	for (size_t i = 0; i < tr->nspans; i++)
		for (int a = TT_EX_INPUT_TOKENS; a <= TT_EX_OUTPUT_TOKENS; a++)
			if (tr->spans[i].domain == XP_DOMAIN_INTELLIGENT &&
			    tt_ex_has(&tr->spans[i].sp.ex, a))
				turn_tok[a] += tr->spans[i].sp.ex.num[a];
	for (size_t i = 0; i < tr->nspans; i++) {
		uint64_t before[XP_CAT_COUNT];

		memcpy(before, t->cat_ns, sizeof(before));
		split(t, &tr->spans[i], turn_tok);
		cat[i] = dominant(before, t->cat_ns);
	}
	for (size_t k = 0; k < tr->nsegs; k++)
		if (tr->segs[k].span < 0)
			uncovered += tr->segs[k].end - tr->segs[k].start;
	charge(t, NULL, un->domain, XP_CAT_PROCESSING, un->l3_home, uncovered);
	if (uncovered)
		xa_note(t, "%.3f ms covered by no span, charged to %s", uncovered / 1e6,
			th_rules.uncovered_stage);
	for (int c = 0; c < XP_CAT_COUNT; c++)
		sum += t->cat_ns[c];
	/* Exclusive attribution: the categories cover the wall time exactly. */
	assert(sum == t->wall);
	rc = sum == t->wall ? timeline(tr, t, cat) : -1;
	free(cat);
	return rc;
}
