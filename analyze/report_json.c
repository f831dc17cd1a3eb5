// SPDX-License-Identifier: MIT
/*
 * report_json.c - the JSON report (layout: analyze/README.md, schema:
 * analyze/report.schema.json). Every value is produced by cJSON. A session's
 * per-turn table is streamed row by row (each row printed by cJSON, only the
 * array's separators written here) so that a report of 100,000 turns needs no
 * more memory than one of ten.
 */
#include "analyze/report.h"
#include "lib/json_int.h"

#include <stdlib.h>
#include <string.h>

static cJSON *options_json(const struct xa_options *o)
{
	cJSON *j = cJSON_CreateObject(), *g = cJSON_AddArrayToObject(j, "measurability");

	cJSON_AddNumberToObject(j, "depth", o->depth);
	cJSON_AddNumberToObject(j, "threshold", o->threshold);
	for (int i = 0; i < XP_GRADE_COUNT; i++)
		if (o->grades & (1u << i))
			cJSON_AddItemToArray(g, cJSON_CreateString(th_grade_names[i]));
	return j;
}

static void add_node(cJSON *arr, const char *id, const char *name, uint64_t ns, uint64_t wall,
		     int drilled)
{
	cJSON *n = xp_json_item(arr);

	cJSON_AddStringToObject(n, "id", id);
	cJSON_AddStringToObject(n, "name", name);
	xp_json_add_u64(n, "ns", ns);
	cJSON_AddNumberToObject(n, "share", xa_share(ns, wall));
	cJSON_AddBoolToObject(n, "drilled", drilled);
}

static cJSON *l4_json(const struct xa_view *v, size_t i)
{
	cJSON *arr = cJSON_CreateArray();

	for (size_t k = 0; k < th_l4_count; k++) {
		const struct th_l4 *c = &th_l4_table[k];
		cJSON *n = xp_json_item(arr);
		char why[160];
		double val;
		enum xa_state st = xa_l4_eval(v->t, i, c, &val, why, sizeof(why));

		cJSON_AddStringToObject(n, "id", c->id);
		cJSON_AddStringToObject(n, "name", c->name);
		cJSON_AddStringToObject(n, "state", xa_state_name(st));
		cJSON_AddStringToObject(n, "formula", c->formula);
		cJSON_AddNumberToObject(n, "threshold", c->threshold);
		cJSON_AddStringToObject(n, "unit", c->unit);
		if (st == XA_NOT_MEASURED)
			cJSON_AddStringToObject(n, "note", why);
		else
			cJSON_AddNumberToObject(n, "value", val);
		if (st == XA_FIRED)
			cJSON_AddStringToObject(n, "suggestion", c->suggestion);
	}
	return arr;
}

/* What fixing point i saves: {ns, share, at_threshold_ns} (analyze/README.md, "Savings"). */
static cJSON *savings_json(const struct xa_view *v, size_t i)
{
	const struct xa_l3 *a = &v->t->l3[i];
	cJSON *n = cJSON_CreateObject();

	cJSON_AddStringToObject(n, "id", th_l3_table[i].id);
	xp_json_add_u64(n, "ns", a->saved_ns);
	cJSON_AddNumberToObject(n, "share", xa_share(a->saved_ns, v->t->wall));
	xp_json_add_u64(n, "at_threshold_ns", a->ns - a->saved_ns);
	return n;
}

