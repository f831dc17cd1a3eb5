// SPDX-License-Identifier: MIT
/*
 * span.c - read a validated turn for the formats: its span table (sorted by
 * start, longer first, parents resolved to indexes) and the few derived
 * values both formats show (display name, failure, L3 home).
 */
#include "export/walk.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json_int.h"
#include "theory/theory.h"

uint64_t xe_u64(const cJSON *obj, const char *key)
{
	uint64_t v;

	return xp_json_get_u64(cJSON_GetObjectItemCaseSensitive(obj, key), &v) ? 0 : v;
}

const cJSON *xe_attr(const cJSON *obj, const char *name)
{
	return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(obj, "attributes"),
						name);
}

static int by_time(const void *a, const void *b)
{
	const struct xe_span *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
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
	const cJSON *spans = cJSON_GetObjectItemCaseSensitive(t->doc, "spans"), *sp;
	size_t cap = (size_t)cJSON_GetArraySize(spans) + 1, n = 0;

	t->spans = calloc(cap, sizeof(*t->spans));
	t->ids = calloc(cap, sizeof(*t->ids));
	if (!t->spans || !t->ids)
		return -1;
	cJSON_ArrayForEach(sp, spans) {
		const struct tt_span *ts = &t->turn->spans[n];

		t->spans[n++] = (struct xe_span){ sp, ts->id, ts->parent, -1, ts->start_ns,
						  ts->end_ns, ts->tid, &ts->ex };
	}
	qsort(t->spans, n, sizeof(*t->spans), by_time);
	for (size_t i = 0; i < n; i++)
		t->ids[i] = (struct xe_id_ix){ t->spans[i].id, (int)i };
	qsort(t->ids, n, sizeof(*t->ids), by_id);
	t->nspans = n;
	for (size_t i = 0; i < n; i++)
		t->spans[i].parent_ix = xe_span_find(t, t->spans[i].parent);
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
	const char *stage = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s->item, "stage"));
	const char *tool = s->ex->str[TT_EX_TOOL];

	snprintf(out, len, "%s%s%s", stage ? stage : "?", tool ? " " : "", tool ? tool : "");
}

/* v as cJSON's valueint has it (saturated), for the message. */
static int as_int(double v)
{
	return v >= INT_MAX ? INT_MAX : v <= INT_MIN ? INT_MIN : (int)v;
}

int xe_span_failed(const struct xe_span *s, char *msg, size_t len)
{
	const struct tt_exchange *ex = s->ex;

	if (tt_ex_has(ex, TT_EX_STATUS) && ex->num[TT_EX_STATUS] >= 400) {
		snprintf(msg, len, "HTTP status %d", as_int(ex->num[TT_EX_STATUS]));
		return 1;
	}
	if (tt_ex_has(ex, TT_EX_EXIT_CODE) && ex->num[TT_EX_EXIT_CODE] != 0) {
		snprintf(msg, len, "exit code %d", as_int(ex->num[TT_EX_EXIT_CODE]));
		return 1;
	}
	return 0;
}

const char *xe_span_l3_home(const cJSON *span)
{
	const cJSON *custom = cJSON_GetObjectItemCaseSensitive(span, "custom_stage");
	const struct th_stage *st =
		th_stage_find(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(span, "stage")));

	return st && !cJSON_IsTrue(custom) ? st->l3_home : NULL;
}
