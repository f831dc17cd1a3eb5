/* SPDX-License-Identifier: MIT */
/*
 * vrules.c - the TurnTrace rules JSON Schema cannot express (schema/README.md,
 * "Rules beyond JSON Schema"): ordered times, everything inside the turn,
 * unique span ids, parents that exist, contain their children and form no
 * cycle, stages and waste L3 ids known to theory, sched parts that fit the
 * span, token times inside their span. Runs after vshape.c accepted the
 * document, so every field has its declared type. O(n log n) in spans.
 */
#include "schema/vcheck.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "theory/theory.h"

struct span {
	long long id, start, end;
	const cJSON *node;
	size_t index;    /* position in /spans */
	size_t parent;   /* index of the parent span, or SIZE_MAX */
};

struct turn {
	long long start, end;
	struct span *spans;  /* in document order */
	struct span **by_id; /* sorted by id */
	size_t n;
};

static const cJSON *get(const cJSON *obj, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(obj, key);
}

static long long get_ns(const cJSON *obj, const char *key)
{
	return sc_vint(get(obj, key));
}

/* A member that may be absent (0 then). */
static long long opt_ns(const cJSON *obj, const char *key)
{
	const cJSON *n = get(obj, key);

	return n ? sc_vint(n) : 0;
}

/* Report at member `key` of obj, whose pointer is the current one. */
#define ERR_AT(v, obj, key, ...)                                                           \
	do {                                                                               \
		size_t saved_ = sc_vctx_key((v), (key));                                   \
		sc_vctx_error((v), get((obj), (key)), __VA_ARGS__);                        \
		sc_vctx_up((v), saved_);                                                   \
	} while (0)

/* start_ns <= end_ns inside the turn, for an object with both. */
static void check_interval(struct sc_vctx *v, const struct turn *t, const cJSON *o)
{
	long long s = get_ns(o, "start_ns"), e = get_ns(o, "end_ns");

	if (e < s)
		ERR_AT(v, o, "end_ns", "end_ns %lld is before start_ns %lld", e, s);
	else if (s < t->start)
		ERR_AT(v, o, "start_ns", "start_ns %lld is before the turn's start_ns %lld", s,
		       t->start);
	else if (e > t->end)
		ERR_AT(v, o, "end_ns", "end_ns %lld is after the turn's end_ns %lld", e, t->end);
}

static void check_activity(struct sc_vctx *v, const struct turn *t, const cJSON *a)
{
	check_interval(v, t, a);
}

static int by_id(const void *a, const void *b)
{
	const struct span *x = *(struct span *const *)a, *y = *(struct span *const *)b;

	return x->id < y->id ? -1 : x->id > y->id ? 1 : x->index < y->index ? -1 : 1;
}

static const struct span *find(const struct turn *t, long long id)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->by_id[mid]->id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->n && t->by_id[lo]->id == id ? t->by_id[lo] : NULL;
}

static void check_sched(struct sc_vctx *v, const struct span *s)
{
	const cJSON *sched = get(s->node, "sched");
	double sum; /* three values near 2^63 would overflow a long long */

	if (!sched)
		return;
	sum = (double)opt_ns(sched, "on_cpu_ns") + (double)opt_ns(sched, "runq_ns") +
	      (double)opt_ns(sched, "blocked_ns");
	if (sum > (double)(s->end - s->start) + XP_SCHED_TOLERANCE_NS)
		ERR_AT(v, s->node, "sched",
		       "on_cpu_ns + runq_ns + blocked_ns = %.0f exceeds the span's %lld ns by more "
		       "than 1 ms", sum, s->end - s->start);
}

static void check_counters(struct sc_vctx *v, const cJSON *span)
{
	const cJSON *ctr = get(span, "counters"), *c;
	const cJSON *vals = ctr ? get(ctr, "values") : NULL;
	const cJSON *why = ctr ? get(ctr, "unavailable") : NULL;
	size_t saved;

	if (!vals || !why)
		return;
	saved = sc_vctx_key(v, "counters");
	cJSON_ArrayForEach(c, why) {
		if (get(vals, c->string)) {
			size_t s2 = sc_vctx_key(v, "unavailable");

			ERR_AT(v, why, c->string,
			       "counter \"%s\" is both in values and unavailable", c->string);
			sc_vctx_up(v, s2);
		}
	}
	sc_vctx_up(v, saved);
}

