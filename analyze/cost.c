// SPDX-License-Identifier: MIT
/*
 * cost.c - tokens by category for every LLM call of a turn, their cost from the price
 * table (prices.c), and the tokens spent on Waste:
 *   - a call covered by a waste mark (retried, failed, truncated, overflowed, aborted):
 *     all its tokens;
 *   - a failed or repeated tool call: the output (and reasoning) tokens of the answer
 *     that asked for it, the last call that ended before the tool started.
 * Each call is counted once. Cost per call, each token priced once (input counts every
 * input token, cached ones included, and output the reasoning ones, as OTel's gen_ai
 * attributes do: schema/README.md):
 *   (input - cache_read - cache_write) x p_in + cache_read x p_cr + cache_write x p_cw
 *   + (output - reasoning) x p_out + reasoning x p_rs
 */
#include "analyze/model.h"

#include <stdlib.h>
#include <string.h>

static const enum tt_ex_num tok_attr[XA_TOK_COUNT] = {
	TT_EX_INPUT_TOKENS, TT_EX_OUTPUT_TOKENS, TT_EX_CACHE_READ_TOKENS,
	TT_EX_CACHE_WRITE_TOKENS, TT_EX_REASONING_TOKENS,
};

/* The billed count of each category (so that each token is priced once). */
static void billed(const double *tok, double *out)
{
	double cached = tok[XA_TOK_CACHE_READ] + tok[XA_TOK_CACHE_WRITE];

	memcpy(out, tok, XA_TOK_COUNT * sizeof(*out));
	out[XA_TOK_INPUT] = tok[XA_TOK_INPUT] > cached ? tok[XA_TOK_INPUT] - cached : 0;
	out[XA_TOK_OUTPUT] = tok[XA_TOK_OUTPUT] > tok[XA_TOK_REASONING]
				     ? tok[XA_TOK_OUTPUT] - tok[XA_TOK_REASONING] : 0;
}

int xa_tok_of(const struct tt_exchange *ex, double *tok)
{
	int counted = 0;

	for (int k = 0; k < XA_TOK_COUNT; k++)
		if (tt_ex_has(ex, tok_attr[k])) {
			tok[k] = ex->num[tok_attr[k]];
			counted = 1;
		}
	return counted;
}

int xa_call_cost(const struct xa_prices *p, const char *model, const double *tok,
		 double *usd_by)
{
	double price[XA_TOK_COUNT], n[XA_TOK_COUNT];

	if (xa_prices_match(p, model, price))
		return -1;
	billed(tok, n);
	for (int k = 0; k < XA_TOK_COUNT; k++)
		usd_by[k] = n[k] * price[k];
	return 0;
}

static void call_usage(const struct xa_span *s, const struct xa_prices *p, struct xa_call *c)
{
	const char *model = tt_ex_model(&s->sp.ex);

	memset(c, 0, sizeof(*c));
	c->span = s->sp.id;
	snprintf(c->model, sizeof(c->model), "%s", model ? model : "");
	c->use.calls = 1;
	xa_tok_of(&s->sp.ex, c->use.tok);
	if (xa_call_cost(p, c->model, c->use.tok, c->usd_by)) {
		c->use.unpriced = 1;
		return;
	}
	for (int k = 0; k < XA_TOK_COUNT; k++)
		c->use.usd += c->usd_by[k];
}

void xa_usage_add(struct xa_usage *dst, const struct xa_usage *src)
{
	for (int k = 0; k < XA_TOK_COUNT; k++)
		dst->tok[k] += src->tok[k];
	dst->usd += src->usd;
	dst->calls += src->calls;
	dst->unpriced += src->unpriced;
}

double xa_usage_tokens(const struct xa_usage *u)
{
	double n = 0;

	for (int k = 0; k < XA_TOK_COUNT; k++)
		n += u->tok[k];
	return n;
}

/* The call that asked for tool span s: the last one ending at or before its start. */
static struct xa_call *asker(const struct xa_trace *tr, struct xa_turn *t, const int *span_of,
			     const struct xa_span *s)
{
	struct xa_call *best = NULL;
	uint64_t end = 0;

	for (size_t c = 0; c < t->ncalls; c++) {
		const struct xa_span *q = &tr->spans[span_of[c]];

		if (q->sp.end_ns <= s->sp.start_ns && (!best || q->sp.end_ns >= end)) {
			best = &t->calls[c];
			end = q->sp.end_ns;
		}
	}
	return best;
}

/* Waste: whole calls under a mark, and the answers that asked for wasted tool calls. */
static void waste(const struct xa_trace *tr, struct xa_turn *t, const int *span_of)
{
	struct xa_usage asked;

	for (size_t c = 0; c < t->ncalls; c++) {
		const struct xa_span *q = &tr->spans[span_of[c]];

		if (q->sp.waste_l3) {
			t->calls[c].waste_l3 = q->sp.waste_l3;
			xa_usage_add(&t->waste, &t->calls[c].use);
		}
	}
	for (size_t i = 0; i < tr->nspans; i++) {
		const struct xa_span *s = &tr->spans[i];
		struct xa_call *a;

		if (!s->sp.waste_l3 || s->domain != XP_DOMAIN_COMPUTE ||
		    !(a = asker(tr, t, span_of, s)) || a->waste_l3)
			continue;
		a->waste_l3 = s->sp.waste_l3;
		memset(&asked, 0, sizeof(asked));
		asked.tok[XA_TOK_OUTPUT] = a->use.tok[XA_TOK_OUTPUT];
		asked.tok[XA_TOK_REASONING] = a->use.tok[XA_TOK_REASONING];
		asked.usd = a->usd_by[XA_TOK_OUTPUT] + a->usd_by[XA_TOK_REASONING];
		asked.calls = 1;
		asked.unpriced = a->use.unpriced;
		xa_usage_add(&t->waste, &asked);
	}
}

int xa_tokens(const struct xa_trace *tr, struct xa_turn *t, const struct xa_prices *p)
{
	int *span_of = calloc(tr->nspans + 1, sizeof(*span_of));

	t->calls = calloc(tr->nspans + 1, sizeof(*t->calls));
	if (!span_of || !t->calls)
		return free(span_of), -1;
	for (size_t i = 0; i < tr->nspans; i++) {
		const struct xa_span *s = &tr->spans[i];
		struct xa_call *c = &t->calls[t->ncalls];

		if (!xa_is_llm_call(tr, s))
			continue;
		span_of[t->ncalls++] = (int)i;
		call_usage(s, p, c);
		xa_usage_add(&t->use, &c->use);
		if (c->use.unpriced && !t->unpriced_model[0])
			snprintf(t->unpriced_model, sizeof(t->unpriced_model), "%s",
				 c->model[0] ? c->model : "(no model name)");
	}
	waste(tr, t, span_of);
	free(span_of);
	return 0;
}
