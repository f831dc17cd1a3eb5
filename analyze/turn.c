// SPDX-License-Identifier: MIT
/*
 * turn.c - build the analyzer's view of one turn (struct xa_trace) from a
 * TurnTrace document. The validator has normally checked the document, but
 * this code trusts nothing: any field it needs that is missing, mistyped or
 * out of range makes it refuse the turn (-1), so that the fuzz target can feed
 * it arbitrary JSON. Waste marks are bound to spans here; span-less marks go
 * to the innermost span covering their instant.
 */
#include "analyze/model.h"

#include <stdlib.h>
#include <string.h>

#include "lib/json_int.h"

const char *const xa_attr_names[XA_A_COUNT] = {
	"gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens",
	"gen_ai.usage.cache_read.input_tokens", "xperf.ttft_ns", "http.response.status_code",
	"process.exit.code", "http.response.body.size", "gen_ai.usage.cache_creation.input_tokens",
	"gen_ai.usage.reasoning.output_tokens",
};

/* A finite number well inside the int64 range (so that conversions are defined). */
static int in_range(const cJSON *n)
{
	return cJSON_IsNumber(n) && n->valuedouble > -4.6e18 && n->valuedouble < 4.6e18;
}

/* A non-negative integer nanosecond value, exact (lib/json_int.h), at most XA_NS_MAX. */
static int ns_of(const cJSON *n, uint64_t *out)
{
	uint64_t v;

	if (xp_json_get_u64(n, &v) || v > XA_NS_MAX)
		return -1;
	*out = v;
	return 0;
}

static int get_ns(const cJSON *o, const char *key, uint64_t *out)
{
	return ns_of(cJSON_GetObjectItemCaseSensitive(o, key), out);
}

/* An integer id (span ids, parents, turn index); -1 when not a number in int64 range. */
static int as_id(const cJSON *n, int64_t *out)
{
	return in_range(n) ? xp_json_get_i64(n, out) : -1;
}

static void copy_str(char *dst, size_t len, const cJSON *n, const char *dflt)
{
	const char *s = cJSON_IsString(n) ? n->valuestring : dflt;
	size_t k = strnlen(s, len - 1);

	memcpy(dst, s, k);
	dst[k] = '\0';
}

static void read_counters(struct xa_span *s, const cJSON *c)
{
	const cJSON *vals = cJSON_GetObjectItemCaseSensitive(c, "values");
	const cJSON *un = cJSON_GetObjectItemCaseSensitive(c, "unavailable");
	const cJSON *it;

	cJSON_ArrayForEach(it, vals) {
		for (size_t i = 0; i < xp_counter_name_count && it->string; i++) {
			if (strcmp(xp_counter_name_table[i].name, it->string) || !in_range(it))
				continue;
			s->var[i] = it->valuedouble;
			s->var_have |= 1u << i;
		}
	}
	cJSON_ArrayForEach(it, un) {
		for (size_t i = 0; i < xp_counter_name_count && it->string; i++)
			if (!strcmp(xp_counter_name_table[i].name, it->string))
				s->var_unavail |= 1u << i;
		if (!s->why[0] && cJSON_IsString(it))
			snprintf(s->why, sizeof(s->why), "%s", it->valuestring);
	}
}

static void read_attrs(struct xa_span *s, const cJSON *a)
{
	const cJSON *fr = cJSON_GetObjectItemCaseSensitive(a, "gen_ai.response.finish_reasons");
	const cJSON *tt = cJSON_GetObjectItemCaseSensitive(a, "xperf.token_times_ns");
	const cJSON *it;

	for (int i = 0; i < XA_A_COUNT; i++) {
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(a, xa_attr_names[i]);

		if (in_range(n)) {
			s->attr[i] = n->valuedouble;
			s->attr_have |= 1u << i;
		}
	}
	copy_str(s->model, sizeof(s->model), cJSON_GetObjectItemCaseSensitive(a,
		 "gen_ai.response.model"), "");
	if (!s->model[0])
		copy_str(s->model, sizeof(s->model), cJSON_GetObjectItemCaseSensitive(a,
			 "gen_ai.request.model"), "");
	cJSON_ArrayForEach(it, fr) {
		if (cJSON_IsString(it) && (!strcmp(it->valuestring, "length") ||
					   !strcmp(it->valuestring, "max_tokens")))
			s->finish_length = 1;
	}
	int n = cJSON_IsArray(tt) ? cJSON_GetArraySize(tt) : 0;

	if (n <= 0 || !(s->tok_times = calloc((size_t)n, sizeof(*s->tok_times))))
		return;
	cJSON_ArrayForEach(it, tt) {
		uint64_t t;

		if (!ns_of(it, &t))
			s->tok_times[s->ntok++] = (int64_t)t;
	}
}