static cJSON *l3_json(const struct xa_view *v, size_t i)
{
	const struct th_l3 *p = &th_l3_table[i];
	const struct xa_l3 *a = &v->t->l3[i];
	cJSON *n = cJSON_CreateObject();

	cJSON_AddStringToObject(n, "id", p->id);
	cJSON_AddStringToObject(n, "name", p->name);
	cJSON_AddStringToObject(n, "l2", p->l2_id);
	cJSON_AddStringToObject(n, "grade", th_grade_names[p->grade]);
	cJSON_AddStringToObject(n, "state", xa_state_name(a->state));
	xp_json_add_u64(n, "ns", a->ns);
	cJSON_AddNumberToObject(n, "share", xa_share(a->ns, v->t->wall));
	cJSON_AddStringToObject(n, "metric", p->metric);
	if (a->state == XA_NOT_MEASURED)
		cJSON_AddStringToObject(n, "note", a->note);
	else
		cJSON_AddNumberToObject(n, "value", a->value);
	cJSON_AddNumberToObject(n, "threshold", p->threshold);
	cJSON_AddStringToObject(n, "unit", p->unit);
	cJSON_AddStringToObject(n, "fires", p->cmp == XP_FIRE_ABOVE ? "above" : "below");
	if (v->s) {
		cJSON_AddNumberToObject(n, "fired_turns", v->s->fired[i]);
		cJSON_AddNumberToObject(n, "measured_turns", v->s->measured[i]);
		if (v->s->measured[i])
			cJSON_AddNumberToObject(n, "worst_turn", (double)v->s->worst_turn[i]);
	}
	if (a->state == XA_FIRED) {
		cJSON_AddStringToObject(n, "suggestion", p->suggestion);
		cJSON_AddItemToObject(n, "savings", savings_json(v, i));
	}
	if (xa_l4_shown(v, i))
		cJSON_AddItemToObject(n, "l4", l4_json(v, i));
	return n;
}

static void add_tree(const struct xa_view *v, cJSON *root)
{
	cJSON *l1 = cJSON_AddArrayToObject(root, "l1"), *l2, *l3, *top;
	size_t idx[XA_MAX_L3], n;

	for (int c = 0; c < XP_CAT_COUNT; c++)
		add_node(l1, th_categories[c].key, th_categories[c].name, v->t->cat_ns[c],
			 v->t->wall, xa_l1_drilled(v, (enum th_category)c));
	if (v->o->depth < 2)
		return;
	l2 = cJSON_AddArrayToObject(root, "l2");
	for (size_t k = 0; k < th_l2_count; k++) {
		const struct th_l2 *p = &th_l2_table[k];

		add_node(l2, p->id, p->name, v->t->l2_ns[p->domain][p->category], v->t->wall,
			 xa_l2_drilled(v, p));
	}
	if (v->o->depth < 3)
		return;
	l3 = cJSON_AddArrayToObject(root, "l3");
	for (size_t i = 0; i < th_l3_count; i++)
		if (xa_l3_shown(v, i))
			cJSON_AddItemToArray(l3, l3_json(v, i));
	top = cJSON_AddArrayToObject(root, "bottlenecks");
	n = xa_top_points(v, idx, XA_MAX_L3);
	for (size_t k = 0; k < n; k++)
		cJSON_AddItemToArray(top, cJSON_CreateString(th_l3_table[idx[k]].id));
	top = cJSON_AddArrayToObject(root, "savings");
	n = xa_savings_ranked(v, idx);
	for (size_t k = 0; k < n; k++)
		cJSON_AddItemToArray(top, savings_json(v, idx[k]));
}

cJSON *xa_usage_json(const struct xa_usage *u)
{
	cJSON *j = cJSON_CreateObject();

	for (int k = 0; k < XA_TOK_COUNT; k++)
		cJSON_AddNumberToObject(j, xa_tok_names[k], u->tok[k]);
	cJSON_AddNumberToObject(j, "calls", u->calls);
	cJSON_AddNumberToObject(j, "unpriced_calls", u->unpriced);
	cJSON_AddNumberToObject(j, "cost_usd", u->usd);
	return j;
}

