/* SPDX-License-Identifier: MIT */
/*
 * exchange.c - a span's exchange typed from its attributes (turn.h): the one
 * place that looks the exchange's OpenTelemetry attribute names up.
 */
#include "core/turn.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json_int.h"

const char *const tt_exchange_num_names[TT_EX_NUM_COUNT] = {
	"gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens",
	"gen_ai.usage.cache_read.input_tokens", "xperf.ttft_ns", "http.response.status_code",
	"process.exit.code", "http.response.body.size", "gen_ai.usage.cache_creation.input_tokens",
	"gen_ai.usage.reasoning.output_tokens",
};

const char *const tt_exchange_str_names[TT_EX_STR_COUNT] = {
	"gen_ai.provider.name", "gen_ai.request.model", "gen_ai.response.model",
	"tool.name", "gen_ai.tool.name", "gen_ai.tool.call.id",
};

/* A model call's, then a process's, then a tool call's (assemble/llm_span.c, assemble/turn.c). */
const char *const tt_exchange_order[] = {
	"gen_ai.provider.name", "gen_ai.conversation.id", "gen_ai.request.model",
	"gen_ai.response.model", "gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens",
	"gen_ai.usage.cache_read.input_tokens", "gen_ai.usage.cache_creation.input_tokens",
	"gen_ai.usage.reasoning.output_tokens", TT_FINISH_ATTR, TT_TTFT_S_ATTR, "xperf.ttft_ns",
	"http.response.status_code", "xperf.stream", "server.address", "server.port", "url.path",
	"http.request.body.size", "http.response.body.size", "error.type",
	"xperf.payload.request", "xperf.payload.completion", "xperf.ciphertext.start_ns",
	"xperf.ciphertext.end_ns", "xperf.ciphertext.ttft_ns", "xperf.ciphertext.control_records",
	"xperf.tool_calls",
	TT_TOKEN_TIMES_ATTR, "tool.name", "process.command_line", "process.pid",
	"process.exit.code", "process.exit.signal", "process.cpu_ns", "gen_ai.tool.name",
	"gen_ai.tool.call.id",
};
const size_t tt_exchange_order_count = sizeof(tt_exchange_order) / sizeof(*tt_exchange_order);

static cJSON *attr(const cJSON *a, const char *name)
{
	return cJSON_GetObjectItemCaseSensitive(a, name);
}

/* A finite number well inside the int64 range (so that conversions are defined). */
static int in_range(const cJSON *n)
{
	return cJSON_IsNumber(n) && n->valuedouble > -4.6e18 && n->valuedouble < 4.6e18;
}

/* A cut answer: the model stopped at its token limit (OpenAI's, Anthropic's, Responses'). */
static int cut(const char *reason)
{
	return !strcmp(reason, "length") || !strcmp(reason, "max_tokens") ||
	       !strcmp(reason, "max_output_tokens");
}

/* The string elements of reasons; given when all of them are strings. */
static int finish_reasons(struct tt_exchange *ex, const cJSON *reasons)
{
	const char *r[64];
	size_t n = 0, all = 1;
	const cJSON *it;

	cJSON_ArrayForEach(it, reasons) {
		if (cJSON_IsString(it) && n < sizeof(r) / sizeof(*r))
			r[n++] = it->valuestring;
		else
			all = 0;
	}
	if (cJSON_IsArray(reasons) && tt_ex_set_finish(ex, r, n))
		return -1;
	ex->finish_given = cJSON_IsArray(reasons) && all;
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

void tt_exchange_free(struct tt_exchange *ex)
{
	for (int i = 0; i < TT_EX_STR_COUNT; i++)
		free(ex->str[i]);
	for (size_t i = 0; i < ex->nfinish; i++)
		free(ex->finish[i]);
	free(ex->finish);
	free(ex->token_ns);
	memset(ex, 0, sizeof(*ex));
}

/* v as cJSON's valueint has it (saturated), for the message. */
static int as_int(double v)
{
	return v >= INT_MAX ? INT_MAX : v <= INT_MIN ? INT_MIN : (int)v;
}

int tt_ex_failed(const struct tt_exchange *ex, char *why, size_t len)
{
	if (tt_ex_has(ex, TT_EX_STATUS) && ex->num[TT_EX_STATUS] >= 400) {
		if (why)
			snprintf(why, len, "HTTP status %d", as_int(ex->num[TT_EX_STATUS]));
		return 1;
	}
	if (tt_ex_has(ex, TT_EX_EXIT_CODE) && ex->num[TT_EX_EXIT_CODE] != 0) {
		if (why)
			snprintf(why, len, "exit code %d", as_int(ex->num[TT_EX_EXIT_CODE]));
		return 1;
	}
	return 0;
}

int tt_exchange_read(struct tt_span *s)
{
	struct tt_exchange *ex = &s->ex;
	const cJSON *a = s->attrs;

	tt_exchange_free(ex);
	for (int i = 0; i < TT_EX_NUM_COUNT; i++) {
		const cJSON *n = attr(a, tt_exchange_num_names[i]);

		if (in_range(n))
			tt_ex_set(ex, i, n->valuedouble);
	}
	for (int i = 0; i < TT_EX_STR_COUNT; i++) {
		const char *v = cJSON_GetStringValue(attr(a, tt_exchange_str_names[i]));

		if (v && tt_ex_set_str(ex, i, v))
			return -1;
	}
	if (finish_reasons(ex, attr(a, TT_FINISH_ATTR)))
		return -1;
	return token_times(ex, attr(a, TT_TOKEN_TIMES_ATTR));
}

static void drop(cJSON *a, const char *name)
{
	cJSON_DeleteItemFromObjectCaseSensitive(a, name);
}

int tt_exchange_take(struct tt_span *s)
{
	struct tt_exchange *ex = &s->ex;
	cJSON *a = s->attrs;

	if (tt_exchange_read(s))
		return -1;
	for (int i = 0; i < TT_EX_NUM_COUNT; i++) {
		const cJSON *n = attr(a, tt_exchange_num_names[i]);

		if (tt_ex_has(ex, i) && !n->valuestring) /* a kept literal stays exact */
			drop(a, tt_exchange_num_names[i]);
	}
	for (int i = 0; i < TT_EX_STR_COUNT; i++)
		if (ex->str[i])
			drop(a, tt_exchange_str_names[i]);
	if (ex->finish_given)
		drop(a, TT_FINISH_ATTR);
	if (ex->token_times && ex->ntokens == (size_t)cJSON_GetArraySize(attr(a, TT_TOKEN_TIMES_ATTR)))
		drop(a, TT_TOKEN_TIMES_ATTR);
	return 0;
}

int tt_ex_set_str(struct tt_exchange *ex, enum tt_ex_str i, const char *v)
{
	return tt_str_set(&ex->str[i], v);
}

int tt_ex_set_finish(struct tt_exchange *ex, const char *const *r, size_t n)
{
	char **copy = calloc(n + 1, sizeof(*copy));
	size_t i = 0;

	for (; copy && i < n && (copy[i] = strdup(r[i])); i++)
		;
	if (!copy || i < n) {
		while (copy && i--)
			free(copy[i]);
		free(copy);
		return -1;
	}
	for (i = 0; i < ex->nfinish; i++)
		free(ex->finish[i]);
	free(ex->finish);
	ex->finish = copy;
	ex->nfinish = n;
	ex->finish_given = 1;
	ex->finish_length = 0;
	for (i = 0; i < n; i++)
		ex->finish_length |= cut(r[i]);
	return 0;
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