static int read_span(const cJSON *j, const struct xa_trace *tr, struct xa_span *s)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(j, "id");
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(j, "stage");
	const cJSON *dom = cJSON_GetObjectItemCaseSensitive(j, "domain");
	const cJSON *cat = cJSON_GetObjectItemCaseSensitive(j, "category");
	const cJSON *sched = cJSON_GetObjectItemCaseSensitive(j, "sched");

	memset(s, 0, sizeof(*s));
	if (as_id(id, &s->id) || !cJSON_IsString(st) || get_ns(j, "start_ns", &s->start) ||
	    get_ns(j, "end_ns", &s->end) || s->start > s->end || s->start < tr->start ||
	    s->end > tr->end)
		return -1;
	if (!cJSON_IsString(dom) || xp_domain_parse(dom->valuestring, &s->declared))
		return -1;
	if (!cJSON_IsString(cat) || xp_category_parse(cat->valuestring, &s->declared_cat))
		return -1;
	s->parent = -1;
	s->domain = s->declared;
	copy_str(s->stage_name, sizeof(s->stage_name), st, "");
	s->stage = xp_stage_find(st->valuestring);
	if (sched && !get_ns(sched, "on_cpu_ns", &s->on_cpu) &&
	    !get_ns(sched, "runq_ns", &s->runq) && !get_ns(sched, "blocked_ns", &s->blocked)) {
		s->has_sched = 1;
		s->var[xp_counter_name_count] = (double)s->runq;
		s->var[xp_counter_name_count + 1] = (double)s->on_cpu;
		s->var_have |= 3u << xp_counter_name_count;
	}
	read_counters(s, cJSON_GetObjectItemCaseSensitive(j, "counters"));
	read_attrs(s, cJSON_GetObjectItemCaseSensitive(j, "attributes"));
	return 0;
}

struct id_ix {
	int64_t id;
	int ix;
};

static int cmp_id(const void *a, const void *b)
{
	const struct id_ix *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Index of the span with this id, -1 when none (tr->ids is sorted by id). */
static int find_span(const struct xa_trace *tr, int64_t id)
{
	const struct id_ix key = { id, 0 }, *hit;

	hit = bsearch(&key, tr->ids, tr->nspans, sizeof(*tr->ids), cmp_id);
	return hit ? hit->ix : -1;
}

/* The span a mark or parent field names: its index, -1 for null, -2 for an unknown id. */
static int span_ref(const struct xa_trace *tr, const cJSON *n)
{
	int64_t id;
	int s;

	if (!n || cJSON_IsNull(n))
		return -1;
	if (as_id(n, &id))
		return -2;
	s = find_span(tr, id);
	return s < 0 ? -2 : s;
}

/* Resolve parents and depths; refuses unknown parents, cycles and duplicate ids. */
static int link_spans(struct xa_trace *tr, const cJSON *arr)
{
	const cJSON *j;
	size_t i;

	if (!(tr->ids = calloc(tr->nspans + 1, sizeof(*tr->ids))))
		return -1;
	for (i = 0; i < tr->nspans; i++)
		tr->ids[i] = (struct id_ix){ tr->spans[i].id, (int)i };
	qsort(tr->ids, tr->nspans, sizeof(*tr->ids), cmp_id);
	i = 0;
	cJSON_ArrayForEach(j, arr) {
		const cJSON *p = cJSON_GetObjectItemCaseSensitive(j, "parent");
		struct xa_span *s = &tr->spans[i];

		if (find_span(tr, s->id) != (int)i)
			return -1;
		s->parent = span_ref(tr, p);
		if (s->parent < -1 || s->parent == (int)i)
			return -1;
		i++;
	}
	for (i = 0; i < tr->nspans; i++) {
		int d = 0;

		for (int p = tr->spans[i].parent; p >= 0; p = tr->spans[p].parent)
			if (++d > (int)tr->nspans)
				return -1;
		tr->spans[i].depth = d;
	}
	return 0;
}

/* The innermost span covering instant t (deepest, then shortest), or -1. */
static int innermost_at(const struct xa_trace *tr, uint64_t t)
{
	int best = -1;

	for (size_t i = 0; i < tr->nspans; i++) {
		const struct xa_span *s = &tr->spans[i], *b = best >= 0 ? &tr->spans[best] : NULL;

		if (t < s->start || t > s->end)
			continue;
		if (!b || s->depth > b->depth ||
		    (s->depth == b->depth && s->end - s->start < b->end - b->start))
			best = (int)i;
	}
	return best;
}

static int read_marks(struct xa_trace *tr, const cJSON *doc)
{
	const cJSON *m;

	cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(doc, "waste_marks")) {
		const cJSON *l3 = cJSON_GetObjectItemCaseSensitive(m, "l3");
		const cJSON *sp = cJSON_GetObjectItemCaseSensitive(m, "span");
		int idx = cJSON_IsString(l3) ? xa_l3_index(l3->valuestring) : -1;
		uint64_t t = 0;
		int s;

		if (idx < 0 || get_ns(m, "t_ns", &t))
			return -1;
		tr->mark_count[idx]++;
		s = span_ref(tr, sp);
		if (s == -2)
			return -1;
		if (s == -1)
			s = innermost_at(tr, t);
		if (s >= 0 && !tr->spans[s].waste_l3)
			tr->spans[s].waste_l3 = xp_l3_table[idx].id;
	}
	cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(doc, "fused_marks")) {
		const cJSON *k = cJSON_GetObjectItemCaseSensitive(m, "kind");
		const cJSON *sp = cJSON_GetObjectItemCaseSensitive(m, "span");
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(m, "attributes");
		uint64_t ttft;
		int s = span_ref(tr, sp);

		if (!cJSON_IsString(k) || strcmp(k->valuestring, "ttft"))
			continue;
		tr->ttft_marks++;
		if (s >= 0 && (!get_ns(m, "ttft_ns", &ttft) || !get_ns(a, "ttft_ns", &ttft)) &&
		    !(tr->spans[s].attr_have & (1u << XA_A_TTFT_NS))) {
			tr->spans[s].attr[XA_A_TTFT_NS] = (double)ttft;
			tr->spans[s].attr_have |= 1u << XA_A_TTFT_NS;
		}
	}
	return 0;
}