static void check_token_times(struct sc_vctx *v, const struct span *s)
{
	const cJSON *attrs = get(s->node, "attributes");
	const cJSON *times = attrs ? get(attrs, "xperf.token_times_ns") : NULL, *c;
	long long prev = s->start;
	size_t i = 0, saved, s2;

	if (!times)
		return;
	saved = sc_vctx_key(v, "attributes");
	s2 = sc_vctx_key(v, "xperf.token_times_ns");
	cJSON_ArrayForEach(c, times) {
		long long tt = sc_vint(c);
		size_t s3 = sc_vctx_index(v, i++);

		if (tt < prev || tt > s->end)
			sc_vctx_error(v, c, tt > s->end || tt < s->start
				      ? "token time %lld is outside the span [%lld, %lld]"
				      : "token time %lld goes backwards", tt, s->start, s->end);
		sc_vctx_up(v, s3);
		if (tt > prev)
			prev = tt;
		if (v->nerr > XP_VALIDATE_MAX_ERRORS)
			break;
	}
	sc_vctx_up(v, s2);
	sc_vctx_up(v, saved);
}

static void check_stage(struct sc_vctx *v, const cJSON *span)
{
	const char *stage = get(span, "stage")->valuestring;
	const cJSON *custom = get(span, "custom_stage");

	if (!th_stage_find(stage) && !cJSON_IsTrue(custom))
		ERR_AT(v, span, "stage",
		       "unknown stage \"%s\" (see `xperf theory`; set custom_stage for your own)",
		       stage);
}

static void check_parent(struct sc_vctx *v, const struct turn *t, struct span *s)
{
	const cJSON *pn = get(s->node, "parent");
	const struct span *p;

	if (cJSON_IsNull(pn))
		return;
	p = find(t, sc_vint(pn));
	if (!p)
		ERR_AT(v, s->node, "parent", "parent %lld is not a span of this turn", sc_vint(pn));
	else if (p == s)
		ERR_AT(v, s->node, "parent", "span %lld is its own parent", s->id);
	else if (p->start > s->start || p->end < s->end)
		ERR_AT(v, s->node, "parent", "parent %lld [%lld, %lld] does not contain this span "
		       "[%lld, %lld]", p->id, p->start, p->end, s->start, s->end);
	else
		s->parent = p->index;
}

/* Parent links that loop (possible only among equal intervals): walk each chain once. */
static void check_cycles(struct sc_vctx *v, struct turn *t)
{
	size_t *mark = calloc(t->n, sizeof(*mark)); /* 0 new, k+1 on walk k, SIZE_MAX done */

	if (!mark)
		return;
	for (size_t i = 0; i < t->n; i++) {
		size_t j = i;

		while (j != SIZE_MAX && mark[j] == 0) {
			mark[j] = i + 1;
			j = t->spans[j].parent;
		}
		if (j != SIZE_MAX && mark[j] == i + 1) {
			size_t saved = sc_vctx_index(v, j);

			ERR_AT(v, t->spans[j].node, "parent",
			       "parent chain of span %lld is a cycle", t->spans[j].id);
			sc_vctx_up(v, saved);
		}
		for (j = i; j != SIZE_MAX && mark[j] == i + 1; j = t->spans[j].parent)
			mark[j] = SIZE_MAX;
	}
	free(mark);
}

static void check_unique_ids(struct sc_vctx *v, const struct turn *t)
{
	for (size_t i = 1; i < t->n; i++) {
		const struct span *a = t->by_id[i - 1], *b = t->by_id[i];
		size_t saved;

		if (a->id != b->id)
			continue;
		saved = sc_vctx_index(v, b->index);
		ERR_AT(v, b->node, "id", "duplicate span id %lld (also /spans/%zu)", b->id,
		       a->index);
		sc_vctx_up(v, saved);
	}
}

static void check_spans(struct sc_vctx *v, struct turn *t)
{
	size_t base = sc_vctx_key(v, "spans");

	check_unique_ids(v, t);
	for (size_t i = 0; i < t->n && v->nerr <= XP_VALIDATE_MAX_ERRORS; i++) {
		struct span *s = &t->spans[i];
		size_t saved = sc_vctx_index(v, i);

		check_interval(v, t, s->node);
		check_parent(v, t, s);
		check_stage(v, s->node);
		check_sched(v, s);
		check_counters(v, s->node);
		check_token_times(v, s);
		sc_vctx_up(v, saved);
	}
	check_cycles(v, t);
	sc_vctx_up(v, base);
}

