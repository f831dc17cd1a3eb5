/* SPDX-License-Identifier: MIT */
/*
 * write.c - the one TurnTrace writer: a struct tt_turn as a TurnTrace v1
 * document (schema/README.md), integers exact (lib/json_int.h), stored
 * atomically with mode 0600 (lib/atomic_file.h).
 */
#include "core/write.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/atomic_file.h"
#include "lib/json_int.h"

/* Keys are literals or static tables: cJSON keeps the pointer instead of a copy. */
static cJSON *put(cJSON *o, const char *key, cJSON *v)
{
	cJSON_AddItemToObjectCS(o, key, v);
	return v;
}

static void put_u64(cJSON *o, const char *key, uint64_t v)
{
	put(o, key, xp_json_exact_u64(v));
}

static void put_str(cJSON *o, const char *key, const char *s)
{
	put(o, key, cJSON_CreateString(s));
}

static void put_id(cJSON *o, const char *key, int64_t id)
{
	put(o, key, id > 0 ? xp_json_exact_u64((uint64_t)id) : cJSON_CreateNull());
}

/* The turn keeps its objects: the document refers to their members. */
static void put_ref(cJSON *o, const char *key, const cJSON *obj)
{
	put(o, key, cJSON_CreateObjectReference(obj ? obj->child : NULL));
}

/* Whether name is one of tt_exchange_order. */
static int ordered(const char *name)
{
	for (size_t r = 0; r < tt_exchange_order_count; r++)
		if (!strcmp(tt_exchange_order[r], name))
			return 1;
	return 0;
}

/* A count exact (as the assembler wrote it), anything else as cJSON prints it. */
static cJSON *number(double v)
{
	return v >= 0 && v == (double)(uint64_t)v ? xp_json_exact_u64((uint64_t)v) :
						    cJSON_CreateNumber(v);
}

static cJSON *times(const uint64_t *t, size_t n)
{
	cJSON *arr = cJSON_CreateArray();

	for (size_t i = 0; arr && i < n; i++)
		cJSON_AddItemToArray(arr, xp_json_exact_u64(t[i]));
	return arr;
}

/* The value of typed fact `name` of ex, NULL when ex does not hold it. */
static cJSON *fact(const struct tt_exchange *ex, const cJSON *attrs, const char *name)
{
	for (int i = 0; i < TT_EX_NUM_COUNT; i++)
		if (!strcmp(name, tt_exchange_num_names[i]))
			return tt_ex_has(ex, i) ? number(ex->num[i]) : NULL;
	for (int i = 0; i < TT_EX_STR_COUNT; i++)
		if (!strcmp(name, tt_exchange_str_names[i]))
			return ex->str[i] ? cJSON_CreateString(ex->str[i]) : NULL;
	if (!strcmp(name, TT_FINISH_ATTR))
		return ex->finish_given ? cJSON_CreateStringArray((const char *const *)ex->finish,
								   (int)ex->nfinish) : NULL;
	if (!strcmp(name, TT_TOKEN_TIMES_ATTR))
		return ex->token_times ? times(ex->token_ns, ex->ntokens) : NULL;
	/* TTFT in seconds too (OpenTelemetry's), when the ns come from ex, not the attributes */
	if (!strcmp(name, TT_TTFT_S_ATTR) && tt_ex_has(ex, TT_EX_TTFT_NS) &&
	    !cJSON_GetObjectItemCaseSensitive(attrs, tt_exchange_num_names[TT_EX_TTFT_NS]))
		return cJSON_CreateNumber(ex->num[TT_EX_TTFT_NS] / 1e9);
	return NULL;
}

static int ex_empty(const struct tt_exchange *ex)
{
	for (int i = 0; i < TT_EX_STR_COUNT; i++)
		if (ex->str[i])
			return 0;
	return !ex->have && !ex->finish_given && !ex->token_times;
}

/*
 * The attributes: those of tt_exchange_order first, in its order, each from
 * the span's attributes or else from its typed exchange, then the others as
 * they come. Every writer's span is written alike.
 */
