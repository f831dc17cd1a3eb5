/* SPDX-License-Identifier: MIT */
/*
 * doc.c - TurnTrace documents. Categories follow theory's per-domain rules
 * (theory/README.md): a span a waste mark points at, or whose ancestor it
 * points at, is waste; compute spans on CPU less than cpu_ratio_supply of
 * their time are supply; stages flagged supply are supply; productive
 * stages are effective, the rest processing.
 */
#include "assemble/doc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/atomic_file.h"
#include "lib/json_int.h"
#include "theory/theory.h"

static void add_anchor(cJSON *r, const struct xp_clock_anchor *anchor)
{
	cJSON *o = cJSON_AddObjectToObject(r, "clock_anchor");

	xp_json_add_u64(o, "monotonic_ns", anchor->monotonic_ns);
	xp_json_add_u64(o, "realtime_ns", anchor->realtime_ns);
	if (anchor->boot_id[0])
		cJSON_AddStringToObject(o, "boot_id", anchor->boot_id);
}

struct xt_doc *xt_doc_new(const char *session_id, int turn_index, int complete, uint64_t start_ns,
			  uint64_t end_ns, const struct xt_agent_info *agent, const char *tier,
			  const struct xp_clock_anchor *anchor)
{
	struct xt_doc *d = calloc(1, sizeof(*d));
	cJSON *r = cJSON_CreateObject(), *a;

	if (!d || !r) {
		free(d);
		cJSON_Delete(r);
		return NULL;
	}
	d->root = r;
	d->next_id = 1;
	cJSON_AddStringToObject(r, "schema_version", "1.0");
	cJSON_AddStringToObject(r, "session_id", session_id);
	cJSON_AddNumberToObject(r, "turn_index", turn_index);
	cJSON_AddBoolToObject(r, "complete", complete);
	cJSON_AddStringToObject(r, "source", "ebpf");
	cJSON_AddStringToObject(r, "clock", "CLOCK_MONOTONIC");
	if (anchor)
		add_anchor(r, anchor);
	xp_json_add_u64(r, "start_ns", start_ns);
	xp_json_add_u64(r, "end_ns", end_ns);
	a = cJSON_AddObjectToObject(r, "agent");
	cJSON_AddStringToObject(a, "name", agent->name);
	if (agent->model && agent->model[0])
		cJSON_AddStringToObject(a, "model", agent->model);
	cJSON_AddNumberToObject(a, "pid", agent->pid);
	if (agent->start_time_ns)
		xp_json_add_u64(a, "start_time_ns", agent->start_time_ns);
	if (agent->comm && agent->comm[0])
		cJSON_AddStringToObject(a, "comm", agent->comm);
	d->spans = cJSON_AddArrayToObject(r, "spans");
	d->fused = cJSON_AddArrayToObject(r, "fused_marks");
	d->waste = cJSON_AddArrayToObject(r, "waste_marks");
	d->quality = cJSON_AddObjectToObject(r, "data_quality");
	cJSON_AddStringToObject(d->quality, "tier", tier);
	cJSON_AddNumberToObject(d->quality, "dropped_events", 0);
	cJSON_AddNumberToObject(d->quality, "truncated_payloads", 0);
	cJSON_AddArrayToObject(d->quality, "warnings");
	return d;
}

void xt_doc_free(struct xt_doc *d)
{
	if (!d)
		return;
	cJSON_Delete(d->root);
	free(d);
}

int xt_doc_span(struct xt_doc *d, int parent, const char *stage, uint64_t a, uint64_t b,
		uint32_t tid, const struct xt_sched_sum *sched, cJSON **attrs)
{
	cJSON *s = cJSON_CreateObject();

	if (!s)
		return -1;
	int id = d->next_id++;

	cJSON_AddNumberToObject(s, "id", id);
	if (parent > 0)
		cJSON_AddNumberToObject(s, "parent", parent);
	else
		cJSON_AddNullToObject(s, "parent");
	cJSON_AddStringToObject(s, "stage", stage);
	xp_json_add_u64(s, "start_ns", a);
	xp_json_add_u64(s, "end_ns", b);
	if (tid)
		cJSON_AddNumberToObject(s, "tid", tid);
	if (sched) {
		cJSON *o = cJSON_AddObjectToObject(s, "sched");

		xp_json_add_u64(o, "on_cpu_ns", sched->on_cpu_ns);
		xp_json_add_u64(o, "runq_ns", sched->runq_ns);
		xp_json_add_u64(o, "blocked_ns", sched->blocked_ns);
	}
	cJSON *at = cJSON_AddObjectToObject(s, "attributes");

	if (attrs)
		*attrs = at;
	cJSON_AddItemToArray(d->spans, s);
	return id;
}