/* Tokens by category, cost, waste, the price table used; a turn's calls one by one. */
static void add_tokens(const struct xa_view *v, cJSON *root)
{
	const struct xa_prices *p = xa_view_prices(v);
	cJSON *j = xa_usage_json(&v->t->use), *pr, *arr;

	cJSON_AddItemToObject(root, "tokens", j);
	cJSON_AddStringToObject(j, "unpriced_model", v->t->unpriced_model);
	cJSON_AddItemToObject(j, "waste", xa_usage_json(&v->t->waste));
	pr = cJSON_AddObjectToObject(j, "prices");
	cJSON_AddStringToObject(pr, "source", xa_prices_source(p));
	cJSON_AddStringToObject(pr, "date", xa_prices_date(p));
	if (v->s)
		return;
	arr = cJSON_AddArrayToObject(root, "llm_calls");
	for (size_t i = 0; i < v->t->ncalls; i++) {
		const struct xa_call *c = &v->t->calls[i];
		cJSON *n = xa_usage_json(&c->use);

		cJSON_DeleteItemFromObject(n, "calls");
		cJSON_AddNumberToObject(n, "span", (double)c->span);
		cJSON_AddStringToObject(n, "model", c->model);
		cJSON_AddStringToObject(n, "waste_l3", c->waste_l3 ? c->waste_l3 : "");
		cJSON_AddItemToArray(arr, n);
	}
}

static void add_turn_facts(const struct xa_turn *t, cJSON *root)
{
	cJSON *j = cJSON_AddObjectToObject(root, "turn"), *arr;

	cJSON_AddStringToObject(j, "path", t->head.path);
	cJSON_AddStringToObject(j, "session_id", t->head.session_id);
	cJSON_AddNumberToObject(j, "turn_index", (double)t->head.turn_index);
	cJSON_AddStringToObject(j, "source", t->head.source);
	cJSON_AddBoolToObject(j, "complete", t->head.complete);
	xp_json_add_u64(j, "start_ns", t->start);
	xp_json_add_u64(j, "wall_ns", t->wall);
	cJSON_AddStringToObject(j, "tier", t->head.tier);
	xp_json_add_u64(j, "dropped_events", t->dropped_events);
	cJSON_AddNumberToObject(j, "warnings", t->warnings);
	arr = cJSON_AddArrayToObject(root, "corrections");
	for (size_t i = 0; i < t->ncorr; i++) {
		cJSON *c = xp_json_item(arr);

		cJSON_AddNumberToObject(c, "span", (double)t->corr[i].span_id);
		cJSON_AddStringToObject(c, "stage", t->corr[i].stage);
		cJSON_AddStringToObject(c, "declared", th_domains[t->corr[i].declared].key);
		cJSON_AddStringToObject(c, "corrected", th_domains[t->corr[i].corrected].key);
	}
	arr = cJSON_AddArrayToObject(root, "notes");
	for (unsigned i = 0; i < t->nnotes; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(t->notes[i]));
	arr = cJSON_AddArrayToObject(root, "timeline");
	for (size_t i = 0; i < t->nsegs; i++) {
		cJSON *g = xp_json_item(arr);

		xp_json_add_u64(g, "start_ns", t->segs[i].start);
		xp_json_add_u64(g, "end_ns", t->segs[i].end);
		cJSON_AddStringToObject(g, "stage", t->seg_stage[i]);
		cJSON_AddStringToObject(g, "domain", th_domains[t->segs[i].domain].key);
		cJSON_AddStringToObject(g, "category", th_categories[t->segs[i].category].key);
	}
}

static void add_session_facts(const struct xa_session *s, cJSON *root)
{
	cJSON *j = cJSON_AddObjectToObject(root, "session"), *arr, *tr;

	cJSON_AddStringToObject(j, "dir", s->dir);
	cJSON_AddNumberToObject(j, "turns", s->turns);
	cJSON_AddNumberToObject(j, "skipped", s->skipped);
	arr = cJSON_AddArrayToObject(j, "skipped_files");
	for (unsigned i = 0; i < s->skipped && i < XA_SKIP_SHOWN; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(s->skip_msg[i]));
	cJSON_AddNumberToObject(j, "incomplete", s->incomplete);
	xp_json_add_u64(j, "wall_ns", s->total->wall);
	cJSON_AddStringToObject(j, "tier", s->tier);
	xp_json_add_u64(j, "dropped_events", s->dropped);
	cJSON_AddNumberToObject(j, "warnings", s->warnings);
	cJSON_AddNumberToObject(j, "corrections", s->corrections);
	tr = cJSON_AddObjectToObject(root, "trends");
	cJSON_AddNumberToObject(tr, "ttft_turns", s->ttft.n);
	cJSON_AddNumberToObject(tr, "ttft_slope_ms_per_turn", xa_slope(&s->ttft));
	cJSON_AddNumberToObject(tr, "input_tokens_first", s->tok_first);
	cJSON_AddNumberToObject(tr, "input_tokens_last", s->tok_last);
	cJSON_AddNumberToObject(tr, "input_tokens_slope_per_turn", xa_slope(&s->tok));
	cJSON_AddNumberToObject(tr, "context_growth_max", s->growth_max);
	arr = cJSON_AddArrayToObject(root, "slowest");
	for (unsigned i = 0; i < s->nslow; i++) {
		cJSON *r = xp_json_item(arr);

		cJSON_AddNumberToObject(r, "turn_index", (double)s->slow[i].turn_index);
		xp_json_add_u64(r, "wall_ns", s->slow[i].wall);
		cJSON_AddStringToObject(r, "top_l3", s->slow[i].top_l3 >= 0
				? th_l3_table[s->slow[i].top_l3].id : "");
	}
}

