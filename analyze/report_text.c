// SPDX-License-Identifier: MIT
/*
 * report_text.c - the report for an 80-column terminal: shares with bars,
 * the drill-down (every point of a drilled L2 with its evidence; fired ones
 * with their suggestion and L4 causes), a timeline strip, and for sessions
 * the trends, the slowest turns and a per-turn table. No line exceeds 80
 * columns (ASCII only); long texts are wrapped.
 */
#include "analyze/report.h"

#include <string.h>

#include "lib/plural.h"

#define WIDTH 80
#define BAR 20
#define STRIP 64
#define MAX_ROWS 30

static const char cat_letter[XP_CAT_COUNT] = { 'S', 'P', 'W', 'E' };

static void bar(FILE *out, double share)
{
	int n = (int)(share * BAR + 0.5);

	fputc('[', out);
	for (int i = 0; i < BAR; i++)
		fputc(i < n ? '#' : '.', out);
	fputc(']', out);
}

/* Print text wrapped to WIDTH, each line starting with indent spaces (the first after lead). */
static void wrap(FILE *out, const char *lead, int indent, const char *text)
{
	int col = fprintf(out, "%*s%s", indent - (int)strlen(lead), "", lead);
	const char *p = text;

	while (*p) {
		size_t w = strcspn(p, " ");

		if (col + 1 + (int)w > WIDTH && col > indent)
			col = fprintf(out, "\n%*s", indent, "") - 1;
		else if (col > indent)
			col += fprintf(out, " ");
		if ((int)w > WIDTH - indent)
			w = (size_t)(WIDTH - indent);
		col += fprintf(out, "%.*s", (int)w, p);
		p += w;
		while (*p == ' ')
			p++;
	}
	fputc('\n', out);
}

static void node_line(FILE *out, const char *label, uint64_t ns, uint64_t wall, int drilled)
{
	double sh = xa_share(ns, wall);

	fprintf(out, "  %-24.24s ", label);
	bar(out, sh);
	fprintf(out, " %5.1f%% %12.3f ms %s\n", 100 * sh, ns / 1e6, drilled ? "v" : "");
}

static void l4_lines(const struct xa_view *v, size_t i, FILE *out)
{
	for (size_t k = 0; k < th_l4_count; k++) {
		char why[160], line[240];
		double val;
		enum xa_state st = xa_l4_eval(v->t, i, &th_l4_table[k], &val, why, sizeof(why));

		if (st == XA_NOT_MEASURED)
			snprintf(line, sizeof(line), "%s: not measured: %s", th_l4_table[k].id,
				 why);
		else
			snprintf(line, sizeof(line), "%s: %.3g %s (%s %g) %s", th_l4_table[k].id,
				 val, th_l4_table[k].unit,
				 th_l4_table[k].cmp == XP_FIRE_ABOVE ? ">" : "<",
				 th_l4_table[k].threshold, st == XA_FIRED ? "FIRED" : "ok");
		wrap(out, "L4 ", 13, line);
		if (st == XA_FIRED)
			wrap(out, "", 13, th_l4_table[k].suggestion);
	}
}

