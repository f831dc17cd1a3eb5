/* SPDX-License-Identifier: MIT */
/*
 * llm.h - what one LLM API call says about itself, from its JSON: provider,
 * models, streaming, token usage, stop/finish reason, the tools the model
 * asked for, error type, and the time of every streamed token event.
 * Supported: Anthropic Messages, OpenAI Chat Completions and Responses,
 * Ollama /api/chat and /api/generate, streaming (SSE or NDJSON) and not.
 * No prompt or completion text is kept, unless keep_text is set (opt-in).
 */
#ifndef XPERF_PROTO_LLM_H
#define XPERF_PROTO_LLM_H

#include <stddef.h>
#include <stdint.h>

enum xp_llm_api {
	XP_API_NONE,
	XP_API_ANTHROPIC,
	XP_API_OPENAI_CHAT,
	XP_API_OPENAI_RESPONSES,
	XP_API_OLLAMA_CHAT,
	XP_API_OLLAMA_GENERATE,
};

#define XP_LLM_MAX_TOOLS 16

struct xp_llm_call {
	enum xp_llm_api api;
	int stream;          /* the request asked for streaming */
	int status;          /* HTTP status */
	char req_model[128];
	char resp_model[128];
	int64_t input_tokens;  /* -1 unknown */
	int64_t output_tokens; /* -1 unknown */
	int64_t cache_read_tokens;
	int64_t cache_write_tokens;
	int64_t reasoning_tokens; /* OpenAI *_tokens_details.reasoning_tokens (part of output) */
	char finish_reason[32];
	char error_type[64];
	int tools_offered;          /* tool definitions in the request */
	char tools[XP_LLM_MAX_TOOLS][64]; /* tools the model asked to call */
	int n_tools;
	int stream_done;            /* the stream's own end event was seen */
	int unparsed;               /* a JSON document could not be parsed */
	uint64_t *token_ns;         /* time of each streamed token event */
	size_t n_tokens, cap_tokens;
	int keep_text;              /* opt-in (--capture-payloads): collect the answer's text */
	char *text;                 /* the answer's text (and tool arguments), capped */
	size_t text_len;
};

#define XP_LLM_TEXT_MAX (64u << 10)

/*
 * The API a request path belongs to, by path suffix (query string ignored):
 * first the extra "SUFFIX=API" rules (NULL-terminated list, may be NULL), then
 * the defaults. XP_API_NONE if none matches.
 */
enum xp_llm_api xp_llm_api_of_path(const char *path, const char *const *extra);
/* "anthropic", "openai-chat", "openai-responses", "ollama-chat", "ollama-generate". */
enum xp_llm_api xp_llm_api_parse(const char *key);
/* "anthropic", "openai" or "ollama". */
const char *xp_llm_provider(enum xp_llm_api api);
/* "stop", "length", "tool_calls" ... normalised: 1 when the output was cut at the token limit. */
/* Every input token of the call, cache reads and writes included (as OTel's
 * gen_ai.usage.input_tokens counts them; Anthropic's input_tokens leaves them out). */
int64_t xp_llm_input_tokens(const struct xp_llm_call *c);
int xp_llm_finish_is_truncation(const char *finish_reason);

void xp_llm_call_init(struct xp_llm_call *c, enum xp_llm_api api);
void xp_llm_call_free(struct xp_llm_call *c);
/* Reads the request body (model, stream, tools offered). */
void xp_llm_parse_request(struct xp_llm_call *c, const char *body, size_t len);
/* Reads a whole non-streamed response body. */
void xp_llm_parse_response(struct xp_llm_call *c, const char *body, size_t len);
/* Reads one streamed event (an SSE event or an NDJSON line) received at t_ns. */
void xp_llm_stream_event(struct xp_llm_call *c, const char *event, const char *data, size_t len,
			 uint64_t t_ns);

#endif /* XPERF_PROTO_LLM_H */