static cJSON *row_json(const struct xa_row *r)
{
	cJSON *j = cJSON_CreateObject(), *ns = cJSON_CreateObject();

	cJSON_AddNumberToObject(j, "turn_index", (double)r->turn_index);
	xp_json_add_u64(j, "wall_ns", r->wall);
	for (int c = 0; c < XP_CAT_COUNT; c++)
		xp_json_add_u64(ns, th_categories[c].key, r->cat_ns[c]);
	cJSON_AddItemToObject(j, "ns", ns);
	cJSON_AddNumberToObject(j, "input_tokens", r->in_tok);
	cJSON_AddNumberToObject(j, "ttft_ms", r->ttft_ms);
	cJSON_AddStringToObject(j, "top_l3", r->top_l3 >= 0 ? th_l3_table[r->top_l3].id : "");
	cJSON_AddNumberToObject(j, "fired", r->nfired);
	cJSON_AddBoolToObject(j, "complete", r->complete);
	cJSON_AddNumberToObject(j, "output_tokens", r->out_tok);
	cJSON_AddNumberToObject(j, "cost_usd", r->usd);
	cJSON_AddNumberToObject(j, "waste_cost_usd", r->waste_usd);
	return j;
}

/* Print doc without its closing brace, then the rows of the turns array. */
static int stream_rows(const struct xa_session *s, char *head, FILE *out)
{
	size_t len = strlen(head);
	struct xa_row r;

	while (len && head[len - 1] == '\n')
		head[--len] = '\0';
	if (len && head[len - 1] == '}') /* the document's own closing brace only */
		head[--len] = '\0';
	while (len && head[len - 1] == '\n')
		head[--len] = '\0';
	fprintf(out, "%s,\n\t\"turns\":\t[", head);
	for (size_t i = 0; i < s->turns; i++) {
		cJSON *j;
		char *txt;

		if (xa_session_row(s, i, &r))
			return -1;
		j = row_json(&r);
		txt = xp_json_print(j, 0);
		cJSON_Delete(j);
		if (!txt)
			return -1;
		fprintf(out, "%s\n\t\t%s", i ? "," : "", txt);
		free(txt);
	}
	fprintf(out, "]\n}\n");
	return 0;
}

int xa_report_json(const struct xa_view *v, FILE *out)
{
	cJSON *root = cJSON_CreateObject();
	char *txt;
	int rc;

	cJSON_AddStringToObject(root, "report",
				v->s ? "xperf.analyze.session" : "xperf.analyze.turn");
	cJSON_AddStringToObject(root, "version", "1.0");
	cJSON_AddItemToObject(root, "options", options_json(v->o));
	if (v->s)
		add_session_facts(v->s, root);
	else
		add_turn_facts(v->t, root);
	add_tree(v, root);
	add_tokens(v, root);
	if (!v->s)
		return xp_json_fput(root, out);
	txt = xp_json_print(root, 1);
	cJSON_Delete(root);
	if (!txt)
		return -1;
	rc = stream_rows(v->s, txt, out);
	free(txt);
	return rc;
}
