/* SPDX-License-Identifier: MIT */
/* llm_test.c - LLM JSON extraction: paths, non-streamed bodies, errors, bad JSON. */
#include <string.h>

#include "lib/test_check.h"
#include "proto/split_feed.h"

static void parse_resp(struct pr_llm_call *c, enum pr_llm_api api, const char *body)
{
	pr_llm_call_init(c, api);
	pr_llm_parse_response(c, body, strlen(body));
}

int main(void)
{
	struct pr_llm_call c;
	static const char *const extra[] = { "/proxy/anthropic=anthropic", NULL };
	static const char *const bogus[] = { "/proxy/x=bogus", NULL };

	CHECK(pr_llm_api_of_path("/v1/messages?beta=true", NULL) == XP_API_ANTHROPIC);
	CHECK(pr_llm_api_of_path("/openai/v1/chat/completions", NULL) == XP_API_OPENAI_CHAT);
	CHECK(pr_llm_api_of_path("/v1/responses", NULL) == XP_API_OPENAI_RESPONSES);
	CHECK(pr_llm_api_of_path("/api/generate", NULL) == XP_API_OLLAMA_GENERATE);
	CHECK(pr_llm_api_of_path("/v1/messages/count_tokens", NULL) == XP_API_NONE);
	CHECK(pr_llm_api_of_path("/proxy/anthropic", extra) == XP_API_ANTHROPIC);
	CHECK(!strcmp(pr_llm_provider(XP_API_OLLAMA_CHAT), "ollama"));
	CHECK(pr_llm_api_of_path("/proxy/x", bogus) == XP_API_NONE);

	parse_resp(&c, XP_API_OPENAI_CHAT,
		   "{\"model\":\"m\",\"choices\":[{\"finish_reason\":\"length\",\"message\":{"
		   "\"tool_calls\":[{\"function\":{\"name\":\"a\"}},{\"function\":{\"name\":\"b\"}}]}}],"
		   "\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":4}}");
	CHECK(c.n_tools == 2 && !strcmp(c.tools[1].name, "b") && c.output_tokens == 4);
	CHECK(!strcmp(c.finish_reason, "length"));

	/* a count out of range is no count (was UB: a double cast to int64_t) */
	parse_resp(&c, XP_API_OPENAI_CHAT,
		   "{\"usage\":{\"prompt_tokens\":5e42,\"completion_tokens\":9007199254740992}}");
	CHECK(c.input_tokens == -1 && c.output_tokens == 9007199254740992);

	/* Token categories: cached input and reasoning output, every input token counted once
	 * (Anthropic leaves its cache reads and writes out of input_tokens, OpenAI does not). */
	parse_resp(&c, XP_API_OPENAI_CHAT,
		   "{\"usage\":{\"prompt_tokens\":100,\"completion_tokens\":40,"
		   "\"prompt_tokens_details\":{\"cached_tokens\":64},"
		   "\"completion_tokens_details\":{\"reasoning_tokens\":30}}}");
	CHECK(c.cache_read_tokens == 64 && c.reasoning_tokens == 30 && pr_llm_input_tokens(&c) == 100);
	parse_resp(&c, XP_API_OPENAI_RESPONSES,
		   "{\"usage\":{\"input_tokens\":9,\"output_tokens\":8,"
		   "\"output_tokens_details\":{\"reasoning_tokens\":5}}}");
	CHECK(c.reasoning_tokens == 5 && c.cache_write_tokens == -1);
	parse_resp(&c, XP_API_ANTHROPIC,
		   "{\"usage\":{\"input_tokens\":7,\"output_tokens\":3,\"cache_read_input_tokens\":"
		   "200,\"cache_creation_input_tokens\":50}}");
	CHECK(c.input_tokens == 7 && pr_llm_input_tokens(&c) == 257 && c.reasoning_tokens == -1);

	parse_resp(&c, XP_API_OPENAI_RESPONSES,
		   "{\"status\":\"incomplete\",\"incomplete_details\":{\"reason\":\"max_output_tokens\"}}");
	CHECK(!strcmp(c.finish_reason, "max_output_tokens"));

	parse_resp(&c, XP_API_OPENAI_CHAT, "{\"error\":{\"message\":\"x\",\"type\":\"server_error\"}}");
	CHECK(!strcmp(c.error_type, "server_error"));
	parse_resp(&c, XP_API_OLLAMA_CHAT, "{\"error\":\"model not found\"}");
	CHECK(!strcmp(c.error_type, "model not found"));

	/* broken input: nothing taken, no crash */
	parse_resp(&c, XP_API_ANTHROPIC, "{\"usage\":{\"input_tokens\":");
	CHECK(c.input_tokens == -1);
	parse_resp(&c, XP_API_ANTHROPIC, "{\"usage\":{\"input_tokens\":-5},\"content\":7}");
	CHECK(c.input_tokens == -1 && c.n_tools == 0);

	pr_llm_call_init(&c, XP_API_OLLAMA_CHAT);
	CHECK(c.stream == 1); /* Ollama streams unless told not to */
	const char *req = "{\"stream\":false,\"tools\":[{},{},{}]}";

	pr_llm_parse_request(&c, req, strlen(req));
	CHECK(c.stream == 0);
	for (int i = 0; i < 200; i++)
		pr_llm_stream_event(&c, "", "{\"response\":\"t\"}", 16, (uint64_t)i);
	CHECK(c.n_tokens == 200 && c.token_ns[199] == 199);
	pr_llm_call_free(&c);
	return test_failures != 0;
}