/* A mark's time inside the turn and its span, when given, a span of the turn. */
static void check_mark(struct sc_vctx *v, const struct turn *t, const cJSON *m)
{
	const cJSON *span = get(m, "span");
	long long ts = get_ns(m, "t_ns");

	if (ts < t->start || ts > t->end)
		ERR_AT(v, m, "t_ns", "t_ns %lld is outside the turn [%lld, %lld]", ts, t->start,
		       t->end);
	if (span && !cJSON_IsNull(span) && !find(t, sc_vint(span)))
		ERR_AT(v, m, "span", "span %lld is not a span of this turn", sc_vint(span));
}

static void check_fused(struct sc_vctx *v, const struct turn *t, const cJSON *m)
{
	const cJSON *attrs = get(m, "attributes");

	check_mark(v, t, m);
	if (!strcmp(get(m, "kind")->valuestring, "ttft") && !(attrs && get(attrs, "ttft_ns")))
		sc_vctx_error(v, m, "a ttft mark needs attributes.ttft_ns");
}

static void check_waste(struct sc_vctx *v, const struct turn *t, const cJSON *m)
{
	const char *id = get(m, "l3")->valuestring;
	const struct th_l3 *p = th_l3_find(id);
	const struct th_l2 *l2 = p ? th_l2_find(p->l2_id) : NULL;

	check_mark(v, t, m);
	if (!p)
		ERR_AT(v, m, "l3", "unknown L3 id \"%s\" (see `xperf theory`)", id);
	else if (!l2 || l2->category != XP_CAT_WASTE)
		ERR_AT(v, m, "l3", "L3 \"%s\" is not under a waste L2", id);
}

/* Apply fn to every element of the array at `key`, with the element's pointer. */
static void each(struct sc_vctx *v, const struct turn *t, const cJSON *root, const char *key,
		 void (*fn)(struct sc_vctx *, const struct turn *, const cJSON *))
{
	const cJSON *arr = get(root, key), *c;
	size_t base = sc_vctx_key(v, key), i = 0;

	cJSON_ArrayForEach(c, arr) {
		size_t saved = sc_vctx_index(v, i++);

		fn(v, t, c);
		sc_vctx_up(v, saved);
		if (v->nerr > XP_VALIDATE_MAX_ERRORS)
			break;
	}
	sc_vctx_up(v, base);
}

static int load_spans(struct turn *t, const cJSON *spans)
{
	const cJSON *c;
	size_t i = 0;

	t->n = (size_t)cJSON_GetArraySize(spans);
	t->spans = calloc(t->n ? t->n : 1, sizeof(*t->spans));
	t->by_id = calloc(t->n ? t->n : 1, sizeof(*t->by_id));
	if (!t->spans || !t->by_id)
		return -1;
	cJSON_ArrayForEach(c, spans) {
		struct span *s = &t->spans[i];

		s->id = get_ns(c, "id");
		s->start = get_ns(c, "start_ns");
		s->end = get_ns(c, "end_ns");
		s->node = c;
		s->index = i;
		s->parent = SIZE_MAX;
		t->by_id[i++] = s;
	}
	qsort(t->by_id, t->n, sizeof(*t->by_id), by_id);
	return 0;
}

void sc_vrules_turn(struct sc_vctx *v, const cJSON *root)
{
	struct turn t = { .start = get_ns(root, "start_ns"), .end = get_ns(root, "end_ns") };
	const cJSON *gpu = get(root, "gpu");

	if (t.end < t.start) {
		ERR_AT(v, root, "end_ns", "end_ns %lld is before start_ns %lld", t.end, t.start);
		return; /* every containment check would fail too */
	}
	if (load_spans(&t, get(root, "spans"))) {
		sc_vctx_error(v, root, "out of memory");
	} else {
		check_spans(v, &t);
		each(v, &t, root, "fused_marks", check_fused);
		each(v, &t, root, "waste_marks", check_waste);
		if (gpu) {
			size_t saved = sc_vctx_key(v, "gpu");

			each(v, &t, gpu, "activities", check_activity);
			sc_vctx_up(v, saved);
		}
	}
	free(t.spans);
	free(t.by_id);
}
