/* SPDX-License-Identifier: MIT */
/*
 * stream.c - streamed LLM answers: xperf_llm_token records when each token
 * (or chunk) arrived; when the span ends they become a fused ttft mark at the
 * first token and a fused streaming_gap mark at the end of every gap the
 * theory calls one (th_stream_gap_threshold, theory/rules.c); when the turn is
 * written, the span's typed token times and time to first token (core/turn.h).
 */
#include "sdk/internal.h"

int xperf_llm_token(int handle, int id)
{
	uint64_t now = sd_now_ns();
	pid_t tid = sd_tid();
	struct sd_turn *t;
	struct sd_span *sp;
	int err;

	if (!sd_live())
		return sd_fail(XP_ENOINIT);
	t = sd_lock_turn(handle, &err);
	if (!t)
		return sd_fail(err);
	sp = id >= 1 && (size_t)id <= t->nspans ? &t->spans[id - 1] : NULL;
	err = !sp ? XP_ENOSPAN : !sp->open ? XP_ECLOSED
	      : !sp->detached && t->tt->spans[id - 1].tid != tid ? XP_ETHREAD
	      : !sp->llm ? XP_ENOTLLM : 0;
	if (!err && sp->ntokens >= XPERF_MAX_TOKENS)
		err = XP_ELIMIT;
	if (!err && xp_grow((void **)&sp->tokens, &sp->tokcap, sp->ntokens + 1, sizeof(uint64_t)))
		err = XP_ENOMEM;
	if (!err)
		sp->tokens[sp->ntokens++] = now;
	else if (err == XP_ELIMIT || err == XP_ENOMEM)
		t->tt->quality.dropped_events++;
	sd_unlock();
	if (err == XP_ELIMIT || err == XP_ENOMEM)
		sd_count_dropped(1);
	return err ? sd_fail(err) : 0;
}

static void mark_gaps(struct sd_turn *t, const struct sd_span *sp, int id)
{
	uint64_t thr = th_stream_gap_threshold(sp->tokens, sp->ntokens);

	for (size_t i = 1; i < sp->ntokens; i++) {
		uint64_t gap = sp->tokens[i] - sp->tokens[i - 1];
		cJSON *a;

		if (gap <= thr || !(a = cJSON_CreateObject()))
			continue;
		cJSON_AddItemToObject(a, "gap_ns", xp_json_exact_u64(gap));
		if (sd_mark_append(t, "streaming_gap", NULL, id, sp->tokens[i], NULL, a))
			cJSON_Delete(a);
	}
}

void sd_stream_finish(struct sd_turn *t, int id)
{
	const struct sd_span *sp = &t->spans[id - 1];
	uint64_t start = t->tt->spans[id - 1].start_ns;
	cJSON *mark;

	if (!sp->ntokens)
		return;
	mark = cJSON_CreateObject();
	if (mark && cJSON_AddItemToObject(mark, "ttft_ns",
					  xp_json_exact_u64(sp->tokens[0] - start)) &&
	    sd_mark_append(t, "ttft", NULL, id, sp->tokens[0], NULL, mark) == 0)
		mark = NULL;
	cJSON_Delete(mark);
	mark_gaps(t, sp, id);
}

int sd_stream_facts(struct tt_span *s, const struct sd_span *sp)
{
	struct tt_exchange *ex = &s->ex;

	if (!sp->ntokens)
		return 0;
	/* What the caller gave explicitly wins over what was recorded. */
	if (!tt_ex_has(ex, TT_EX_TTFT_NS))
		tt_ex_set(ex, TT_EX_TTFT_NS, (double)(sp->tokens[0] - s->start_ns));
	if (!cJSON_GetObjectItemCaseSensitive(s->attrs, "xperf.stream") &&
	    !cJSON_AddTrueToObject(s->attrs, "xperf.stream"))
		return -1;
	return ex->token_times ? 0 : tt_ex_set_tokens(ex, sp->tokens, sp->ntokens);
}
