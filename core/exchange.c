/* SPDX-License-Identifier: MIT */
/*
 * exchange.c - a span's exchange typed from its attributes (turn.h): the one
 * place that looks the exchange's OpenTelemetry attribute names up.
 */
#include "core/turn.h"

#include <stdlib.h>
#include <string.h>

#include "lib/json_int.h"

const char *const tt_exchange_num_names[TT_EX_NUM_COUNT] = {
	"gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens",
	"gen_ai.usage.cache_read.input_tokens", "xperf.ttft_ns", "http.response.status_code",
	"process.exit.code", "http.response.body.size", "gen_ai.usage.cache_creation.input_tokens",
	"gen_ai.usage.reasoning.output_tokens",
};

/* As the assembler writes a model call (assemble/llm_span.c) and a process (assemble/turn.c). */
const char *const tt_exchange_order[] = {
	"gen_ai.provider.name", "gen_ai.conversation.id", "gen_ai.request.model",
	"gen_ai.response.model", "gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens",
	"gen_ai.usage.cache_read.input_tokens", "gen_ai.usage.cache_creation.input_tokens",
	"gen_ai.usage.reasoning.output_tokens", "gen_ai.response.finish_reasons",
	"gen_ai.server.time_to_first_token", "xperf.ttft_ns", "http.response.status_code",
	"xperf.stream", "server.address", "server.port", "url.path", "http.request.body.size",
	"http.response.body.size", "error.type", "xperf.payload.request",
	"xperf.payload.completion", "xperf.ciphertext.start_ns", "xperf.ciphertext.end_ns",
	"xperf.ciphertext.ttft_ns", "xperf.tool_calls", TT_TOKEN_TIMES_ATTR, "tool.name",
	"process.command_line", "process.pid", "process.exit.code", "process.exit.signal",
	"process.cpu_ns",
};
const size_t tt_exchange_order_count = sizeof(tt_exchange_order) / sizeof(*tt_exchange_order);

static const cJSON *attr(const cJSON *a, const char *name)
{
	return cJSON_GetObjectItemCaseSensitive(a, name);
}

/* A finite number well inside the int64 range (so that conversions are defined). */
static int in_range(const cJSON *n)
{
	return cJSON_IsNumber(n) && n->valuedouble > -4.6e18 && n->valuedouble < 4.6e18;
}

static const char *nonempty(const cJSON *a, const char *name)
{
	const char *s = cJSON_GetStringValue(attr(a, name));

	return s && s[0] ? s : NULL;
}

static int finish_length(const cJSON *reasons)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, reasons)
		if (cJSON_IsString(it) && (!strcmp(it->valuestring, "length") ||
					   !strcmp(it->valuestring, "max_tokens")))
			return 1;
	return 0;
}

static int token_times(struct tt_exchange *ex, const cJSON *times)
{
	int n = cJSON_IsArray(times) ? cJSON_GetArraySize(times) : 0;
	const cJSON *it;

	ex->token_times = cJSON_IsArray(times);
	if (n <= 0)
		return 0;
	if (!(ex->token_ns = calloc((size_t)n, sizeof(*ex->token_ns))))
		return -1;
	cJSON_ArrayForEach(it, times)
		if (!xp_json_get_u64(it, &ex->token_ns[ex->ntokens]))
			ex->ntokens++;
	return 0;
}

int tt_exchange_read(struct tt_span *s)
{
	struct tt_exchange *ex = &s->ex;
	const cJSON *a = s->attrs;

	free(ex->token_ns);
	memset(ex, 0, sizeof(*ex));
	for (int i = 0; i < TT_EX_NUM_COUNT; i++) {
		const cJSON *n = attr(a, tt_exchange_num_names[i]);

		if (in_range(n)) {
			ex->num[i] = n->valuedouble;
			ex->have |= 1u << i;
		}
	}
	ex->model = nonempty(a, "gen_ai.response.model");
	if (!ex->model)
		ex->model = cJSON_GetStringValue(attr(a, "gen_ai.request.model"));
	ex->tool = cJSON_GetStringValue(attr(a, "tool.name"));
	ex->finish_length = finish_length(attr(a, "gen_ai.response.finish_reasons"));
	return token_times(ex, attr(a, TT_TOKEN_TIMES_ATTR));
}

int tt_ex_set_tokens(struct tt_exchange *ex, const uint64_t *t, size_t n)
{
	uint64_t *copy = n ? malloc(n * sizeof(*t)) : NULL;

	if (n && !copy)
		return -1;
	if (n)
		memcpy(copy, t, n * sizeof(*t));
	free(ex->token_ns);
	ex->token_ns = copy;
	ex->ntokens = n;
	ex->token_times = 1;
	return 0;
}
