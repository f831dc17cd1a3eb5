// SPDX-License-Identifier: MIT
/*
 * turn.c - build the analyzer's view of one turn (struct xa_trace) from the
 * core's typed turn (core/read.h: validated, indexed, waste bound by
 * core/rules.c). What the analyzer needs beyond the schema (nanosecond
 * values at most XA_NS_MAX, spans inside the turn, known stages' ids) makes
 * it refuse the turn (-1), so that the fuzz target can feed it anything.
 */
#include "analyze/model.h"

#include <stdlib.h>
#include <string.h>

#include "core/read.h"
#include "lib/json_int.h"

/* A non-negative integer nanosecond value, exact (lib/json_int.h), at most XA_NS_MAX. */
static int ns_of(const cJSON *n, uint64_t *out)
{
	uint64_t v;

	if (xp_json_get_u64(n, &v) || v > XA_NS_MAX)
		return -1;
	*out = v;
	return 0;
}

/* Token times past XA_NS_MAX are left out (in the turn, which is the trace's). */
static void keep_tokens(struct tt_exchange *ex)
{
	size_t n = 0;

	for (size_t i = 0; i < ex->ntokens; i++)
		if (ex->token_ns[i] <= XA_NS_MAX)
			ex->token_ns[n++] = ex->token_ns[i];
	ex->ntokens = n;
}

static int read_span(struct tt_span *sp, const struct xa_trace *tr, struct xa_span *s)
{
	memset(s, 0, sizeof(*s));
	if (sp->start_ns > XA_NS_MAX || sp->end_ns > XA_NS_MAX || sp->start_ns > sp->end_ns ||
	    sp->start_ns < tr->turn->start_ns || sp->end_ns > tr->turn->end_ns)
		return -1;
	keep_tokens(&sp->ex);
	s->sp = *sp;
	s->domain = sp->domain;
	s->has_sched = (sp->sched & TT_SCHED_ALL) == TT_SCHED_ALL && sp->on_cpu_ns <= XA_NS_MAX &&
		       sp->runq_ns <= XA_NS_MAX && sp->blocked_ns <= XA_NS_MAX;
	return 0;
}

/* Waste marks per L3 (bound to spans by the core), ttft marks' ttft_ns for their span. */
static void read_marks(struct xa_trace *tr, const struct tt_turn *t)
{
	for (size_t i = 0; i < t->nwaste; i++) {
		int idx = xa_l3_index(t->waste[i].l3);

		if (idx >= 0)
			tr->mark_count[idx]++;
	}
	for (size_t i = 0; i < t->nfused; i++) {
		const struct tt_mark *m = &t->fused[i];
		int s = m->span ? tt_span_index(t, m->span) : -1;
		uint64_t ttft;

		if (strcmp(m->kind, "ttft"))
			continue;
		if (s >= 0 && !ns_of(cJSON_GetObjectItemCaseSensitive(m->attrs, "ttft_ns"), &ttft) &&
		    !tt_ex_has(&tr->spans[s].sp.ex, TT_EX_TTFT_NS)) {
			tr->spans[s].sp.ex.num[TT_EX_TTFT_NS] = (double)ttft;
			tr->spans[s].sp.ex.have |= 1u << TT_EX_TTFT_NS;
		}
	}
}

int xa_trace_from_turn(struct tt_turn *t, const char *path, struct xa_trace *tr)
{
	memset(tr, 0, sizeof(*tr));
	tr->turn = t;
	snprintf(tr->head.path, sizeof(tr->head.path), "%s", path ? path : "<buffer>");
	snprintf(tr->head.session_id, sizeof(tr->head.session_id), "%s", t->session_id);
	snprintf(tr->head.source, sizeof(tr->head.source), "%s", t->source);
	snprintf(tr->head.tier, sizeof(tr->head.tier), "%s", t->quality.tier);
	tr->head.turn_index = t->index;
	tr->head.complete = t->complete;
	snprintf(tr->head.agent, sizeof(tr->head.agent), "%s", t->agent.name ? t->agent.name : "?");
	tr->head.pid = t->agent.pid;
	tr->cap = t->nspans + 1;
	if (t->end_ns > XA_NS_MAX || !(tr->spans = calloc(tr->cap, sizeof(*tr->spans))))
		return -1;
	for (; tr->nspans < t->nspans; tr->nspans++)
		if (read_span(&t->spans[tr->nspans], tr, &tr->spans[tr->nspans]))
			return -1;
	read_marks(tr, t);
	return xa_gpu_stats(tr, t);
}

void xa_trace_free(struct xa_trace *tr)
{
	tt_turn_free(tr->turn);
	free(tr->spans);
	free(tr->segs);
	memset(tr, 0, sizeof(*tr));
}