static cJSON *add_mark(cJSON *arr, const char *kind, uint64_t t, int span)
{
	cJSON *m = cJSON_CreateObject();

	if (!m)
		return NULL;
	cJSON_AddStringToObject(m, "kind", kind);
	xp_json_add_u64(m, "t_ns", t);
	if (span > 0)
		cJSON_AddNumberToObject(m, "span", span);
	else
		cJSON_AddNullToObject(m, "span");
	cJSON_AddItemToArray(arr, m);
	return m;
}

cJSON *xt_doc_fused(struct xt_doc *d, const char *kind, uint64_t t, int span)
{
	cJSON *m = add_mark(d->fused, kind, t, span);

	return m ? cJSON_AddObjectToObject(m, "attributes") : NULL;
}

cJSON *xt_doc_waste(struct xt_doc *d, const char *kind, uint64_t t, int span,
		    const char *count_name, int count)
{
	const struct xp_waste_kind *wk = xp_waste_kind_find(kind);
	cJSON *m = add_mark(d->waste, kind, t, span);

	if (!m)
		return NULL;
	cJSON_AddStringToObject(m, "l3", wk ? wk->l3_id : "");
	cJSON_AddNumberToObject(cJSON_AddObjectToObject(m, "counts"), count_name, count);
	return cJSON_AddObjectToObject(m, "attributes");
}

void xt_doc_quality(struct xt_doc *d, uint64_t dropped, uint64_t truncated)
{
	cJSON_SetNumberValue(cJSON_GetObjectItem(d->quality, "dropped_events"), (double)dropped);
	cJSON_SetNumberValue(cJSON_GetObjectItem(d->quality, "truncated_payloads"),
			     (double)truncated);
}

void xt_doc_warn(struct xt_doc *d, const char *warning)
{
	cJSON_AddItemToArray(cJSON_GetObjectItem(d->quality, "warnings"),
			     cJSON_CreateString(warning));
}

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* 1 if a waste mark points at span id or at one of its ancestors. */
static int wasted(const struct xt_doc *d, const cJSON *span)
{
	while (span) {
		const cJSON *m, *p;
		int id = (int)num(span, "id");

		cJSON_ArrayForEach(m, d->waste)
			if (cJSON_IsNumber(cJSON_GetObjectItem(m, "span")) &&
			    (int)num(m, "span") == id)
				return 1;
		p = cJSON_GetObjectItem(span, "parent");
		if (!cJSON_IsNumber(p))
			return 0;
		const cJSON *s;

		span = NULL;
		cJSON_ArrayForEach(s, d->spans)
			if ((int)num(s, "id") == (int)p->valuedouble)
				span = s;
	}
	return 0;
}

static enum xp_category category(const struct xt_doc *d, const cJSON *span,
				 const struct xp_stage *st)
{
	const cJSON *sched = cJSON_GetObjectItem(span, "sched");
	double dur = num(span, "end_ns") - num(span, "start_ns");

	if (wasted(d, span))
		return XP_CAT_WASTE;
	if (st->supply || (xp_domains[st->domain].rule == XP_RULE_NAME_WAIT &&
			   strstr(st->name, "wait")))
		return XP_CAT_SUPPLY;
	if (xp_domains[st->domain].rule == XP_RULE_CPU_RATIO && sched && dur > 0 &&
	    num(sched, "on_cpu_ns") / dur < xp_rules.cpu_ratio_supply)
		return XP_CAT_SUPPLY;
	return st->effective ? XP_CAT_EFFECTIVE : XP_CAT_PROCESSING;
}

void xt_doc_finish(struct xt_doc *d)
{
	cJSON *s;

	cJSON_ArrayForEach(s, d->spans) {
		const cJSON *stage = cJSON_GetObjectItem(s, "stage");
		const struct xp_stage *st = xp_stage_find(stage->valuestring);

		if (!st) { /* the assembler only writes stages of the map */
			cJSON_AddBoolToObject(s, "custom_stage", 1);
			cJSON_AddStringToObject(s, "domain", xp_rules.unknown_stage_domain);
			cJSON_AddStringToObject(s, "category", "processing");
			continue;
		}
		cJSON_AddStringToObject(s, "domain", xp_domains[st->domain].key);
		cJSON_AddStringToObject(s, "category", xp_categories[category(d, s, st)].key);
	}
}

int xt_doc_write(struct xt_doc *d, const char *dir, char *path, size_t pathlen)
{
	const char *sid = cJSON_GetObjectItem(d->root, "session_id")->valuestring;
	char sub[4096];
	int rc;

	snprintf(sub, sizeof(sub), "%s/%s", dir, sid);
	rc = xp_mkdir_p(sub);
	if (rc)
		return rc;
	snprintf(path, pathlen, "%s/turn_%03d.json", sub, (int)num(d->root, "turn_index"));
	char *text = xp_json_print(d->root, 1);

	if (!text)
		return -ENOMEM;
	rc = xp_write_file_atomic(path, text, strlen(text));
	free(text);
	return rc;
}