static void point(const struct xa_view *v, size_t i, FILE *out)
{
	const struct th_l3 *p = &th_l3_table[i];
	const struct xa_l3 *a = &v->t->l3[i];
	char line[320];

	fprintf(out, "  %-6s %.60s [%s]\n",
		a->state == XA_FIRED ? "FIRED" : xa_state_name(a->state), p->id,
		th_grade_names[p->grade]);
	if (a->state == XA_NOT_MEASURED) {
		wrap(out, "", 9, a->note);
		return;
	}
	if (v->s)
		snprintf(line, sizeof(line), "%s: worst %.4g %s in turn %lld (fires %s %g); fired "
			 "in %u of %u turn%s; %.3f ms, %.1f%% of the session", p->metric, a->value,
			 p->unit, (long long)v->s->worst_turn[i],
			 p->cmp == XP_FIRE_ABOVE ? "above" : "below", p->threshold, v->s->fired[i],
			 v->s->turns, xp_s(v->s->turns), a->ns / 1e6,
			 100 * xa_share(a->ns, v->t->wall));
	else
		snprintf(line, sizeof(line),
			 "%s: %.4g %s (fires %s %g); %.3f ms, %.1f%% of the turn", p->metric,
			 a->value, p->unit, p->cmp == XP_FIRE_ABOVE ? "above" : "below",
			 p->threshold, a->ns / 1e6, 100 * xa_share(a->ns, v->t->wall));
	wrap(out, "", 9, line);
	if (a->state != XA_FIRED)
		return;
	wrap(out, "fix: ", 9, p->suggestion);
	snprintf(line, sizeof(line), "fixing it saves up to %.3f ms (%.1f%% of the %s)",
		 a->saved_ns / 1e6, 100 * xa_share(a->saved_ns, v->t->wall),
		 v->s ? "session" : "turn");
	wrap(out, "", 9, line);
	if (xa_l4_shown(v, i))
		l4_lines(v, i, out);
}

static void tree(const struct xa_view *v, FILE *out)
{
	size_t hidden = 0;

	fprintf(out, "\nL1 categories (v: above the %.0f%% threshold, drilled)\n",
		100 * v->o->threshold);
	for (int c = 0; c < XP_CAT_COUNT; c++)
		node_line(out, th_categories[c].name, v->t->cat_ns[c], v->t->wall,
			  xa_l1_drilled(v, (enum th_category)c));
	if (v->o->depth < 2)
		return;
	fprintf(out, "\nL2 domain x category\n");
	for (size_t k = 0; k < th_l2_count; k++)
		node_line(out, th_l2_table[k].id,
			  v->t->l2_ns[th_l2_table[k].domain][th_l2_table[k].category], v->t->wall,
			  xa_l2_drilled(v, &th_l2_table[k]));
	if (v->o->depth < 3)
		return;
	fprintf(out, "\nL3 points under drilled nodes\n");
	for (size_t i = 0; i < th_l3_count; i++) {
		if (!xa_l3_shown(v, i))
			continue;
		if (v->t->l3[i].state == XA_NOT_DRILLED ||
		    !xa_l2_drilled(v, xa_l3_parent(i)))
			hidden++;
		else
			point(v, i, out);
	}
	fprintf(out, "  (%zu point%s under nodes below the threshold not examined)\n", hidden,
		xp_s(hidden));
}

/* Fired points ranked by what fixing them saves (analyze/README.md, "Savings"). */
static void savings(const struct xa_view *v, FILE *out)
{
	size_t idx[XA_MAX_L3], n = xa_savings_ranked(v, idx);

	if (v->o->depth < 3 || !n)
		return;
	fprintf(out, "\nSavings if fixed (to the threshold; an upper bound)\n");
	for (size_t k = 0; k < n; k++) {
		const struct xa_l3 *a = &v->t->l3[idx[k]];

		fprintf(out, "  %-48.48s %11.3f ms %5.1f%%\n", th_l3_table[idx[k]].id,
			a->saved_ns / 1e6, 100 * xa_share(a->saved_ns, v->t->wall));
	}
}

