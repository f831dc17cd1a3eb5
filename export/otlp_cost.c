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

void xe_otlp_cost(cJSON *attrs, const cJSON *a)
{
	const char *model = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(a,
						   "gen_ai.response.model"));
	double tok[XA_TOK_COUNT] = { 0 }, usd[XA_TOK_COUNT], sum = 0;
	int counted = 0;
	cJSON *v;

	if (!model || !model[0])
		model = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(a,
					     "gen_ai.request.model"));
	for (int k = 0; k < XA_TOK_COUNT; k++) {
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(a, xa_tok_attr((enum xa_tok)k));

		if (cJSON_IsNumber(n) && n->valuedouble >= 0) {
			tok[k] = n->valuedouble;
			counted = 1;
		}
	}
	if (!model || !counted || xa_call_cost(xa_prices_default(), model, tok, usd))
		return;
	for (int k = 0; k < XA_TOK_COUNT; k++)
		sum += usd[k];
	v = cJSON_CreateNumber(sum);
	xe_otlp_attr(attrs, "xperf.cost.usd", v);
	cJSON_Delete(v);
}
