// SPDX-License-Identifier: MIT
/*
 * report_json.c - the fleet report as JSON, built with cJSON. Layout:
 * fleet/README.md; schema: fleet/fleet_report.schema.json. The document's size
 * depends on the number of nodes, agents and L3 points, never on the number of
 * sessions or turns.
 */
#include <cjson/cJSON.h>

#include "fleet/fleet.h"
#include "lib/json_int.h"

static void totals(const struct fleet_agg *a, cJSON *root)
{
	cJSON *t = cJSON_AddObjectToObject(root, "totals");

	xp_json_add_u64(t, "nodes", a->nnodes);
	cJSON_AddNumberToObject(t, "sessions", a->sessions);
	cJSON_AddNumberToObject(t, "turns", a->turns);
	cJSON_AddNumberToObject(t, "incomplete_turns", a->incomplete);
	xp_json_add_u64(t, "wall_ns", a->wall_ns);
	xp_json_add_u64(t, "dropped_events", a->dropped_events);
	cJSON_AddNumberToObject(t, "invalid_files", a->invalid_files);
	cJSON_AddNumberToObject(t, "failed_sessions", a->failed_sessions);
}

/* Tokens and cost (analyze/README.md, "Tokens and cost"). */
static void tokens(const struct fleet_agg *a, cJSON *root)
{
	cJSON *j = xa_usage_json(&a->use);

	cJSON_AddItemToObject(j, "waste", xa_usage_json(&a->waste));
	cJSON_AddStringToObject(j, "prices_date",
				xa_prices_date(a->prices ? a->prices : xa_prices_default()));
	cJSON_AddItemToObject(root, "tokens", j);
}

/* An L1 or L2 node {key: id, name, ns, share of the fleet's turn time}. */
static void add_node(cJSON *arr, const char *key, const char *id, const char *name, uint64_t ns,
		     uint64_t wall)
{
	cJSON *n = xp_json_item(arr);

	cJSON_AddStringToObject(n, key, id);
	cJSON_AddStringToObject(n, "name", name);
	xp_json_add_u64(n, "ns", ns);
	cJSON_AddNumberToObject(n, "share", xa_share(ns, wall));
}

static void shares(const struct fleet_agg *a, cJSON *root)
{
	cJSON *l1 = cJSON_AddArrayToObject(root, "l1"), *l2 = cJSON_AddArrayToObject(root, "l2");

	for (int c = 0; c < XP_CAT_COUNT; c++)
		add_node(l1, "category", th_categories[c].key, th_categories[c].name,
			 fleet_cat_ns(a, (enum th_category)c), a->wall_ns);
	for (size_t k = 0; k < th_l2_count; k++) {
		const struct th_l2 *p = &th_l2_table[k];

		add_node(l2, "id", p->id, p->name, a->l2_ns[p->domain][p->category], a->wall_ns);
	}
}

static void bottlenecks(const struct fleet_agg *a, cJSON *root)
{
	cJSON *arr = cJSON_AddArrayToObject(root, "bottlenecks");
	size_t idx[th_l3_count], n = fleet_ranked_points(a, idx);

	for (size_t k = 0; k < n; k++) {
		const struct th_l3 *p = &th_l3_table[idx[k]];
		const struct fleet_point *f = &a->points[idx[k]];
		cJSON *j = xp_json_item(arr);

		cJSON_AddStringToObject(j, "l3", p->id);
		cJSON_AddStringToObject(j, "name", p->name);
		cJSON_AddStringToObject(j, "grade", th_grade_names[p->grade]);
		cJSON_AddNumberToObject(j, "turns", f->turns);
		cJSON_AddNumberToObject(j, "turn_share", xa_share(f->turns, a->turns));
		cJSON_AddNumberToObject(j, "sessions", f->sessions);
		xp_json_add_u64(j, "ns", f->ns);
		cJSON_AddStringToObject(j, "suggestion", p->suggestion);
	}
}

static void lists(const struct fleet_agg *a, cJSON *root)
{
	cJSON *arr = cJSON_AddArrayToObject(root, "series"), *bad;

	for (size_t i = 0; i < a->nseries; i++) {
		const struct fleet_series *s = &a->series[i];
		cJSON *j = xp_json_item(arr);

		cJSON_AddStringToObject(j, "node", s->node);
		cJSON_AddStringToObject(j, "agent", s->agent);
		cJSON_AddNumberToObject(j, "sessions", s->sessions);
		cJSON_AddNumberToObject(j, "turns", s->turns);
		cJSON_AddNumberToObject(j, "incomplete_turns", s->incomplete);
		xp_json_add_u64(j, "wall_ns", s->wall_ns);
		cJSON_AddNumberToObject(j, "cost_usd", s->usd);
	}
	arr = cJSON_AddArrayToObject(root, "nodes");
	for (size_t i = 0; i < a->nnodes; i++) {
		cJSON *j = xp_json_item(arr);

		cJSON_AddStringToObject(j, "node", a->nodes[i].name);
		cJSON_AddNumberToObject(j, "sessions", a->nodes[i].sessions);
		cJSON_AddNumberToObject(j, "invalid_files", a->nodes[i].invalid_files);
		xp_json_add_u64(j, "dropped_events", a->nodes[i].dropped_events);
	}
	arr = cJSON_AddArrayToObject(root, "worst_sessions");
	for (unsigned i = 0; i < a->nworst; i++) {
		const struct fleet_session *s = &a->worst[i];
		cJSON *j = xp_json_item(arr);

		cJSON_AddStringToObject(j, "path", s->path);
		cJSON_AddStringToObject(j, "node", s->node);
		cJSON_AddStringToObject(j, "agent", s->agent);
		cJSON_AddNumberToObject(j, "turns", s->turns);
		xp_json_add_u64(j, "wall_ns", s->wall_ns);
		cJSON_AddNumberToObject(j, "effective_share", s->effective_share);
		if (s->top)
			cJSON_AddStringToObject(j, "top_l3", s->top->id);
		else
			cJSON_AddNullToObject(j, "top_l3");
	}
	bad = cJSON_AddObjectToObject(root, "problems");
	cJSON_AddNumberToObject(bad, "count", a->invalid_files + a->failed_sessions);
	arr = cJSON_AddArrayToObject(bad, "first");
	for (unsigned i = 0; i < a->nbad; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(a->bad[i]));
}

int fleet_report_json(struct fleet_agg *a, FILE *out)
{
	cJSON *root = cJSON_CreateObject();

	fleet_sort(a);
	cJSON_AddStringToObject(root, "report", "xperf.fleet.report");
	cJSON_AddStringToObject(root, "version", "1.0");
	cJSON_AddStringToObject(root, "dir", a->dir);
	totals(a, root);
	tokens(a, root);
	shares(a, root);
	bottlenecks(a, root);
	lists(a, root);
	return xp_json_fput(root, out) || fflush(out) || ferror(out) ? -1 : 0;
}
