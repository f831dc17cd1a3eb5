/* SPDX-License-Identifier: MIT */
/*
 * llm.c - LLM API JSON extraction with cJSON. Where the fields live differs
 * per API; that is data (apis below), read by one set of functions.
 * Streaming formats: Anthropic named SSE events, OpenAI chat chunks ending in
 * "[DONE]", OpenAI Responses typed events, Ollama NDJSON objects.
 */
#include "proto/llm.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "lib/json_int.h"
#include "proto/llm_tools.h"

/*
 * Per API: its name in configuration ("openai-chat"), its default request path
 * suffix, where a response object keeps each field (dotted paths, numbers index
 * arrays), and where the answer's text is (opt-in payload capture): in a
 * streamed event, and in a whole response (an array there: every element's
 * "text").
 */
struct api_info {
	const char *key, *path, *provider;
	int stream_default;
	int in_excludes_cache; /* its input count leaves out cache reads and writes */
	const char *in, *out, *cache_read, *cache_write, *reasoning, *finish;
	const char *stream_text[3], *whole_text[2];
};

static const struct api_info apis[] = { /* indexed by enum pr_llm_api; XP_API_NONE has none */
	[XP_API_ANTHROPIC] = { "anthropic", "/v1/messages", "anthropic", 0, 1, "usage.input_tokens",
	  "usage.output_tokens", "usage.cache_read_input_tokens",
	  "usage.cache_creation_input_tokens", NULL, "stop_reason",
	  { "delta.text", "delta.partial_json", "delta.thinking" }, { "content" } },
	[XP_API_OPENAI_CHAT] = { "openai-chat", "/chat/completions", "openai", 0, 0,
	  "usage.prompt_tokens", "usage.completion_tokens",
	  "usage.prompt_tokens_details.cached_tokens", NULL,
	  "usage.completion_tokens_details.reasoning_tokens", "choices.0.finish_reason",
	  { "choices.0.delta.content" }, { "choices.0.message.content" } },
	[XP_API_OPENAI_RESPONSES] = { "openai-responses", "/v1/responses", "openai", 0, 0,
	  "usage.input_tokens", "usage.output_tokens", "usage.input_tokens_details.cached_tokens",
	  NULL, "usage.output_tokens_details.reasoning_tokens", "incomplete_details.reason",
	  { "delta" }, { "output_text" } },
	[XP_API_OLLAMA_CHAT] = { "ollama-chat", "/api/chat", "ollama", 1, 0, "prompt_eval_count",
	  "eval_count", NULL, NULL, NULL, "done_reason", { "message.content" },
	  { "message.content" } },
	[XP_API_OLLAMA_GENERATE] = { "ollama-generate", "/api/generate", "ollama", 1, 0,
	  "prompt_eval_count", "eval_count", NULL, NULL, NULL, "done_reason", { "response" },
	  { "response" } },
};
#define N_APIS (sizeof(apis) / sizeof(apis[0]))

static const struct api_info *api_info(enum pr_llm_api api)
{
	return api != XP_API_NONE && (size_t)api < N_APIS ? &apis[api] : NULL;
}

static int has_suffix(const char *path, size_t n, const char *suffix, size_t k)
{
	return n >= k && !memcmp(path + n - k, suffix, k);
}

/* The API a configuration name ("openai-chat") names; XP_API_NONE if none. */
static enum pr_llm_api api_parse(const char *key)
{
	for (size_t i = XP_API_NONE + 1; i < N_APIS; i++)
		if (!strcmp(apis[i].key, key))
			return (enum pr_llm_api)i;
	return XP_API_NONE;
}

enum pr_llm_api pr_llm_api_of_path(const char *path, const char *const *extra)
{
	size_t n = strcspn(path, "?#");

	for (; extra && *extra; extra++) {
		const char *eq = strchr(*extra, '=');

		if (eq && has_suffix(path, n, *extra, (size_t)(eq - *extra)))
			return api_parse(eq + 1);
	}
	for (size_t i = XP_API_NONE + 1; i < N_APIS; i++)
		if (has_suffix(path, n, apis[i].path, strlen(apis[i].path)))
			return (enum pr_llm_api)i;
	return XP_API_NONE;
}

const char *pr_llm_provider(enum pr_llm_api api)
{
	const struct api_info *a = api_info(api);

	return a ? a->provider : "unknown";
}

int64_t pr_llm_input_tokens(const struct pr_llm_call *c)
{
	const struct api_info *m = api_info(c->api);
	int64_t n = c->input_tokens;

	if (n < 0 || !m || !m->in_excludes_cache)
		return n;
	return n + (c->cache_read_tokens > 0 ? c->cache_read_tokens : 0) +
	       (c->cache_write_tokens > 0 ? c->cache_write_tokens : 0);
}

