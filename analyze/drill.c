// SPDX-License-Identifier: MIT
/*
 * drill.c - the Top-down walk. Like toplev, a node is examined only when its
 * parent crossed the threshold: an L1 category and then an L2 subclass are
 * drilled when their share of the turn's time is above the threshold; an L3
 * point under a drilled L2 fires when its metric crosses its own threshold
 * from theory; an L4 cause is evaluated for fired compute-domain points from
 * the counters of the spans charged to them, or reported "not measured" with
 * the reason. Points of grades the user filtered out are dropped and their
 * time folds into Processing of the same domain.
 */
#include "analyze/model.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* L3 ids sorted once, so that the per-charge lookups are a binary search; and each
 * point's parent L2, resolved once. */
static const struct th_l3 *by_id[XA_MAX_L3];
static const struct th_l2 *parent_of[XA_MAX_L3];
static pthread_once_t by_id_once = PTHREAD_ONCE_INIT;

static int cmp_l3(const void *a, const void *b)
{
	return strcmp((*(const struct th_l3 *const *)a)->id, (*(const struct th_l3 *const *)b)->id);
}

static void sort_ids(void)
{
	for (size_t i = 0; i < th_l3_count && i < XA_MAX_L3; i++) {
		by_id[i] = &th_l3_table[i];
		parent_of[i] = th_l2_find(th_l3_table[i].l2_id);
	}
	qsort(by_id, th_l3_count < XA_MAX_L3 ? th_l3_count : XA_MAX_L3, sizeof(by_id[0]), cmp_l3);
}

static int cmp_key(const void *key, const void *elem)
{
	return strcmp(key, (*(const struct th_l3 *const *)elem)->id);
}

int xa_l3_index(const char *id)
{
	const struct th_l3 *const *hit;

	if (!id)
		return -1;
	pthread_once(&by_id_once, sort_ids);
	hit = bsearch(id, by_id, th_l3_count < XA_MAX_L3 ? th_l3_count : XA_MAX_L3,
		      sizeof(by_id[0]), cmp_key);
	return hit ? (int)(*hit - th_l3_table) : -1;
}

const struct th_l2 *xa_l3_parent(size_t i)
{
	pthread_once(&by_id_once, sort_ids);
	return i < XA_MAX_L3 ? parent_of[i] : NULL;
}

void xa_note(struct xa_turn *t, const char *fmt, ...)
{
	va_list ap;

	if (t->nnotes >= sizeof(t->notes) / sizeof(t->notes[0]))
		return;
	va_start(ap, fmt);
	vsnprintf(t->notes[t->nnotes++], sizeof(t->notes[0]), fmt, ap);
	va_end(ap);
}

int xa_crosses(double v, double thr, enum th_cmp cmp)
{
	return cmp == XP_FIRE_ABOVE ? v > thr : v < thr;
}

/* Move a filtered point's time to Processing of its domain. */
static void fold(struct xa_turn *t, const struct th_l2 *l2, uint64_t ns)
{
	if (l2->category == XP_CAT_PROCESSING)
		return;
	t->l2_ns[l2->domain][l2->category] -= ns;
	t->cat_ns[l2->category] -= ns;
	t->l2_ns[l2->domain][XP_CAT_PROCESSING] += ns;
	t->cat_ns[XP_CAT_PROCESSING] += ns;
}

double xa_share(uint64_t ns, uint64_t wall)
{
	return wall ? (double)ns / (double)wall : 0;
}

void xa_drill(struct xa_turn *t, const struct xa_options *o)
{
	for (size_t i = 0; i < th_l3_count; i++) {
		const struct th_l2 *l2 = xa_l3_parent(i);

		if (!(o->grades & (1u << th_l3_table[i].grade)) && l2) {
			fold(t, l2, t->l3[i].ns);
			t->l3[i].state = XA_FILTERED;
		}
	}
	for (size_t i = 0; i < th_l3_count; i++) {
		const struct th_l3 *p = &th_l3_table[i];
		const struct th_l2 *l2 = xa_l3_parent(i);
		struct xa_l3 *a = &t->l3[i];

		if (a->state == XA_FILTERED || !l2)
			continue;
		if (xa_share(t->cat_ns[l2->category], t->wall) <= o->threshold ||
		    xa_share(t->l2_ns[l2->domain][l2->category], t->wall) <= o->threshold)
			a->state = a->state == XA_NOT_MEASURED ? XA_NOT_MEASURED : XA_NOT_DRILLED;
		else if (a->state == XA_OK_BELOW && xa_crosses(a->value, p->threshold, p->cmp))
			a->state = XA_FIRED;
		if (a->state == XA_FIRED)
			a->saved_ns = xa_savings(p, l2, a->ns, a->value);
	}
}

/*
 * The savings model (analyze/README.md, "Savings"): the time charged to a point is taken
 * to scale with its metric, so at the threshold it would be ns x thr/value (fires above) or
 * ns x value/thr (fires below: rates, where time goes as 1/rate). A count with threshold 0
 * (waste marks) saves all of it. Effective work is the work itself: it saves nothing.
 */
uint64_t xa_savings(const struct th_l3 *p, const struct th_l2 *l2, uint64_t ns, double value)
{
	double keep;

	if (l2->category == XP_CAT_EFFECTIVE || !xa_crosses(value, p->threshold, p->cmp))
		return 0;
	if (p->cmp == XP_FIRE_ABOVE)
		keep = value > 0 ? p->threshold / value : 1;
	else
		keep = p->threshold > 0 ? value / p->threshold : 1;
	keep = keep < 0 ? 0 : keep;
	return ns - (uint64_t)((double)ns * keep + 0.5);
}

enum xa_state xa_l4_eval(const struct xa_turn *t, size_t i, const struct th_l4 *l4, double *value,
			 char *why, size_t whylen)
{
	const struct xa_l3 *a = &t->l3[i];
	char name[64];
	size_t v;

	*value = 0;
	if (!a->nspans) {
		snprintf(why, whylen, "no span counters (the time is covered by no span)");
		return XA_NOT_MEASURED;
	}
	if (xa_expr_eval(l4->formula, a->var, a->var_have, value, name, sizeof(name))) {
		for (v = 0; xa_var_name(v) && strcmp(xa_var_name(v), name); v++)
			;
		if (xa_var_name(v) && (a->var_unavail & (1u << v)))
			snprintf(why, whylen, "%s unavailable: %s", name, a->why);
		else if (xa_var_name(v))
			snprintf(why, whylen, "%s not recorded on the spans charged here", name);
		else
			snprintf(why, whylen, "%s", name);
		return XA_NOT_MEASURED;
	}
	why[0] = '\0';
	return xa_crosses(*value, l4->threshold, l4->cmp) ? XA_FIRED : XA_OK_BELOW;
}
