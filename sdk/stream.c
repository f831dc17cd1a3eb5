/* SPDX-License-Identifier: MIT */
/*
 * stream.c - streamed LLM answers: xperf_llm_token records when each token
 * (or chunk) arrived; when the span ends they become its
 * xperf.token_times_ns, its time to first token (xperf.ttft_ns and
 * gen_ai.server.time_to_first_token), a fused ttft mark at the first token,
 * and a fused streaming_gap mark at the end of every gap the theory calls one
 * (th_stream_gap_threshold, theory/rules.c).
 */
#include <stdlib.h>
#include <string.h>

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
	err = !sp ? XP_ENOSPAN : !sp->open ? XP_ECLOSED : !sp->detached && sp->tid != tid
	      ? XP_ETHREAD : !sp->llm ? XP_ENOTLLM : 0;
	if (!err && sp->ntokens >= XPERF_MAX_TOKENS)
		err = XP_ELIMIT;
	if (!err && xp_grow((void **)&sp->tokens, &sp->tokcap, sp->ntokens + 1, sizeof(uint64_t)))
		err = XP_ENOMEM;
	if (!err)
		sp->tokens[sp->ntokens++] = now;
	else if (err == XP_ELIMIT || err == XP_ENOMEM)
		t->dropped++;
	sd_unlock();
	if (err == XP_ELIMIT || err == XP_ENOMEM)
		sd_count_dropped(1);
	return err ? sd_fail(err) : 0;
}

static void mark_gaps(struct sd_turn *t, const struct sd_span *sp)
{
	uint64_t thr = th_stream_gap_threshold(sp->tokens, sp->ntokens);

	for (size_t i = 1; i < sp->ntokens; i++) {
		uint64_t gap = sp->tokens[i] - sp->tokens[i - 1];
		cJSON *a;

		if (gap <= thr || !(a = cJSON_CreateObject()))
			continue;
		cJSON_AddItemToObject(a, "gap_ns", xp_json_exact_u64(gap));
		if (sd_mark_append(t, "streaming_gap", NULL, sp->id, sp->tokens[i], NULL, a))
			cJSON_Delete(a);
	}
}

static void put_absent(cJSON *attrs, const char *key, cJSON *v)
{
	if (cJSON_GetObjectItemCaseSensitive(attrs, key) || !cJSON_AddItemToObject(attrs, key, v))
		cJSON_Delete(v);
}

void sd_stream_finish(struct sd_turn *t, struct sd_span *sp)
{
	uint64_t ttft;
	cJSON *times, *mark;

	if (!sp->ntokens || (!sp->attrs && !(sp->attrs = cJSON_CreateObject())))
		return;
	ttft = sp->tokens[0] - sp->start_ns;
	times = cJSON_CreateArray();
	for (size_t i = 0; times && i < sp->ntokens; i++)
		cJSON_AddItemToArray(times, xp_json_exact_u64(sp->tokens[i]));
	/* What the caller gave explicitly wins over what was recorded. */
	put_absent(sp->attrs, "xperf.token_times_ns", times);
	put_absent(sp->attrs, "xperf.stream", cJSON_CreateTrue());
	put_absent(sp->attrs, "xperf.ttft_ns", xp_json_exact_u64(ttft));
	put_absent(sp->attrs, "gen_ai.server.time_to_first_token",
		   cJSON_CreateNumber((double)ttft / 1e9));
	mark = cJSON_CreateObject();
	if (mark && cJSON_AddItemToObject(mark, "ttft_ns", xp_json_exact_u64(ttft)) &&
	    sd_mark_append(t, "ttft", NULL, sp->id, sp->tokens[0], NULL, mark) == 0)
		mark = NULL;
	cJSON_Delete(mark);
	mark_gaps(t, sp);
}