static void read_quality(struct xa_trace *tr, const cJSON *doc)
{
	const cJSON *dq = cJSON_GetObjectItemCaseSensitive(doc, "data_quality");
	const cJSON *w = cJSON_GetObjectItemCaseSensitive(dq, "warnings");

	copy_str(tr->head.tier, sizeof(tr->head.tier),
		 cJSON_GetObjectItemCaseSensitive(dq, "tier"), "?");
	get_ns(dq, "dropped_events", &tr->dropped_events);
	get_ns(dq, "truncated_payloads", &tr->truncated_payloads);
	tr->warnings = cJSON_IsArray(w) ? (unsigned)cJSON_GetArraySize(w) : 0;
	const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(dq, "tool_identity"));

	tr->tool_identity_unknown = id && !strcmp(id, "unknown");
}

int xa_trace_from_json(const cJSON *doc, const char *path, struct xa_trace *tr)
{
	const cJSON *spans = cJSON_GetObjectItemCaseSensitive(doc, "spans");
	const cJSON *ti = cJSON_GetObjectItemCaseSensitive(doc, "turn_index");
	const cJSON *j, *agent;
	int n = cJSON_IsArray(spans) ? cJSON_GetArraySize(spans) : -1;

	memset(tr, 0, sizeof(*tr));
	copy_str(tr->head.path, sizeof(tr->head.path), NULL, path ? path : "<buffer>");
	if (n < 0 || as_id(ti, &tr->head.turn_index) || get_ns(doc, "start_ns", &tr->start) ||
	    get_ns(doc, "end_ns", &tr->end) || tr->start > tr->end)
		return -1;
	tr->head.complete = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(doc, "complete"));
	copy_str(tr->head.session_id, sizeof(tr->head.session_id),
		 cJSON_GetObjectItemCaseSensitive(doc, "session_id"), "?");
	copy_str(tr->head.source, sizeof(tr->head.source),
		 cJSON_GetObjectItemCaseSensitive(doc, "source"), "?");
	agent = cJSON_GetObjectItemCaseSensitive(doc, "agent");
	copy_str(tr->head.agent, sizeof(tr->head.agent),
		 cJSON_GetObjectItemCaseSensitive(agent, "name"), "?");
	as_id(cJSON_GetObjectItemCaseSensitive(agent, "pid"), &tr->head.pid);
	tr->cap = (size_t)n + 1;
	if (!(tr->spans = calloc(tr->cap, sizeof(*tr->spans))))
		return -1;
	cJSON_ArrayForEach(j, spans) {
		if (read_span(j, tr, &tr->spans[tr->nspans]))
			return -1;
		tr->nspans++;
	}
	if (link_spans(tr, spans) || read_marks(tr, doc) || xa_gpu_stats(tr, doc))
		return -1;
	read_quality(tr, doc);
	return 0;
}

void xa_trace_free(struct xa_trace *tr)
{
	for (size_t i = 0; tr->spans && i < tr->nspans; i++)
		free(tr->spans[i].tok_times);
	free(tr->spans);
	free(tr->ids);
	free(tr->segs);
	memset(tr, 0, sizeof(*tr));
}