/* Tokens by category, cost and waste (analyze/README.md, "Tokens and cost"). */
static void tokens(const struct xa_view *v, FILE *out)
{
	const struct xa_usage *u = &v->t->use, *w = &v->t->waste;
	const struct xa_prices *p = xa_view_prices(v);

	fprintf(out, "\nTokens and cost (prices: %.40s, %s)\n", xa_prices_source(p),
		xa_prices_date(p));
	fprintf(out, "  input %.0f  output %.0f  cache read %.0f  cache write %.0f  "
		     "reasoning %.0f\n", u->tok[XA_TOK_INPUT], u->tok[XA_TOK_OUTPUT],
		u->tok[XA_TOK_CACHE_READ], u->tok[XA_TOK_CACHE_WRITE], u->tok[XA_TOK_REASONING]);
	fprintf(out, "  cost $%.6f over %u LLM call%s", u->usd, u->calls, xp_s(u->calls));
	if (u->unpriced)
		fprintf(out, " (%u unpriced: %.24s)", u->unpriced, v->t->unpriced_model);
	fprintf(out, "\n  waste: %.0f tokens, $%.6f, in %u call%s\n", xa_usage_tokens(w), w->usd, w->calls,
		xp_s(w->calls));
	if (!v->s && v->t->ncalls) /* a turn: each call (W: some of its tokens were waste) */
		fprintf(out, "  span   model                 input output c.read c.write  reas."
			     "       cost\n");
	for (size_t i = 0; !v->s && i < v->t->ncalls; i++) {
		const struct xa_call *c = &v->t->calls[i];
		char cost[16];

		snprintf(cost, sizeof(cost), c->use.unpriced ? "unpriced" : "$%.6f", c->use.usd);
		fprintf(out, "  %-6lld %-20.20s %6.0f %6.0f %6.0f %7.0f %6.0f %10s%s\n",
			(long long)c->span, c->model[0] ? c->model : "-", c->use.tok[XA_TOK_INPUT],
			c->use.tok[XA_TOK_OUTPUT], c->use.tok[XA_TOK_CACHE_READ],
			c->use.tok[XA_TOK_CACHE_WRITE], c->use.tok[XA_TOK_REASONING], cost,
			c->waste_l3 ? " W" : "");
	}
}

static void strip(const struct xa_turn *t, FILE *out)
{
	char cats[STRIP + 1] = "", doms[STRIP + 1] = "";
	size_t k = 0;

	for (int b = 0; b < STRIP && t->nsegs && t->wall; b++) {
		uint64_t at = t->start + (uint64_t)((b + 0.5) * (double)t->wall / STRIP);

		while (k + 1 < t->nsegs && t->segs[k].end <= at)
			k++;
		cats[b] = cat_letter[t->segs[k].category];
		doms[b] = (char)(th_domains[t->segs[k].domain].key[0] - 32);
		cats[b + 1] = doms[b + 1] = '\0';
	}
	fprintf(out, "\nTimeline (S supply, P processing, W waste, E effective;\n"
		     "          C compute, I intelligent, F fused)\n");
	fprintf(out, "  cat |%s|\n  dom |%s|\n", cats, doms);
}

static void notes(const struct xa_turn *t, FILE *out)
{
	for (size_t i = 0; i < t->ncorr; i++)
		fprintf(out, "  correction: span %lld (%.30s) declared %s, charged to %s\n",
			(long long)t->corr[i].span_id, t->corr[i].stage,
			th_domains[t->corr[i].declared].key, th_domains[t->corr[i].corrected].key);
	for (unsigned i = 0; i < t->nnotes; i++)
		wrap(out, "note: ", 8, t->notes[i]);
}

static void session_part(const struct xa_session *s, FILE *out)
{
	struct xa_row r;

	fprintf(out, "\nTrends\n  TTFT drift %+.3f ms/turn over %.0f turns\n",
		xa_slope(&s->ttft), s->ttft.n);
	fprintf(out, "  input tokens %.0f -> %.0f (%+.1f/turn, max growth %+.1f%%)\n",
		s->tok_first, s->tok_last, xa_slope(&s->tok), 100 * s->growth_max);
	fprintf(out, "\nSlowest turns\n");
	for (unsigned i = 0; i < s->nslow; i++)
		fprintf(out, "  turn %-6lld %12.3f ms  %.50s\n", (long long)s->slow[i].turn_index,
			s->slow[i].wall / 1e6,
			s->slow[i].top_l3 >= 0 ? th_l3_table[s->slow[i].top_l3].id : "-");
	fprintf(out, "\nTurns   wall (ms)  supply  proc.  waste  eff.  fired  top point\n");
	for (size_t i = 0; i < s->turns && i < MAX_ROWS && !xa_session_row(s, i, &r); i++) {
		fprintf(out, "%5lld %11.1f", (long long)r.turn_index, r.wall / 1e6);
		for (int c = 0; c < XP_CAT_COUNT; c++)
			fprintf(out, " %5.1f%%", 100 * xa_share(r.cat_ns[c], r.wall));
		fprintf(out, " %5u  %.26s\n", r.nfired,
			r.top_l3 >= 0 ? th_l3_table[r.top_l3].id : "-");
	}
	if (s->turns > MAX_ROWS)
		fprintf(out, "  ... %u more turns in the JSON report\n", s->turns - MAX_ROWS);
	for (unsigned i = 0; i < s->skipped && i < XA_SKIP_SHOWN; i++)
		wrap(out, "skipped: ", 11, s->skip_msg[i]);
}