cJSON *tt_span_attrs_json(const struct tt_span *s)
{
	cJSON *at = cJSON_CreateObject(), *v;
	const cJSON *it;

	if (!s->attrs->child && ex_empty(&s->ex))
		return at;
	for (size_t r = 0; r < tt_exchange_order_count; r++) {
		const char *name = tt_exchange_order[r];

		if ((v = cJSON_GetObjectItemCaseSensitive(s->attrs, name)))
			cJSON_AddItemReferenceToObject(at, name, v);
		else if ((v = fact(&s->ex, s->attrs, name)))
			put(at, name, v);
	}
	cJSON_ArrayForEach(it, s->attrs)
		if (!ordered(it->string))
			cJSON_AddItemReferenceToObject(at, it->string, (cJSON *)it);
	return at;
}

static cJSON *counters_json(const struct tt_counters *k)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *values = put(o, "values", cJSON_CreateObject());
	cJSON *unavailable = put(o, "unavailable", cJSON_CreateObject());

	for (size_t c = 0; c < th_counter_name_count && c < TT_COUNTERS_MAX; c++) {
		if (k->have & (1u << c))
			put_u64(values, th_counter_name_table[c].name, k->val[c]);
		else if (k->unavail & (1u << c))
			put_str(unavailable, th_counter_name_table[c].name,
				k->why[c] ? k->why[c] : "unavailable");
	}
	return o;
}

cJSON *tt_span_json(const struct tt_span *s)
{
	cJSON *o = cJSON_CreateObject();

	put_id(o, "id", s->id);
	put_id(o, "parent", s->parent);
	put_str(o, "stage", s->stage);
	if (!s->st)
		put(o, "custom_stage", cJSON_CreateTrue());
	put_str(o, "domain", th_domains[s->domain].key);
	put_str(o, "category", th_categories[s->category].key);
	put_u64(o, "start_ns", s->start_ns);
	put_u64(o, "end_ns", s->end_ns);
	if (s->tid)
		put_u64(o, "tid", (uint64_t)s->tid);
	if (s->sched) {
		cJSON *sc = put(o, "sched", cJSON_CreateObject());

		if (s->sched & TT_SCHED_ON_CPU)
			put_u64(sc, "on_cpu_ns", s->on_cpu_ns);
		if (s->sched & TT_SCHED_RUNQ)
			put_u64(sc, "runq_ns", s->runq_ns);
		if (s->sched & TT_SCHED_BLOCKED)
			put_u64(sc, "blocked_ns", s->blocked_ns);
	}
	if (s->ctr)
		put(o, "counters", counters_json(s->ctr));
	put(o, "attributes", tt_span_attrs_json(s));
	return o;
}

cJSON *tt_mark_json(const struct tt_mark *m)
{
	cJSON *o = cJSON_CreateObject();

	put_str(o, "kind", m->kind);
	if (m->l3)
		put_str(o, "l3", m->l3);
	put_id(o, "span", m->span);
	put_u64(o, "t_ns", m->t_ns);
	if (m->counts)
		put_ref(o, "counts", m->counts);
	if (m->attrs)
		put_ref(o, "attributes", m->attrs);
	return o;
}

cJSON *tt_agent_json(const struct tt_agent *ag)
{
	cJSON *o = cJSON_CreateObject();

	put_str(o, "name", ag->name ? ag->name : "");
	if (ag->model)
		put_str(o, "model", ag->model);
	put_u64(o, "pid", (uint64_t)ag->pid);
	if (ag->start_time_ns)
		put_u64(o, "start_time_ns", ag->start_time_ns);
	if (ag->comm)
		put_str(o, "comm", ag->comm);
	if (ag->container_id)
		put_str(o, "container_id", ag->container_id);
	else if (ag->container_known)
		put(o, "container_id", cJSON_CreateNull());
	return o;
}

cJSON *tt_quality_json(const struct tt_quality *q)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *w = put(o, "warnings", cJSON_CreateArray());

	put_str(o, "tier", q->tier);
	put_u64(o, "dropped_events", q->dropped_events);
	put_u64(o, "truncated_payloads", q->truncated_payloads);
	if (q->has_non_llm_requests)
		put_u64(o, "non_llm_requests", q->non_llm_requests);
	if (q->tool_identity[0])
		put_str(o, "tool_identity", q->tool_identity);
	for (size_t i = 0; i < q->nwarnings; i++)
		cJSON_AddItemToArray(w, cJSON_CreateString(q->warnings[i]));
	return o;
}

