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

static void copy_str(char *dst, size_t len, const char *s)
{
	size_t k = strnlen(s, len - 1);

	memcpy(dst, s, k);
	dst[k] = '\0';
}

static void read_counters(struct xa_span *s, const struct tt_counters *k)
{
	for (size_t i = 0; k && i < th_counter_name_count && i < TT_COUNTERS_MAX; i++) {
		if (k->have & (1u << i)) {
			s->var[i] = (double)k->val[i];
			s->var_have |= 1u << i;
		}
		if (k->unavail & (1u << i)) {
			s->var_unavail |= 1u << i;
			if (!s->why[0] && k->why[i])
				copy_str(s->why, sizeof(s->why), k->why[i]);
		}
	}
}

/* The span's typed exchange (core/exchange.c), copied: the turn is freed after. */
static void read_exchange(struct xa_span *s, const struct tt_exchange *ex)
{
	const char *model = tt_ex_model(ex), *tool = ex->str[TT_EX_TOOL];

	s->ex = (struct tt_exchange){ .have = ex->have, .finish_length = ex->finish_length,
				      .token_times = ex->token_times };
	memcpy(s->ex.num, ex->num, sizeof(s->ex.num));
	copy_str(s->model, sizeof(s->model), model ? model : "");
	copy_str(s->tool, sizeof(s->tool), tool ? tool : "");
	if (!ex->ntokens || !(s->ex.token_ns = calloc(ex->ntokens, sizeof(*s->ex.token_ns))))
		return;
	for (size_t i = 0; i < ex->ntokens; i++)
		if (ex->token_ns[i] <= XA_NS_MAX)
			s->ex.token_ns[s->ex.ntokens++] = ex->token_ns[i];
}

static int read_span(const struct tt_span *sp, const struct xa_trace *tr, struct xa_span *s)
{
	memset(s, 0, sizeof(*s));
	if (sp->start_ns > XA_NS_MAX || sp->end_ns > XA_NS_MAX || sp->start_ns > sp->end_ns ||
	    sp->start_ns < tr->start || sp->end_ns > tr->end)
		return -1;
	s->id = sp->id;
	s->start = sp->start_ns;
	s->end = sp->end_ns;
	s->declared = s->domain = sp->domain;
	s->declared_cat = sp->category;
	s->parent = sp->parent_ix;
	s->depth = sp->depth;
	s->waste_l3 = sp->waste_l3;
	s->tid = sp->tid;
	copy_str(s->stage_name, sizeof(s->stage_name), sp->stage);
	s->stage = th_stage_find(sp->stage);
	if ((sp->sched & TT_SCHED_ALL) == TT_SCHED_ALL && sp->on_cpu_ns <= XA_NS_MAX &&
	    sp->runq_ns <= XA_NS_MAX && sp->blocked_ns <= XA_NS_MAX) {
		s->has_sched = 1;
		s->on_cpu = sp->on_cpu_ns;
		s->runq = sp->runq_ns;
		s->blocked = sp->blocked_ns;
		s->var[th_counter_name_count] = (double)s->runq;
		s->var[th_counter_name_count + 1] = (double)s->on_cpu;
		s->var_have |= 3u << th_counter_name_count;
	}
	read_counters(s, sp->ctr);
	read_exchange(s, &sp->ex);
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
		    !tt_ex_has(&tr->spans[s].ex, TT_EX_TTFT_NS)) {
			tr->spans[s].ex.num[TT_EX_TTFT_NS] = (double)ttft;
			tr->spans[s].ex.have |= 1u << TT_EX_TTFT_NS;
		}
	}
}

int xa_trace_from_turn(const struct tt_turn *t, const char *path, struct xa_trace *tr)
{
	memset(tr, 0, sizeof(*tr));
	copy_str(tr->head.path, sizeof(tr->head.path), path ? path : "<buffer>");
	copy_str(tr->head.session_id, sizeof(tr->head.session_id), t->session_id);
	copy_str(tr->head.source, sizeof(tr->head.source), t->source);
	copy_str(tr->head.tier, sizeof(tr->head.tier), t->quality.tier);
	tr->head.turn_index = t->index;
	tr->head.complete = t->complete;
	tr->start = t->start_ns;
	tr->end = t->end_ns;
	tr->dropped_events = t->quality.dropped_events;
	tr->warnings = (unsigned)t->quality.nwarnings;
	tr->tool_identity_unknown = !strcmp(t->quality.tool_identity, "unknown");
	copy_str(tr->head.agent, sizeof(tr->head.agent), t->agent.name ? t->agent.name : "?");
	tr->head.pid = t->agent.pid;
	tr->cap = t->nspans + 1;
	if (tr->end > XA_NS_MAX || !(tr->spans = calloc(tr->cap, sizeof(*tr->spans))))
		return -1;
	for (; tr->nspans < t->nspans; tr->nspans++)
		if (read_span(&t->spans[tr->nspans], tr, &tr->spans[tr->nspans]))
			return -1;
	read_marks(tr, t);
	return xa_gpu_stats(tr, t);
}

void xa_trace_free(struct xa_trace *tr)
{
	for (size_t i = 0; tr->spans && i < tr->nspans; i++)
		free(tr->spans[i].ex.token_ns);
	free(tr->spans);
	free(tr->segs);
	memset(tr, 0, sizeof(*tr));
}
