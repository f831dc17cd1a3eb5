// SPDX-License-Identifier: MIT
/*
 * span.c - read a validated turn for the formats: its span table (sorted by
 * start, longer first, parents resolved to indexes) and the few derived
 * values both formats show (display name, failure, L3 home).
 */
#include "export/walk.h"

#include <stdlib.h>
#include <string.h>

static int by_time(const void *a, const void *b)
{
	const struct tt_span *x = ((const struct xe_span *)a)->ts, *y = ((const struct xe_span *)b)->ts;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	if (x->end_ns != y->end_ns)
		return x->end_ns > y->end_ns ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

/* Ids with their index in the sorted table, sorted by id: parent and mark lookups. */
struct xe_id_ix {
	int64_t id;
	int ix;
};

static int by_id(const void *a, const void *b)
{
	int64_t x = ((const struct xe_id_ix *)a)->id, y = ((const struct xe_id_ix *)b)->id;

	return (x > y) - (x < y);
}

int xe_span_find(const struct xe_turn *t, int64_t id)
{
	struct xe_id_ix key = { id, -1 };
	const struct xe_id_ix *hit =
		id ? bsearch(&key, t->ids, t->nspans, sizeof(key), by_id) : NULL;

	return hit ? hit->ix : -1;
}

int xe_spans_build(struct xe_turn *t)
{
	size_t n = t->turn->nspans;

	t->spans = calloc(n + 1, sizeof(*t->spans));
	t->ids = calloc(n + 1, sizeof(*t->ids));
	if (!t->spans || !t->ids)
		return -1;
	for (size_t i = 0; i < n; i++)
		t->spans[i] = (struct xe_span){ &t->turn->spans[i], -1 };
	qsort(t->spans, n, sizeof(*t->spans), by_time);
	for (size_t i = 0; i < n; i++)
		t->ids[i] = (struct xe_id_ix){ t->spans[i].ts->id, (int)i };
	qsort(t->ids, n, sizeof(*t->ids), by_id);
	t->nspans = n;
	for (size_t i = 0; i < n; i++)
		t->spans[i].parent_ix = xe_span_find(t, t->spans[i].ts->parent);
	return 0;
}

void xe_spans_free(struct xe_turn *t)
{
	free(t->spans);
	free(t->ids);
	t->spans = NULL;
	t->ids = NULL;
	t->nspans = 0;
}

void xe_span_name(const struct xe_span *s, char *out, size_t len)
{
	const char *tool = s->ts->ex.str[TT_EX_TOOL];

	snprintf(out, len, "%s%s%s", s->ts->stage, tool ? " " : "", tool ? tool : "");
}
