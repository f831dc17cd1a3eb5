/* SPDX-License-Identifier: MIT */
/*
 * writer.c - a finished SDK turn as the core's TurnTrace turn
 * (core/turn.h): the core categorizes it with theory's rules and writes it
 * (core/write.h), like every other turn of the project.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/write.h"
#include "lib/clock_anchor.h"
#include "sdk/internal.h"

/* TurnTrace's counters are indexed like the SDK's (theory's th_counter_name_table). */
_Static_assert(XP_CTR_COUNT <= TT_COUNTERS_MAX, "TT_COUNTERS_MAX too small");

static int copy_counters(struct tt_span *s, const struct sd_span *sp)
{
	struct tt_counters *k = tt_span_counters(s);

	if (!k)
		return -1;
	for (int c = 0; c < XP_CTR_COUNT; c++) {
		if (sp->ctr_mask & (1ull << c)) {
			k->val[c] = (uint64_t)llround(sp->ctr[c] > 0 ? sp->ctr[c] : 0);
			k->have |= 1u << c;
		} else {
			k->unavail |= 1u << c;
			if (tt_str_set(&k->why[c], sd_reason(sp->why[c])))
				return -1;
		}
	}
	return 0;
}

/* Token times not ordered inside the span are dropped, with a warning. */
static int tokens_inside(struct tt_turn *t, struct tt_span *s)
{
	struct tt_exchange *ex = &s->ex;
	uint64_t prev = s->start_ns;
	char msg[160];
	size_t i = 0;

	for (; i < ex->ntokens; prev = ex->token_ns[i++])
		if (ex->token_ns[i] < prev || ex->token_ns[i] > s->end_ns)
			break;
	if (i == ex->ntokens)
		return 0;
	free(ex->token_ns);
	ex->token_ns = NULL;
	ex->ntokens = 0;
	ex->token_times = 0;
	snprintf(msg, sizeof(msg), "span %lld (%s): xperf.token_times_ns dropped, not ordered "
		 "inside the span", (long long)s->id, s->stage);
	return tt_warn(t, msg);
}

/*
 * A measured span's counters; its exchange facts (the caller's, then the
 * recorded tokens') go typed, so the core writes them as it writes the
 * assembler's.
 */
static int finish_span(struct tt_turn *t, struct tt_span *s, const struct sd_span *sp)
{
	if (s->sched && copy_counters(s, sp))
		return -1;
	return tt_exchange_take(s) || sd_stream_facts(s, sp) || tokens_inside(t, s);
}

static int copy_agent(struct tt_agent *a, const struct sd_agent *ag)
{
	a->pid = ag->pid;
	a->start_time_ns = ag->start_time_ns;
	a->container_known = 1;
	return tt_str_set(&a->name, ag->name) ||
	       tt_str_set(&a->model, ag->model[0] ? ag->model : NULL) ||
	       tt_str_set(&a->comm, ag->comm[0] ? ag->comm : NULL) ||
	       tt_str_set(&a->container_id, ag->container_id[0] ? ag->container_id : NULL);
}

/* After the turn's own warnings: why hardware counters are missing from a measured span. */
static int warn_hw(struct tt_turn *tt, const struct sd_turn *t)
{
	char msg[160];

	for (size_t i = 0; i < t->nspans; i++) {
		const struct sd_span *sp = &t->spans[i];

		for (int c = 0; tt->spans[i].sched && c < XP_CTR_COUNT; c++) {
			if (xp_counter_is_hw(c) && !(sp->ctr_mask & (1ull << c))) {
				snprintf(msg, sizeof(msg),
					 "hardware counters unavailable (%s): no L4 root causes",
					 sd_reason(sp->why[c]));
				return tt_warn(tt, msg);
			}
		}
	}
	return 0;
}

struct tt_turn *sd_turn_core(struct sd_turn *t, const char *session_id, const struct sd_agent *ag)
{
	struct tt_turn *tt = t->tt;
	int rc = tt_str_set(&tt->session_id, session_id) || copy_agent(&tt->agent, ag) ||
		 warn_hw(tt, t);

	t->tt = NULL;
	for (size_t i = 0; !rc && i < t->nspans; i++)
		rc = finish_span(tt, &tt->spans[i], &t->spans[i]);
	if (rc || tt_turn_categorize(tt)) {
		tt_turn_free(tt);
		return NULL;
	}
	tt->has_anchor = 1;
	xp_clock_anchor_now(&tt->anchor);
	return tt;
}