void pr_llm_call_init(struct pr_llm_call *c, enum pr_llm_api api)
{
	const struct api_info *a = api_info(api);

	memset(c, 0, sizeof(*c));
	c->api = api;
	c->stream = a ? a->stream_default : 0;
	c->input_tokens = c->output_tokens = -1;
	c->cache_read_tokens = c->cache_write_tokens = c->reasoning_tokens = -1;
}

void pr_llm_call_free(struct pr_llm_call *c)
{
	for (int i = 0; i < c->n_tools; i++) {
		free(c->tools[i].args);
		c->tools[i].args = NULL;
	}
	free(c->token_ns);
	free(c->text);
	c->token_ns = NULL;
	c->text = NULL;
	c->n_tokens = c->cap_tokens = c->text_len = 0;
}

void pr_llm_call_move(struct pr_llm_call *dst, struct pr_llm_call *src)
{
	*dst = *src;
	for (int i = 0; i < src->n_tools; i++)
		src->tools[i].args = NULL;
	src->token_ns = NULL;
	src->text = NULL;
	src->n_tokens = src->cap_tokens = src->text_len = 0;
}

const struct pr_tool_result *pr_llm_result_of(const struct pr_llm_call *c, const char *id)
{
	for (int i = c->n_results; id[0] && i > 0; i--)
		if (!strcmp(c->results[i - 1].id, id))
			return &c->results[i - 1];
	return NULL;
}

static void set_str(char *dst, size_t cap, const cJSON *o, const char *path)
{
	const char *v = pr_jstr(o, path);

	if (v)
		snprintf(dst, cap, "%s", v);
}

/* A count the API reported; one out of int64_t's range (5e42) is no count. */
static void set_int(int64_t *dst, const cJSON *o, const char *path)
{
	int64_t n;

	if (path && !xp_json_get_i64(pr_jget(o, path), &n) && n >= 0)
		*dst = n;
}

static void take_error(struct pr_llm_call *c, const cJSON *o)
{
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(o, "error");

	if (cJSON_IsString(e)) /* Ollama: "error": "message" */
		set_str(c->error_type, sizeof(c->error_type), o, "error");
	set_str(c->error_type, sizeof(c->error_type), e, "code");
	set_str(c->error_type, sizeof(c->error_type), e, "type");
}

/* Usage, model, finish reason (and tools when with_tools) from one response object. */
static void take_fields(struct pr_llm_call *c, const cJSON *o, int with_tools)
{
	const struct api_info *m = api_info(c->api);

	if (!m || !cJSON_IsObject(o))
		return;
	set_str(c->resp_model, sizeof(c->resp_model), o, "model");
	set_int(&c->input_tokens, o, m->in);
	set_int(&c->output_tokens, o, m->out);
	set_int(&c->cache_read_tokens, o, m->cache_read);
	set_int(&c->cache_write_tokens, o, m->cache_write);
	set_int(&c->reasoning_tokens, o, m->reasoning);
	set_str(c->finish_reason, sizeof(c->finish_reason), o, m->finish);
	if (with_tools)
		pr_tools_from_answer(c, o);
	take_error(c, o);
}

static void append_text(struct pr_llm_call *c, const char *s)
{
	pr_text_append(&c->text, &c->text_len, XP_LLM_TEXT_MAX, s, strlen(s));
}

/* Appends the strings at the paths (an array: each element's "text"). */
static void take_text(struct pr_llm_call *c, const cJSON *o, const char *const *paths, size_t n)
{
	for (size_t i = 0; i < n && c->keep_text; i++) {
		const cJSON *v = paths[i] ? pr_jget(o, paths[i]) : NULL, *it;
		const cJSON *arr = cJSON_IsArray(v) ? v : NULL;
		const char *s = pr_jstr(v, ""); /* the empty path: v itself, walked once */

		if (s)
			append_text(c, s);
		cJSON_ArrayForEach(it, arr)
			if ((s = pr_jstr(it, "text")))
				append_text(c, s);
	}
}

void pr_llm_parse_request(struct pr_llm_call *c, const char *body, size_t len)
{
	cJSON *j = cJSON_ParseWithLength(body, len);

	if (!j)
		return;
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(j, "stream");

	set_str(c->req_model, sizeof(c->req_model), j, "model");
	if (cJSON_IsBool(s))
		c->stream = cJSON_IsTrue(s);
	pr_tools_from_request(c, j);
	cJSON_Delete(j);
}

