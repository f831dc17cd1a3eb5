/* SPDX-License-Identifier: MIT */
/*
 * read.c - validated TurnTrace documents -> struct tt_turn (read.h). The
 * conversion trusts nothing (the fuzz targets feed it unvalidated JSON):
 * what a reader needs (times, spans, ids, marks' L3) missing or mistyped
 * refuses the turn; labels missing (session, agent, data quality) read as "?".
 */
#include "core/read.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json_int.h"

struct rd {
	struct tt_turn *t;
	char *err;
	size_t errlen;
};

static int fail(struct rd *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, r->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static const cJSON *get(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* A non-negative integer, exact; -1 when absent or not one. */
static int u64_of(const cJSON *o, const char *key, uint64_t *out)
{
	return xp_json_get_u64(get(o, key), out);
}

/* An id: a positive integer, or 0 for null/absent; -1 otherwise. */
static int id_of(const cJSON *o, const char *key, int64_t *out)
{
	const cJSON *n = get(o, key);

	*out = 0;
	if (!n || cJSON_IsNull(n))
		return 0;
	return xp_json_get_i64(n, out) || *out < 1 ? -1 : 0;
}

static int str_of(const cJSON *o, const char *key, char **out)
{
	const cJSON *n = get(o, key);

	return cJSON_IsString(n) ? tt_str_set(out, n->valuestring) : 0;
}

/* Moves o[key] (an object) out of the document; NULL when absent or not an object. */
static cJSON *take(cJSON *o, const char *key)
{
	cJSON *n = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsObject(n) ? cJSON_DetachItemViaPointer(o, n) : NULL;
}

static void read_counters(struct tt_span *s, const cJSON *c)
{
	const cJSON *it;

	if (!cJSON_IsObject(c))
		return;
	s->counters = 1;
	for (size_t i = 0; i < th_counter_name_count && i < TT_COUNTERS_MAX; i++) {
		const char *name = th_counter_name_table[i].name;
		const cJSON *why = get(get(c, "unavailable"), name);

		it = get(get(c, "values"), name);
		if (it && !xp_json_get_u64(it, &s->ctr[i]))
			s->ctr_have |= 1u << i;
		else if (cJSON_IsNumber(it) && it->valuedouble >= 0 && it->valuedouble < 1.8e19)
			s->ctr[i] = (uint64_t)it->valuedouble, s->ctr_have |= 1u << i;
		if (why) {
			s->ctr_unavail |= 1u << i;
			tt_str_set(&s->ctr_why[i], cJSON_GetStringValue(why));
		}
	}
}

static void read_sched(struct tt_span *s, const cJSON *o)
{
	if (!u64_of(o, "on_cpu_ns", &s->on_cpu_ns))
		s->sched |= TT_SCHED_ON_CPU;
	if (!u64_of(o, "runq_ns", &s->runq_ns))
		s->sched |= TT_SCHED_RUNQ;
	if (!u64_of(o, "blocked_ns", &s->blocked_ns))
		s->sched |= TT_SCHED_BLOCKED;
}

static int read_span(struct rd *r, cJSON *j, int i)
{
	const cJSON *stage = get(j, "stage"), *dom = get(j, "domain"), *cat = get(j, "category");
	uint64_t a, b;
	int64_t id, parent;
	struct tt_span *s;

	if (!cJSON_IsObject(j) || !cJSON_IsString(stage) || id_of(j, "id", &id) || id < 1 ||
	    id_of(j, "parent", &parent) || u64_of(j, "start_ns", &a) || u64_of(j, "end_ns", &b))
		return fail(r, "/spans/%d: id, parent, stage, start_ns or end_ns missing or bad", i);
	if (!cJSON_IsString(dom) || !cJSON_IsString(cat))
		return fail(r, "/spans/%d: domain or category missing", i);
	if (!(s = tt_span_add(r->t, parent, stage->valuestring, a, b, 0)))
		return fail(r, "out of memory");
	s->id = id;
	if (th_domain_parse(dom->valuestring, &s->domain) ||
	    th_category_parse(cat->valuestring, &s->category))
		return fail(r, "/spans/%d: unknown domain or category", i);
	if (cJSON_IsTrue(get(j, "custom_stage")))
		s->st = NULL;
	id_of(j, "tid", &s->tid);
	read_sched(s, get(j, "sched"));
	read_counters(s, get(j, "counters"));
	cJSON *attrs = take(j, "attributes");

	if (attrs) {
		cJSON_Delete(s->attrs);
		s->attrs = attrs;
	}
	return tt_exchange_read(s) ? fail(r, "out of memory") : 0;
}

static int read_mark(struct rd *r, cJSON *j, const char *list, int i)
{
	const cJSON *kind = get(j, "kind"), *l3 = get(j, "l3");
	const struct th_l3 *p = cJSON_IsString(l3) ? th_l3_find(l3->valuestring) : NULL;
	int waste = !strcmp(list, "waste_marks");
	struct tt_mark *m;
	int64_t span;
	uint64_t t;

	if (!cJSON_IsObject(j) || !cJSON_IsString(kind) || u64_of(j, "t_ns", &t) ||
	    id_of(j, "span", &span) || (waste && !p))
		return fail(r, "/%s/%d: kind, l3, t_ns or span missing or bad", list, i);
	if (!(m = tt_mark_add(r->t, kind->valuestring, waste ? p->id : NULL, span, t)))
		return fail(r, "out of memory");
	cJSON_Delete(m->attrs);
	m->attrs = take(j, "attributes");
	m->counts = take(j, "counts");
	return 0;
}

/* Each element is removed from doc once read: a large turn is not held twice. */
static int read_list(struct rd *r, cJSON *doc, const char *list)
{
	cJSON *arr = (cJSON *)get(doc, list), *j;
	int i = 0;

	if (!cJSON_IsArray(arr) && (arr || !strcmp(list, "spans")))
		return fail(r, "/%s: missing", list);
	while (arr && (j = arr->child)) {
		if (strcmp(list, "spans") ? read_mark(r, j, list, i) : read_span(r, j, i))
			return -1;
		cJSON_Delete(cJSON_DetachItemViaPointer(arr, j));
		i++;
	}
	return 0;
}

static int read_agent(struct rd *r, const cJSON *a)
{
	struct tt_agent *ag = &r->t->agent;
	const cJSON *c = get(a, "container_id");

	if (a && (!cJSON_IsObject(a) || id_of(a, "pid", &ag->pid)))
		return fail(r, "/agent: not an object with a pid");
	u64_of(a, "start_time_ns", &ag->start_time_ns);
	ag->container_known = c != NULL;
	return str_of(a, "name", &ag->name) || str_of(a, "model", &ag->model) ||
	       str_of(a, "comm", &ag->comm) || str_of(a, "container_id", &ag->container_id)
		       ? fail(r, "out of memory") : 0;
}

static int read_quality(struct rd *r, const cJSON *q)
{
	struct tt_quality *tq = &r->t->quality;
	const cJSON *w;

	snprintf(tq->tier, sizeof(tq->tier), "%s",
		 cJSON_IsString(get(q, "tier")) ? get(q, "tier")->valuestring : "?");
	u64_of(q, "dropped_events", &tq->dropped_events);
	u64_of(q, "truncated_payloads", &tq->truncated_payloads);
	tq->has_non_llm_requests = !u64_of(q, "non_llm_requests", &tq->non_llm_requests);
	snprintf(tq->tool_identity, sizeof(tq->tool_identity), "%s",
		 cJSON_IsString(get(q, "tool_identity")) ? get(q, "tool_identity")->valuestring : "");
	cJSON_ArrayForEach(w, get(q, "warnings"))
		if (cJSON_IsString(w) && tt_warn(r->t, w->valuestring))
			return fail(r, "out of memory");
	return 0;
}

static void read_anchor(struct tt_turn *t, const cJSON *a)
{
	const char *boot = cJSON_GetStringValue(get(a, "boot_id"));

	t->has_anchor = !u64_of(a, "monotonic_ns", &t->anchor.monotonic_ns) &&
			!u64_of(a, "realtime_ns", &t->anchor.realtime_ns);
	snprintf(t->anchor.boot_id, sizeof(t->anchor.boot_id), "%s",
		 t->has_anchor && boot ? boot : "");
}

static int read_turn(struct rd *r, cJSON *doc)
{
	struct tt_turn *t = r->t;
	const cJSON *src = get(doc, "source");

	if (u64_of(doc, "start_ns", &t->start_ns) || u64_of(doc, "end_ns", &t->end_ns) ||
	    t->start_ns > t->end_ns || xp_json_get_i64(get(doc, "turn_index"), &t->index))
		return fail(r, "/: turn_index, start_ns or end_ns missing or bad");
	t->complete = cJSON_IsTrue(get(doc, "complete"));
	read_anchor(t, get(doc, "clock_anchor"));
	snprintf(t->source, sizeof(t->source), "%s", cJSON_IsString(src) ? src->valuestring : "?");
	if (read_agent(r, get(doc, "agent")) || read_list(r, doc, "spans") ||
	    read_list(r, doc, "fused_marks") || read_list(r, doc, "waste_marks") ||
	    read_quality(r, get(doc, "data_quality")))
		return -1;
	t->gpu = take(doc, "gpu");
	if (tt_turn_index(t))
		return fail(r, "/spans: duplicate ids, unknown parents or a parent cycle");
	tt_turn_bind_waste(t);
	for (size_t i = 0; i < t->nwaste; i++)
		if (t->waste[i].span && t->waste[i].span_ix < 0)
			return fail(r, "/waste_marks/%zu/span: no such span", i);
	return 0;
}

struct tt_turn *tt_turn_from_json(cJSON *doc, char *err, size_t errlen)
{
	const cJSON *sid = get(doc, "session_id");
	struct rd r = { NULL, err, errlen };

	if (!cJSON_IsObject(doc)) {
		fail(&r, "/: not an object");
		return NULL;
	}
	if (!(r.t = tt_turn_new(cJSON_IsString(sid) ? sid->valuestring : "?", 0, "?", "?"))) {
		fail(&r, "out of memory");
		return NULL;
	}
	if (read_turn(&r, doc)) {
		tt_turn_free(r.t);
		return NULL;
	}
	return r.t;
}

/* A conversion failure of a validated document, as one more error. */
static struct tt_turn *convert(const char *name, cJSON *doc, sc_verror_fn cb, void *ctx,
			       int *nerr)
{
	struct sc_verror e = { .file = name ? name : "<buffer>" };
	struct tt_turn *t = doc ? tt_turn_from_json(doc, e.msg, sizeof(e.msg)) : NULL;

	if (doc && !t) {
		if (cb)
			cb(&e, ctx);
		if (nerr)
			(*nerr)++;
	}
	cJSON_Delete(doc);
	return t;
}

struct tt_turn *tt_turn_load(const char *path, sc_verror_fn cb, void *ctx, int *nerr)
{
	return convert(path, sc_load_turn(path, cb, ctx, nerr), cb, ctx, nerr);
}

struct tt_turn *tt_turn_load_buffer(const char *name, const char *buf, size_t len,
				    sc_verror_fn cb, void *ctx, int *nerr)
{
	return convert(name, sc_load_turn_buffer(name, buf, len, cb, ctx, nerr), cb, ctx, nerr);
}
