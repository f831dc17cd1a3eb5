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

enum pr_llm_api {
	XP_API_NONE,
	XP_API_ANTHROPIC,
	XP_API_OPENAI_CHAT,
	XP_API_OPENAI_RESPONSES,
	XP_API_OLLAMA_CHAT,
	XP_API_OLLAMA_GENERATE,
};

#define XP_LLM_MAX_TOOLS 16
#define XP_LLM_MAX_RESULTS 32
#define XP_TOOL_ARGS_MAX 4096u

/* One tool call the model asked for (llm_tools.c). */
struct pr_tool_call {
	char name[64];
	char id[96];  /* the provider's call id ("toolu_...", "call_..."); may be empty (Ollama) */
	int index;    /* its position in the stream (content block, tool_calls index) */
	char *args;   /* the arguments as the model wrote them (JSON), cut at XP_TOOL_ARGS_MAX:
		       * kept in memory to match the call to a process; written only on opt-in */
	size_t args_len;
};

/* One tool result the agent sent back in a request (tool_result, function_call_output). */
struct pr_tool_result {
	char id[96];
	int is_error;  /* 1: the agent said the tool failed, 0: it did not, -1: not said */
	int exit_code; /* -1: not said (Codex-style outputs carry metadata.exit_code) */
};

struct pr_llm_call {
	enum pr_llm_api api;
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
	struct pr_tool_call tools[XP_LLM_MAX_TOOLS]; /* tools the model asked to call */
	int n_tools;
	struct pr_tool_result results[XP_LLM_MAX_RESULTS]; /* the request's latest tool results */
	int n_results;
	char conversation_id[128]; /* the agent's session / conversation id, when it sends one */
	int stream_done;            /* the stream's own end event was seen */
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
enum pr_llm_api pr_llm_api_of_path(const char *path, const char *const *extra);
/* "anthropic", "openai" or "ollama". */
const char *pr_llm_provider(enum pr_llm_api api);
/* Every input token of the call, cache reads and writes included (as OTel's
 * gen_ai.usage.input_tokens counts them; Anthropic's input_tokens leaves them out). */
int64_t pr_llm_input_tokens(const struct pr_llm_call *c);

void pr_llm_call_init(struct pr_llm_call *c, enum pr_llm_api api);
void pr_llm_call_free(struct pr_llm_call *c);
/* Moves src into dst (dst owns src's buffers; src keeps none). */
void pr_llm_call_move(struct pr_llm_call *dst, struct pr_llm_call *src);
/* The tool result the request carries for call id, or NULL. */
const struct pr_tool_result *pr_llm_result_of(const struct pr_llm_call *c, const char *id);
/* Reads the request body (model, stream, the tool results it carries). */
void pr_llm_parse_request(struct pr_llm_call *c, const char *body, size_t len);
/* Reads a whole non-streamed response body. */
void pr_llm_parse_response(struct pr_llm_call *c, const char *body, size_t len);
/* Reads one streamed event (an SSE event or an NDJSON line) received at t_ns. */
void pr_llm_stream_event(struct pr_llm_call *c, const char *event, const char *data, size_t len,
			 uint64_t t_ns);

#endif /* XPERF_PROTO_LLM_H */
