/* SPDX-License-Identifier: MIT */
/*
 * llm_tools.h - inside proto/ only: what llm.c hands to llm_tools.c. The
 * model's tool calls (name, call id, arguments) from whole answers and from
 * streamed deltas, the tool results an agent sends back in its next request,
 * and the conversation id a request carries. Where each API keeps them is
 * data (tables in llm_tools.c).
 */
#ifndef XPERF_PROTO_LLM_TOOLS_H
#define XPERF_PROTO_LLM_TOOLS_H

#include <cjson/cJSON.h>

#include "proto/llm.h"

/* Appends n bytes of s to *buf (NUL-terminated, *len bytes), cut at max in all. */
void pr_text_append(char **buf, size_t *len, size_t max, const char *s, size_t n);
/* Follows a dotted path ("choices.0.delta"); NULL when any step is missing. */
const cJSON *pr_jget(const cJSON *o, const char *path);
/* The non-empty string at path, else NULL (path NULL: NULL). */
const char *pr_jstr(const cJSON *o, const char *path);
/* The tool calls of a whole answer object (a response, response.completed's response). */
void pr_tools_from_answer(struct pr_llm_call *c, const cJSON *o);
/* Anthropic content_block_start / content_block_delta events. */
void pr_tools_anthropic_event(struct pr_llm_call *c, const char *type, const cJSON *j);
/* An OpenAI Chat Completions chunk's delta.tool_calls; 1 when it carried any. */
int pr_tools_chat_delta(struct pr_llm_call *c, const cJSON *calls);
/* The tool results and the conversation id of a request body. */
void pr_tools_from_request(struct pr_llm_call *c, const cJSON *req);

#endif /* XPERF_PROTO_LLM_TOOLS_H */