int xa_report_text(const struct xa_view *v, FILE *out)
{
	const struct xa_turn *t = v->t;
	char grades[8] = "";

	for (int i = 0; i < XP_GRADE_COUNT; i++)
		if (v->o->grades & (1u << i))
			strcat(strcat(grades, grades[0] ? "," : ""), th_grade_names[i]);
	if (v->s)
		fprintf(out, "xperf analyze session: %u turn%s (%u skipped, %u incomplete)\n",
			v->s->turns, xp_s(v->s->turns), v->s->skipped, v->s->incomplete);
	else
		fprintf(out, "xperf analyze turn %lld of session %.40s\n",
			(long long)t->head.turn_index, t->head.session_id);
	fprintf(out, "wall %.3f ms; tier %s; dropped events %llu; warnings %u\n", t->wall / 1e6,
		v->s ? v->s->tier : t->head.tier,
		(unsigned long long)(v->s ? v->s->dropped : t->dropped_events),
		v->s ? v->s->warnings : t->warnings + t->nnotes);
	fprintf(out, "depth L%d; threshold %.0f%%; measurability %s\n", v->o->depth,
		100 * v->o->threshold, grades);
	tree(v, out);
	savings(v, out);
	tokens(v, out);
	if (v->s) {
		session_part(v->s, out);
		return 0;
	}
	strip(t, out);
	notes(t, out);
	return 0;
}

int xa_print_summary(const struct xa_session *s, FILE *out)
{
	struct xa_summary sum;

	xa_session_summary(s, &sum);
	fprintf(out, "%u turn%s analysed (%u skipped), %.3f s in all\n", sum.turns,
		xp_s(sum.turns), sum.skipped, sum.wall_ns / 1e9);
	for (int c = 0; c < XP_CAT_COUNT; c++)
		fprintf(out, "  %-17s %5.1f%%\n", th_categories[c].name, 100 * sum.l1_share[c]);
	for (int k = 0; k < 3 && sum.top[k].l3; k++) {
		char line[200];

		snprintf(line, sizeof(line), "%s: fired in %u turn%s, worst %.4g %s",
			 sum.top[k].l3->id, sum.top[k].turns_fired, xp_s(sum.top[k].turns_fired),
			 sum.top[k].value,
			 sum.top[k].l3->unit);
		wrap(out, "* ", 4, line);
		wrap(out, "", 4, sum.top[k].l3->suggestion);
		snprintf(line, sizeof(line), "fixing it saves up to %.3f ms (%.1f%% of the session)",
			 sum.top[k].saved_ns / 1e6, 100 * xa_share(sum.top[k].saved_ns, sum.wall_ns));
		wrap(out, "", 4, line);
	}
	fprintf(out, "tokens %.0f in / %.0f out, %u call%s: $%.4f (%u unpriced), waste $%.4f\n",
		sum.use.tok[XA_TOK_INPUT], sum.use.tok[XA_TOK_OUTPUT], sum.use.calls,
		xp_s(sum.use.calls), sum.use.usd, sum.use.unpriced, sum.waste.usd);
	fprintf(out, "data quality: tier %s, %llu dropped event%s, %u warning%s, %u correction%s\n",
		sum.tier, (unsigned long long)sum.dropped_events, xp_s(sum.dropped_events),
		sum.warnings, xp_s(sum.warnings), sum.corrections, xp_s(sum.corrections));
	return ferror(out) ? -1 : 0;
}