cJSON *tt_anchor_json(const struct xp_clock_anchor *a)
{
	cJSON *o = cJSON_CreateObject();

	put_u64(o, "monotonic_ns", a->monotonic_ns);
	put_u64(o, "realtime_ns", a->realtime_ns);
	if (a->boot_id[0])
		put_str(o, "boot_id", a->boot_id);
	return o;
}

cJSON *tt_gpu_act_json(const struct tt_gpu_act *a)
{
	cJSON *o = cJSON_CreateObject();

	put_str(o, "kind", th_gpu_kind_names[a->kind]);
	if (a->have & TT_GPU_NAME)
		put_str(o, "name", a->name);
	put_u64(o, "start_ns", a->start_ns);
	put_u64(o, "end_ns", a->end_ns);
	if (a->have & TT_GPU_DEVICE)
		put_u64(o, "device", a->device);
	if (a->have & TT_GPU_STREAM)
		put_u64(o, "stream", a->stream);
	if (a->have & TT_GPU_CORR)
		put_u64(o, "correlation_id", a->correlation_id);
	if (a->have & TT_GPU_BYTES)
		put_u64(o, "bytes", a->bytes);
	return o;
}

cJSON *tt_gpu_json(const struct tt_gpu *g)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *acts = put(o, "activities", cJSON_CreateArray());

	for (size_t i = 0; i < g->nacts; i++)
		cJSON_AddItemToArray(acts, tt_gpu_act_json(&g->acts[i]));
	put_u64(o, "dropped_records", g->dropped);
	put_str(o, "source", g->source);
	return o;
}

static void marks_json(cJSON *doc, const char *key, const struct tt_mark *m, size_t n)
{
	cJSON *arr = put(doc, key, cJSON_CreateArray());

	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(arr, tt_mark_json(&m[i]));
}

cJSON *tt_turn_json(const struct tt_turn *t)
{
	cJSON *doc = cJSON_CreateObject(), *spans;

	put_str(doc, "schema_version", "1.0");
	put_str(doc, "session_id", t->session_id);
	put_u64(doc, "turn_index", (uint64_t)t->index);
	put(doc, "complete", cJSON_CreateBool(t->complete));
	put_str(doc, "source", t->source);
	put_str(doc, "clock", "CLOCK_MONOTONIC");
	if (t->has_anchor)
		put(doc, "clock_anchor", tt_anchor_json(&t->anchor));
	put_u64(doc, "start_ns", t->start_ns);
	put_u64(doc, "end_ns", t->end_ns);
	put(doc, "agent", tt_agent_json(&t->agent));
	spans = put(doc, "spans", cJSON_CreateArray());
	for (size_t i = 0; i < t->nspans; i++)
		cJSON_AddItemToArray(spans, tt_span_json(&t->spans[i]));
	marks_json(doc, "fused_marks", t->fused, t->nfused);
	marks_json(doc, "waste_marks", t->waste, t->nwaste);
	put(doc, "data_quality", tt_quality_json(&t->quality));
	if (t->gpu)
		put(doc, "gpu", tt_gpu_json(t->gpu));
	return doc;
}

char *tt_turn_text(const struct tt_turn *t)
{
	cJSON *doc = tt_turn_json(t);
	char *text = doc ? xp_json_print(doc, 1) : NULL;

	cJSON_Delete(doc);
	return text;
}

int tt_turn_save(const struct tt_turn *t, const char *path)
{
	char *text = tt_turn_text(t);
	int rc = text ? xp_write_file_atomic(path, text, strlen(text)) : -ENOMEM;

	free(text);
	return rc;
}

int tt_turn_write(const struct tt_turn *t, const char *dir, char *path, size_t pathlen)
{
	int rc = xp_mkdir_p(dir);

	snprintf(path, pathlen, "%s/turn_%03lld.json", dir, (long long)t->index);
	return rc ? rc : tt_turn_save(t, path);
}
