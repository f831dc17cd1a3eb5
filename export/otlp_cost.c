// SPDX-License-Identifier: MIT
/*
 * otlp_cost.c - what an LLM call cost, as the span attribute `xperf.cost.usd`:
 * its token counts priced with the shipped price table (analyze/prices.tsv;
 * analyze/README.md, "Tokens and cost"), for spans that name their model and
 * count tokens. Nothing is added when no price matches the model: a cost is
 * never guessed.
 */
#include "export/otlp.h"

#include "analyze/analyze.h"
#include "core/turn.h"

void xe_otlp_cost(cJSON *attrs, const struct tt_exchange *ex)
{
	double tok[XA_TOK_COUNT] = { 0 }, usd[XA_TOK_COUNT], sum = 0;
	const char *model = tt_ex_model(ex);

	if (!model || !xa_tok_of(ex, tok) || xa_call_cost(xa_prices_default(), model, tok, usd))
		return;
	for (int k = 0; k < XA_TOK_COUNT; k++)
		sum += usd[k];
	xe_otlp_attr_take(attrs, "xperf.cost.usd", cJSON_CreateNumber(sum));
}
