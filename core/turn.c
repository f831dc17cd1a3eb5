/* SPDX-License-Identifier: MIT */
/*
 * turn.c - building and freeing a struct tt_turn, and its span id index.
 */
#include "core/turn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"

int tt_str_set(char **dst, const char *src)
{
	char *copy = src ? strdup(src) : NULL;

	if (src && !copy)
		return -1;
	free(*dst);
	*dst = copy;
	return 0;
}

struct tt_turn *tt_turn_new(const char *session_id, int64_t index, const char *source,
			    const char *tier)
{
	struct tt_turn *t = calloc(1, sizeof(*t));

	if (!t || tt_str_set(&t->session_id, session_id)) {
		free(t);
		return NULL;
	}
	t->index = index;
	snprintf(t->source, sizeof(t->source), "%s", source);
	snprintf(t->quality.tier, sizeof(t->quality.tier), "%s", tier);
	return t;
}

static void span_free(struct tt_span *s)
{
	free(s->stage);
	for (int i = 0; s->ctr && i < TT_COUNTERS_MAX; i++)
		free(s->ctr->why[i]);
	free(s->ctr);
	cJSON_Delete(s->attrs);
	tt_exchange_free(&s->ex);
}

static void marks_free(struct tt_mark *m, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(m[i].kind);
		cJSON_Delete(m[i].counts);
		cJSON_Delete(m[i].attrs);
	}
	free(m);
}

void tt_turn_free(struct tt_turn *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nspans; i++)
		span_free(&t->spans[i]);
	free(t->spans);
	marks_free(t->fused, t->nfused);
	marks_free(t->waste, t->nwaste);
	for (size_t i = 0; i < t->quality.nwarnings; i++)
		free(t->quality.warnings[i]);
	free(t->quality.warnings);
	free(t->agent.name);
	free(t->agent.model);
	free(t->agent.comm);
	free(t->agent.container_id);
	free(t->session_id);
	free(t->ids);
	tt_gpu_free(t->gpu);
	free(t);
}

struct tt_span *tt_span_add(struct tt_turn *t, int64_t parent, const char *stage,
			    uint64_t start_ns, uint64_t end_ns, int64_t tid)
{
	struct tt_span *s;

	if (xp_grow((void **)&t->spans, &t->scap, t->nspans + 1, sizeof(*s)))
		return NULL;
	s = &t->spans[t->nspans];
	memset(s, 0, sizeof(*s));
	s->stage = strdup(stage);
	s->attrs = cJSON_CreateObject();
	if (!s->stage || !s->attrs) {
		span_free(s);
		return NULL;
	}
	s->id = (int64_t)++t->nspans;
	s->parent = parent;
	s->st = th_stage_find(stage);
	s->start_ns = start_ns;
	s->end_ns = end_ns;
	s->tid = tid;
	s->parent_ix = -1;
	free(t->ids); /* the index is rebuilt on demand */
	t->ids = NULL;
	return s;
}

struct tt_counters *tt_span_counters(struct tt_span *s)
{
	return s->ctr ? s->ctr : (s->ctr = calloc(1, sizeof(*s->ctr)));
}

struct tt_mark *tt_mark_add(struct tt_turn *t, const char *kind, const char *l3, int64_t span,
			    uint64_t t_ns)
{
	struct tt_mark **arr = l3 ? &t->waste : &t->fused;
	size_t *n = l3 ? &t->nwaste : &t->nfused, *cap = l3 ? &t->wcap : &t->fcap;
	struct tt_mark *m;

	if (xp_grow((void **)arr, cap, *n + 1, sizeof(*m)))
		return NULL;
	m = &(*arr)[*n];
	*m = (struct tt_mark){ .l3 = l3, .span = span, .t_ns = t_ns, .span_ix = -1 };
	m->kind = strdup(kind);
	m->attrs = cJSON_CreateObject();
	if (!m->kind || !m->attrs) {
		free(m->kind);
		cJSON_Delete(m->attrs);
		return NULL;
	}
	(*n)++;
	return m;
}

int tt_warn(struct tt_turn *t, const char *warning)
{
	struct tt_quality *q = &t->quality;

	for (size_t i = 0; i < q->nwarnings; i++)
		if (!strcmp(q->warnings[i], warning))
			return 0;
	if (xp_grow((void **)&q->warnings, &q->wcap, q->nwarnings + 1, sizeof(char *)) ||
	    !(q->warnings[q->nwarnings] = strdup(warning)))
		return -1;
	q->nwarnings++;
	return 0;
}

static int by_id(const void *a, const void *b)
{
	int64_t x = ((const struct tt_id_ix *)a)->id, y = ((const struct tt_id_ix *)b)->id;

	return (x > y) - (x < y);
}

int tt_span_index(const struct tt_turn *t, int64_t id)
{
	const struct tt_id_ix key = { id, -1 }, *hit;

	if (!t->ids) {
		for (size_t i = 0; i < t->nspans; i++)
			if (t->spans[i].id == id)
				return (int)i;
		return -1;
	}
	hit = bsearch(&key, t->ids, t->nspans, sizeof(key), by_id);
	return hit ? hit->ix : -1;
}

int tt_turn_index(struct tt_turn *t)
{
	free(t->ids);
	if (!(t->ids = calloc(t->nspans + 1, sizeof(*t->ids))))
		return -1;
	for (size_t i = 0; i < t->nspans; i++)
		t->ids[i] = (struct tt_id_ix){ t->spans[i].id, (int)i };
	qsort(t->ids, t->nspans, sizeof(*t->ids), by_id);
	for (size_t i = 0; i + 1 < t->nspans; i++)
		if (t->ids[i].id == t->ids[i + 1].id)
			return -1;
	for (size_t i = 0; i < t->nspans; i++) {
		struct tt_span *s = &t->spans[i];

		s->parent_ix = s->parent ? tt_span_index(t, s->parent) : -1;
		if ((s->parent && s->parent_ix < 0) || s->parent_ix == (int)i)
			return -1;
	}
	for (size_t i = 0; i < t->nspans; i++) {
		int d = 0;

		for (int p = t->spans[i].parent_ix; p >= 0; p = t->spans[p].parent_ix)
			if (++d > (int)t->nspans)
				return -1;
		t->spans[i].depth = d;
	}
	return 0;
}
