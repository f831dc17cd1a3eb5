/* SPDX-License-Identifier: MIT */
/*
 * writer.c - a finished turn as a TurnTrace v1 document (schema/README.md),
 * built with cJSON.
 *
 * Integers are written as exact integer literals (cJSON_CreateRaw): cJSON
 * 1.7.15 prints every number with %1.15g and checks it with sscanf, which
 * is slow (it was a third of the writer's time) and turns a boot-relative
 * timestamp such as 1234567890123450 into 1.23456789012345e+15.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "lib/clock_anchor.h"
#include "sdk/internal.h"

cJSON *xp_json_u64(uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	return cJSON_CreateRaw(buf);
}

/*
 * Keys here are literals or static tables: cJSON keeps the pointer instead
 * of copying it for every span. Returns v.
 */
static cJSON *put(cJSON *o, const char *key, cJSON *v)
{
	cJSON_AddItemToObjectCS(o, key, v);
	return v;
}

static void add_u64(cJSON *o, const char *key, uint64_t v)
{
	put(o, key, xp_json_u64(v));
}

static void add_id(cJSON *o, const char *key, int id)
{
	if (id > 0)
		add_u64(o, key, (uint64_t)id);
	else
		put(o, key, cJSON_CreateNull());
}

static cJSON *counters_json(const struct xp_span *sp)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *values = put(o, "values", cJSON_CreateObject());
	cJSON *unavailable = put(o, "unavailable", cJSON_CreateObject());

	for (int c = 0; c < XP_CTR_COUNT; c++) {
		/* TurnTrace names only what the theory's counter table knows. */
		if (!xp_counter_name_find(xp_counter_names[c]))
			continue;
		if (sp->ctr_mask & (1ull << c))
			add_u64(values, xp_counter_names[c],
				(uint64_t)llround(sp->ctr[c] > 0 ? sp->ctr[c] : 0));
		else
			put(unavailable, xp_counter_names[c],
			    cJSON_CreateString(xp_reason(sp->why[c])));
	}
	return o;
}

static cJSON *span_json(const struct xp_span *sp)
{
	cJSON *o = cJSON_CreateObject();

	add_u64(o, "id", (uint64_t)sp->id);
	add_id(o, "parent", sp->parent);
	put(o, "stage", cJSON_CreateString(sp->stage));
	if (!sp->st)
		put(o, "custom_stage", cJSON_CreateTrue());
	put(o, "domain", cJSON_CreateString(xp_span_domain(sp)));
	put(o, "category", cJSON_CreateString(xp_span_category(sp)));
	add_u64(o, "start_ns", sp->start_ns);
	add_u64(o, "end_ns", sp->end_ns);
	add_u64(o, "tid", (uint64_t)sp->tid);
	if (sp->measured) {
		add_u64(put(o, "sched", cJSON_CreateObject()), "on_cpu_ns", sp->cpu_ns);
		put(o, "counters", counters_json(sp));
	}
	if (sp->attrs)
		put(o, "attributes", cJSON_CreateObjectReference(sp->attrs->child));
	return o;
}

static cJSON *mark_json(const struct xp_mark *m)
{
	cJSON *o = cJSON_CreateObject();

	put(o, "kind", cJSON_CreateString(m->kind));
	if (m->l3)
		put(o, "l3", cJSON_CreateString(m->l3));
	add_id(o, "span", m->span);
	add_u64(o, "t_ns", m->t_ns);
	if (m->counts)
		put(o, "counts", cJSON_CreateObjectReference(m->counts->child));
	if (m->attrs)
		put(o, "attributes", cJSON_CreateObjectReference(m->attrs->child));
	return o;
}

/* Where CLOCK_MONOTONIC stands on the wall clock now, and on which boot. */
static cJSON *anchor_json(void)
{
	cJSON *o = cJSON_CreateObject();
	struct xp_clock_anchor a;

	xp_clock_anchor_now(&a);
	add_u64(o, "monotonic_ns", a.monotonic_ns);
	add_u64(o, "realtime_ns", a.realtime_ns);
	if (a.boot_id[0])
		cJSON_AddStringToObject(o, "boot_id", a.boot_id);
	return o;
}

static cJSON *agent_json(const struct xp_agent *ag)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "name", ag->name);
	if (ag->model[0])
		cJSON_AddStringToObject(o, "model", ag->model);
	add_u64(o, "pid", (uint64_t)ag->pid);
	if (ag->start_time_ns)
		add_u64(o, "start_time_ns", ag->start_time_ns);
	if (ag->comm[0])
		cJSON_AddStringToObject(o, "comm", ag->comm);
	if (ag->container_id[0])
		cJSON_AddStringToObject(o, "container_id", ag->container_id);
	else
		cJSON_AddNullToObject(o, "container_id");
	return o;
}

/* The reason hardware counters are missing, when a measured span lacks one. */
static const char *hw_missing(const struct xp_turn *t)
{
	for (size_t i = 0; i < t->nspans; i++) {
		const struct xp_span *sp = &t->spans[i];

		for (int c = 0; sp->measured && c < XP_CTR_COUNT; c++)
			if (xp_counter_is_hw(c) && !(sp->ctr_mask & (1ull << c)))
				return xp_reason(sp->why[c]);
	}
	return NULL;
}

static cJSON *quality_json(const struct xp_turn *t)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *w = cJSON_Duplicate(t->warnings, 1);
	const char *hw = hw_missing(t);
	char msg[160];

	cJSON_AddStringToObject(o, "tier", "sdk");
	add_u64(o, "dropped_events", t->dropped);
	add_u64(o, "truncated_payloads", 0);
	if (hw) {
		snprintf(msg, sizeof(msg), "hardware counters unavailable (%s): no L4 root causes",
			 hw);
		cJSON_AddItemToArray(w, cJSON_CreateString(msg));
	}
	cJSON_AddItemToObject(o, "warnings", w);
	return o;
}

cJSON *xp_turn_json(const struct xp_turn *t, const char *session_id, const struct xp_agent *ag)
{
	cJSON *doc = cJSON_CreateObject();
	cJSON *spans, *fused, *waste;

	cJSON_AddStringToObject(doc, "schema_version", "1.0");
	cJSON_AddStringToObject(doc, "session_id", session_id);
	add_u64(doc, "turn_index", (uint64_t)t->index);
	cJSON_AddBoolToObject(doc, "complete", t->complete);
	cJSON_AddStringToObject(doc, "source", "sdk");
	cJSON_AddStringToObject(doc, "clock", "CLOCK_MONOTONIC");
	cJSON_AddItemToObject(doc, "clock_anchor", anchor_json());
	add_u64(doc, "start_ns", t->start_ns);
	add_u64(doc, "end_ns", t->end_ns);
	cJSON_AddItemToObject(doc, "agent", agent_json(ag));
	spans = cJSON_AddArrayToObject(doc, "spans");
	fused = cJSON_AddArrayToObject(doc, "fused_marks");
	waste = cJSON_AddArrayToObject(doc, "waste_marks");
	for (size_t i = 0; i < t->nspans; i++)
		cJSON_AddItemToArray(spans, span_json(&t->spans[i]));
	for (size_t i = 0; i < t->nmarks; i++)
		cJSON_AddItemToArray(t->marks[i].fused ? fused : waste, mark_json(&t->marks[i]));
	cJSON_AddItemToObject(doc, "data_quality", quality_json(t));
	return doc;
}
