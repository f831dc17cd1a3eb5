/* SPDX-License-Identifier: MIT */
/*
 * marks.c - fused marks (instants where data crosses between CPU and model:
 * ttft, streaming_gap, ...) and waste marks (work thrown away: a failed tool
 * call, a retry, ...). A mark is attached to the innermost span open on the
 * calling thread; a waste mark makes that span Waste Bound.
 */
#include <stdio.h>
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

/* A ttft mark without ttft_ns: time since the start of its span, or of the turn. */
static int fill_ttft(cJSON *attrs, uint64_t since_ns, uint64_t t_ns)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(attrs, "ttft_ns");

	if (v)
		return cJSON_IsNumber(v) && v->valuedouble >= 0 ? 0 : XP_EINVAL;
	cJSON_AddItemToObject(attrs, "ttft_ns", xp_json_u64(t_ns - since_ns));
	return 0;
}

/* Under the lock: appends the mark (taking its JSON), or returns an error. */
static int add_mark(struct xp_turn *t, struct mark_args *m)
{
	const struct xp_top *top = xp_top_of(t, m->tid, 0);
	int span = top ? top->span : 0;
	struct xp_mark *mk;
	int err;

	if (t->nmarks >= XPERF_MAX_MARKS) {
		t->dropped++;
		return XP_ELIMIT;
	}
	if (!m->l3 && strcmp(m->kind, "ttft") == 0) {
		uint64_t since = span ? t->spans[span - 1].start_ns : t->start_ns;

		err = fill_ttft(m->attrs, since, m->t_ns);
		if (err)
			return err;
	}
	if (xp_grow((void **)&t->marks, &t->mcap, t->nmarks + 1, sizeof(*t->marks))) {
		t->dropped++;
		return XP_ENOMEM;
	}
	mk = &t->marks[t->nmarks++];
	memset(mk, 0, sizeof(*mk));
	mk->fused = m->l3 == NULL;
	snprintf(mk->kind, sizeof(mk->kind), "%s", m->kind);
	mk->l3 = m->l3;
	mk->span = span;
	mk->t_ns = m->t_ns;
	mk->counts = m->counts;
	mk->attrs = m->attrs;
	m->counts = m->attrs = NULL;
	if (span && m->l3)
		t->spans[span - 1].waste = 1;
	return 0;
}

static int mark(int handle, struct mark_args *m)
{
	struct xp_turn *t;
	int err;

	m->tid = xp_tid();
	m->t_ns = xp_now_ns();
	t = xp_lock_turn(handle, &err);
	if (t) {
		err = add_mark(t, m);
		xp_unlock();
	}
	cJSON_Delete(m->counts);
	cJSON_Delete(m->attrs);
	if (err == XP_ELIMIT || err == XP_ENOMEM)
		xp_count_dropped(1);
	return err ? xp_fail(err) : 0;
}

/* Checks the kind, builds the attributes aside, then records the mark. */
static int mark_checked(int turn, const char *kind, int waste, const struct xperf_attr *a,
			size_t n)
{
	struct mark_args m = { .kind = kind };
	int err;

	if (!xp_live())
		return xp_fail(XP_ENOINIT);
	if (!kind)
		return xp_fail(XP_EINVAL);
	m.l3 = waste ? xp_waste_l3(kind) : NULL;
	if (waste ? !m.l3 : !xp_fused_kind_valid(kind))
		return xp_fail(XP_EKIND);
	err = waste ? xp_attrs_split(&m.counts, &m.attrs, a, n, xp_capture())
		    : xp_attrs_build(&m.attrs, a, n, 0, xp_capture());
	return err ? xp_fail(err) : mark(turn, &m);
}

int xperf_mark_fused(int turn, const char *kind, const struct xperf_attr *a, size_t n)
{
	return mark_checked(turn, kind, 0, a, n);
}

int xperf_mark_waste(int turn, const char *kind, const struct xperf_attr *a, size_t n)
{
	return mark_checked(turn, kind, 1, a, n);
}
