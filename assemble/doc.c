/* SPDX-License-Identifier: MIT */
/* doc.c - filling a TurnTrace turn from the assembler (doc.h). */
#include "assemble/doc.h"

struct tt_turn *xt_doc_new(const char *session_id, int turn_index, int complete,
			   uint64_t start_ns, uint64_t end_ns, const struct xt_agent_info *agent,
			   const char *tier, const struct xp_clock_anchor *anchor)
{
	struct tt_turn *d = tt_turn_new(session_id, turn_index, "ebpf", tier);
	struct tt_agent *a = d ? &d->agent : NULL;

	if (!d)
		return NULL;
	d->complete = complete;
	d->start_ns = start_ns;
	d->end_ns = end_ns;
	d->has_anchor = anchor != NULL;
	if (anchor)
		d->anchor = *anchor;
	a->pid = agent->pid;
	if (tt_str_set(&a->name, agent->name) ||
	    tt_str_set(&a->model, agent->model && agent->model[0] ? agent->model : NULL) ||
	    tt_str_set(&a->comm, agent->comm && agent->comm[0] ? agent->comm : NULL)) {
		tt_turn_free(d);
		return NULL;
	}
	return d;
}

int xt_doc_span(struct tt_turn *d, int parent, const char *stage, uint64_t a, uint64_t b,
		uint32_t tid, const struct xt_sched *sched, struct tt_span **span)
{
	struct tt_span *s = tt_span_add(d, parent > 0 ? parent : 0, stage, a, b, tid);
	struct xt_sched_sum sum;

	if (!s)
		return -1;
	if (xt_sched_query(sched, tid, a, b, &sum)) {
		s->sched = TT_SCHED_ALL;
		s->on_cpu_ns = sum.on_cpu_ns;
		s->runq_ns = sum.runq_ns;
		s->blocked_ns = sum.blocked_ns;
	}
	if (span)
		*span = s;
	return (int)s->id;
}

cJSON *xt_doc_fused(struct tt_turn *d, const char *kind, uint64_t t, int span)
{
	struct tt_mark *m = tt_mark_add(d, kind, NULL, span > 0 ? span : 0, t);

	return m ? m->attrs : NULL;
}

cJSON *xt_doc_waste(struct tt_turn *d, const char *kind, uint64_t t, int span,
		    const char *count_name, int count)
{
	const struct th_waste_kind *wk = th_waste_kind_find(kind);
	struct tt_mark *m = tt_mark_add(d, kind, wk ? wk->l3_id : "", span > 0 ? span : 0, t);

	if (!m || !(m->counts = cJSON_CreateObject()))
		return NULL;
	cJSON_AddNumberToObject(m->counts, count_name, count);
	return m->attrs;
}
