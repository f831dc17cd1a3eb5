/* SPDX-License-Identifier: MIT */
/*
 * marks.c - fused marks (instants where data crosses between CPU and model:
 * ttft, streaming_gap, ...) and waste marks (work thrown away: a failed tool
 * call, a retry, ...). A mark is attached to the innermost span open on the
 * calling thread; a waste mark makes that span Waste Bound.
 */
#include <string.h>

#include "sdk/internal.h"

struct mark_args {
	const char *kind;
	const char *l3;   /* waste: its L3 id; fused: NULL */
	cJSON *counts;    /* waste only */
	cJSON *attrs;
	pid_t tid;
	uint64_t t_ns;
};

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

/* Under the lock: appends the mark (taking its JSON), or returns an error. */
static int add_mark(struct sd_turn *t, struct mark_args *m)
{
	const struct sd_top *top = sd_top_of(t, m->tid, 0);
	int span = top ? top->span : 0, err;

	/* A ttft mark without ttft_ns: time since the start of its span, or of the turn. */
	if (!m->l3 && strcmp(m->kind, "ttft") == 0 &&
	    !cJSON_GetObjectItemCaseSensitive(m->attrs, "ttft_ns")) {
		uint64_t since = span ? t->tt->spans[span - 1].start_ns : t->tt->start_ns;

		cJSON_AddItemToObject(m->attrs, "ttft_ns", xp_json_exact_u64(m->t_ns - since));
	}
	err = sd_mark_append(t, m->kind, m->l3, span, m->t_ns, m->counts, m->attrs);
	if (!err)
		m->counts = m->attrs = NULL;
	return err;
}

static int mark(int handle, struct mark_args *m)
{
	struct sd_turn *t;
	int err;

	m->tid = sd_tid();
	m->t_ns = sd_now_ns();
	t = sd_lock_turn(handle, &err);
	if (t) {
		err = add_mark(t, m);
		sd_unlock();
	}
	cJSON_Delete(m->counts);
	cJSON_Delete(m->attrs);
	if (err == XP_ELIMIT || err == XP_ENOMEM)
		sd_count_dropped(1);
	return err ? sd_fail(err) : 0;
}

/* Checks the kind, builds the attributes aside, then records the mark. */
static int mark_checked(int turn, const char *kind, int waste, const struct xperf_attr *a,
			size_t n)
{
	struct mark_args m = { .kind = kind };
	int err;

	if (!sd_live())
		return sd_fail(XP_ENOINIT);
	if (!kind)
		return sd_fail(XP_EINVAL);
	m.l3 = waste ? sd_waste_l3(kind) : NULL;
	if (waste ? !m.l3 : !sd_fused_kind_valid(kind))
		return sd_fail(XP_EKIND);
	err = sd_attrs_build(&m.attrs, waste ? &m.counts : NULL, a, n, 0);
	return err ? sd_fail(err) : mark(turn, &m);
}

int xperf_mark_fused(int turn, const char *kind, const struct xperf_attr *a, size_t n)
{
	return mark_checked(turn, kind, 0, a, n);
}

int xperf_mark_waste(int turn, const char *kind, const struct xperf_attr *a, size_t n)
{
	return mark_checked(turn, kind, 1, a, n);
}