void pr_llm_parse_response(struct pr_llm_call *c, const char *body, size_t len)
{
	cJSON *j = cJSON_ParseWithLength(body, len);

	if (!j)
		return;
	take_fields(c, j, 1);
	if (c->api == XP_API_OPENAI_RESPONSES && !c->finish_reason[0])
		set_str(c->finish_reason, sizeof(c->finish_reason), j, "status");
	if (api_info(c->api))
		take_text(c, j, api_info(c->api)->whole_text, 2);
	cJSON_Delete(j);
}

static void token_at(struct pr_llm_call *c, uint64_t t_ns)
{
	if (xp_grow((void **)&c->token_ns, &c->cap_tokens, c->n_tokens + 1, sizeof(uint64_t)))
		return; /* the count stays right up to here; times after are lost */
	c->token_ns[c->n_tokens++] = t_ns;
}

static void anthropic_event(struct pr_llm_call *c, const char *type, const cJSON *j,
			    uint64_t t_ns)
{
	if (!strcmp(type, "message_start")) {
		take_fields(c, pr_jget(j, "message"), 0);
	} else if (!strcmp(type, "content_block_start")) {
		pr_tools_anthropic_event(c, type, j);
	} else if (!strcmp(type, "content_block_delta")) {
		pr_tools_anthropic_event(c, type, j);
		token_at(c, t_ns);
	} else if (!strcmp(type, "message_delta")) {
		set_int(&c->output_tokens, j, "usage.output_tokens");
		set_int(&c->input_tokens, j, "usage.input_tokens");
		set_str(c->finish_reason, sizeof(c->finish_reason), j, "delta.stop_reason");
	} else if (!strcmp(type, "message_stop")) {
		c->stream_done = 1;
	} else if (!strcmp(type, "error")) {
		take_error(c, j);
	}
}

static void openai_chat_chunk(struct pr_llm_call *c, const cJSON *j, uint64_t t_ns)
{
	const cJSON *delta = pr_jget(j, "choices.0.delta");
	const cJSON *calls = pr_jget(delta, "tool_calls");
	int has_calls = pr_tools_chat_delta(c, calls);

	take_fields(c, j, 0);
	if (pr_jstr(delta, "content") || pr_jstr(delta, "reasoning_content") || has_calls)
		token_at(c, t_ns);
}

static void responses_event(struct pr_llm_call *c, const char *type, const cJSON *j,
			    uint64_t t_ns)
{
	size_t n = strlen(type);

	if (n > 6 && !strcmp(type + n - 6, ".delta")) {
		token_at(c, t_ns);
	} else if (!strcmp(type, "response.completed") || !strcmp(type, "response.incomplete") ||
		   !strcmp(type, "response.failed")) {
		take_fields(c, pr_jget(j, "response"), 1);
		if (!c->finish_reason[0])
			set_str(c->finish_reason, sizeof(c->finish_reason), j, "response.status");
		c->stream_done = 1;
	} else if (!strcmp(type, "response.created")) {
		take_fields(c, pr_jget(j, "response"), 0);
	} else if (!strcmp(type, "error")) {
		take_error(c, j);
	}
}

static void ollama_line(struct pr_llm_call *c, const cJSON *j, uint64_t t_ns)
{
	take_fields(c, j, 1);
	if (pr_jstr(j, "message.content") || pr_jstr(j, "response") ||
	    cJSON_GetArraySize(pr_jget(j, "message.tool_calls")) > 0)
		token_at(c, t_ns);
	if (cJSON_IsTrue(pr_jget(j, "done")))
		c->stream_done = 1;
}

void pr_llm_stream_event(struct pr_llm_call *c, const char *event, const char *data, size_t len,
			 uint64_t t_ns)
{
	if (c->api == XP_API_OPENAI_CHAT && len == 6 && !memcmp(data, "[DONE]", 6)) {
		c->stream_done = 1;
		return;
	}
	cJSON *j = cJSON_ParseWithLength(data, len);

	if (!j)
		return;
	const cJSON *type = pr_jget(j, "type");
	const char *t = event[0] ? event : (cJSON_IsString(type) ? type->valuestring : "");

	if (api_info(c->api))
		take_text(c, j, api_info(c->api)->stream_text, 3);
	switch (c->api) {
	case XP_API_ANTHROPIC:
		anthropic_event(c, t, j, t_ns);
		break;
	case XP_API_OPENAI_CHAT:
		openai_chat_chunk(c, j, t_ns);
		break;
	case XP_API_OPENAI_RESPONSES:
		responses_event(c, t, j, t_ns);
		break;
	default:
		ollama_line(c, j, t_ns);
		break;
	}
	cJSON_Delete(j);
}
