/* SPDX-License-Identifier: MIT */
/*
 * marks.c - fused marks (instants where data crosses between CPU and model:
 * ttft, streaming_gap, ...) and waste marks (work thrown away: a failed tool
 * call, a retry, ...). A mark is attached to the innermost span open on the
 * calling thread; a waste mark makes that span Waste Bound.
 */
#include <string.h>

#include "sdk/internal.h"

int sd_mark_append(struct sd_turn *t, const char *kind, const char *l3, int span, uint64_t t_ns,
		   cJSON *counts, cJSON *attrs)
{
	struct tt_turn *tt = t->tt;
	struct tt_mark *mk;

	if (tt->nfused + tt->nwaste >= XPERF_MAX_MARKS) {
		tt->quality.dropped_events++;
		return XP_ELIMIT;
	}
	if (!(mk = tt_mark_add(tt, kind, l3, span, t_ns))) {
		tt->quality.dropped_events++;
		return XP_ENOMEM;
	}
	cJSON_Delete(mk->attrs);
	mk->counts = counts;
	mk->attrs = attrs;
	return 0;
}

/* Under the lock: appends the mark at tid's innermost span (taking its JSON), or an error. */
static int add_mark(struct sd_turn *t, const char *kind, const char *l3, pid_t tid, uint64_t t_ns,
		    cJSON *counts, cJSON *attrs)
{
	const struct sd_top *top = sd_top_of(t, tid, 0);
	int span = top ? top->span : 0;

	/* A ttft mark without ttft_ns: time since the start of its span, or of the turn. */
	if (!l3 && strcmp(kind, "ttft") == 0 &&
	    !cJSON_GetObjectItemCaseSensitive(attrs, "ttft_ns")) {
		uint64_t since = span ? t->tt->spans[span - 1].start_ns : t->tt->start_ns;

		cJSON_AddItemToObject(attrs, "ttft_ns", xp_json_exact_u64(t_ns - since));
	}
	return sd_mark_append(t, kind, l3, span, t_ns, counts, attrs);
}

static int fused_kind_valid(const char *kind)
{
	for (size_t i = 0; th_fused_kind_names[i]; i++)
		if (strcmp(kind, th_fused_kind_names[i]) == 0)
			return 1;
	return 0;
}

/* Checks the kind (theory's names), builds the attributes aside, then records the mark. */
static int mark(int handle, const char *kind, int waste, const struct xperf_attr *a, size_t n)
{
	const struct th_waste_kind *w = waste ? th_waste_kind_find(kind) : NULL;
	const char *l3 = w ? w->l3_id : NULL;
	cJSON *counts = NULL, *attrs = NULL;
	struct sd_turn *t;
	uint64_t t_ns;
	pid_t tid;
	int err;

	if (!sd_live())
		return sd_fail(XP_ENOINIT);
	if (!kind)
		return sd_fail(XP_EINVAL);
	if (waste ? !l3 : !fused_kind_valid(kind))
		return sd_fail(XP_EKIND);
	if ((err = sd_attrs_build(&attrs, waste ? &counts : NULL, a, n, 0)))
		return sd_fail(err);
	tid = sd_tid();
	t_ns = sd_now_ns();
	t = sd_lock_turn(handle, &err);
	if (t) {
		err = add_mark(t, kind, l3, tid, t_ns, counts, attrs);
		sd_unlock();
	}
	if (err) {
		cJSON_Delete(counts);
		cJSON_Delete(attrs);
	}
	if (err == XP_ELIMIT || err == XP_ENOMEM)
		sd_count_dropped(1);
	return err ? sd_fail(err) : 0;
}

int xperf_mark_fused(int turn, const char *kind, const struct xperf_attr *a, size_t n)
{
	return mark(turn, kind, 0, a, n);
}

int xperf_mark_waste(int turn, const char *kind, const struct xperf_attr *a, size_t n)
{
	return mark(turn, kind, 1, a, n);
}
