/* SPDX-License-Identifier: MIT */
/*
 * rules.c - theory's rules over a whole turn (turn.h): waste binding, then
 * each span's domain and category from theory/rules.c. The assembler and the
 * SDK write what this decides; the analyzer binds waste with the same code.
 */
#include "core/turn.h"

void tt_turn_bind_waste(struct tt_turn *t)
{
	for (size_t i = 0; i < t->nspans; i++)
		t->spans[i].waste_l3 = NULL;
	for (size_t i = 0; i < t->nwaste; i++) {
		struct tt_mark *m = &t->waste[i];

		m->span_ix = m->span ? tt_span_index(t, m->span) : -1;
		if (m->span_ix >= 0 && !t->spans[m->span_ix].waste_l3)
			t->spans[m->span_ix].waste_l3 = m->l3;
	}
}

/* Whether a waste mark binds to span ix or to one of its ancestors. */
static int span_wasted(const struct tt_turn *t, int ix)
{
	for (int d = 0; ix >= 0 && d <= (int)t->nspans; ix = t->spans[ix].parent_ix, d++)
		if (t->spans[ix].waste_l3)
			return 1;
	return 0;
}

int tt_turn_categorize(struct tt_turn *t)
{
	if (tt_turn_index(t))
		return -1;
	tt_turn_bind_waste(t);
	for (size_t i = 0; i < t->nspans; i++) {
		struct tt_span *s = &t->spans[i];

		s->domain = th_stage_domain(s->st);
		s->category = th_category_of(s->st, s->stage, span_wasted(t, (int)i),
					     !!(s->sched & TT_SCHED_ON_CPU), s->on_cpu_ns,
					     s->end_ns - s->start_ns);
	}
	return 0;
}
