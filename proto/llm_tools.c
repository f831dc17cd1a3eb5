/* SPDX-License-Identifier: MIT */
/*
 * llm_tools.c - the model's tool calls and the agent's tool results. Where
 * each API keeps a call's name, id and arguments in an answer, and a result's
 * call id and error flag in the next request, is a table; streamed arguments
 * (Anthropic input_json_delta, Chat Completions argument pieces) are joined
 * per call. Arguments stay in memory (the assembler matches them to the
 * process that ran the tool); nothing here writes them anywhere.
 */
#define _GNU_SOURCE
#include "proto/llm_tools.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where an answer lists its tool calls. */
struct call_shape {
	enum pr_llm_api api;
	const char *list;  /* array of calls */
	const char *type;  /* required "type" of an element, or NULL */
	const char *name;  /* name inside an element, or NULL: fixed_name */
	const char *id;    /* call id inside an element, or NULL */
	const char *args;  /* arguments: a JSON string, or an object / array printed as JSON */
	const char *fixed_name;
};

static const struct call_shape call_shapes[] = {
	{ XP_API_ANTHROPIC, "content", "tool_use", "name", "id", "input", NULL },
	{ XP_API_OPENAI_CHAT, "choices.0.message.tool_calls", NULL, "function.name", "id",
	  "function.arguments", NULL },
	{ XP_API_OPENAI_RESPONSES, "output", "function_call", "name", "call_id", "arguments", NULL },
	{ XP_API_OPENAI_RESPONSES, "output", "custom_tool_call", "name", "call_id", "input", NULL },
	{ XP_API_OPENAI_RESPONSES, "output", "local_shell_call", NULL, "call_id", "action",
	  "local_shell" },
	{ XP_API_OLLAMA_CHAT, "message.tool_calls", NULL, "function.name", NULL,
	  "function.arguments", NULL },
};

/* Where a request carries the results of earlier tool calls. */
struct result_shape {
	enum pr_llm_api api;
	const char *list;      /* array of messages / input items */
	const char *inner;     /* array inside each element holding the results, or NULL */
	const char *key;       /* field that must be present (or equal want) */
	const char *want;      /* its required string value, or NULL */
	const char *id;        /* the call id */
	const char *is_error;  /* a boolean, or NULL */
	const char *output;    /* text that may be JSON with metadata.exit_code, or NULL */
};

static const struct result_shape result_shapes[] = {
	{ XP_API_ANTHROPIC, "messages", "content", "type", "tool_result", "tool_use_id", "is_error",
	  NULL },
	{ XP_API_OPENAI_CHAT, "messages", NULL, "role", "tool", "tool_call_id", NULL, "content" },
	{ XP_API_OPENAI_RESPONSES, "input", NULL, "type", "function_call_output", "call_id", NULL,
	  "output" },
	{ XP_API_OPENAI_RESPONSES, "input", NULL, "type", "custom_tool_call_output", "call_id", NULL,
	  "output" },
	{ XP_API_OPENAI_RESPONSES, "input", NULL, "type", "local_shell_call_output", "call_id", NULL,
	  "output" },
};

/* Request fields that name the agent's conversation, first found wins. */
static const char *const conversation_paths[] = {
	"conversation_id", "conversation.id", "conversation", "session_id", "metadata.session_id",
	"metadata.conversation_id", "prompt_cache_key", "metadata.user_id", NULL,
};

const cJSON *pr_jget(const cJSON *o, const char *path)
{
	char key[64];

	while (o && path && *path) {
		size_t n = strcspn(path, ".");

		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = '\0';
		if (cJSON_IsArray(o))
			o = (key[0] >= '0' && key[0] <= '9') ? cJSON_GetArrayItem(o, atoi(key)) : NULL;
		else
			o = cJSON_GetObjectItemCaseSensitive(o, key);
		path = path[n] ? path + n + 1 : NULL;
	}
	return o;
}

const char *pr_jstr(const cJSON *o, const char *path)
{
	const cJSON *v = path ? pr_jget(o, path) : NULL;

	return cJSON_IsString(v) && v->valuestring[0] ? v->valuestring : NULL;
}

void pr_text_append(char **buf, size_t *len, size_t max, const char *s, size_t n)
{
	if (*len + n > max)
		n = max - *len;
	char *nb = n ? realloc(*buf, *len + n + 1) : NULL;

	if (!nb)
		return;
	*buf = nb;
	memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[*len] = '\0';
}

static void args_append(struct pr_tool_call *t, const char *s, size_t n)
{
	pr_text_append(&t->args, &t->args_len, XP_TOOL_ARGS_MAX, s, n);
}

static struct pr_tool_call *by_index(struct pr_llm_call *c, int index)
{
	for (int i = 0; i < c->n_tools; i++)
		if (c->tools[i].index == index)
			return &c->tools[i];
	return NULL;
}

static struct pr_tool_call *add(struct pr_llm_call *c, const char *name, const char *id,
				int index)
{
	if (c->n_tools >= XP_LLM_MAX_TOOLS)
		return NULL;
	struct pr_tool_call *t = &c->tools[c->n_tools++];

	*t = (struct pr_tool_call){ .index = index };
	snprintf(t->name, sizeof(t->name), "%s", name);
	snprintf(t->id, sizeof(t->id), "%s", id ? id : "");
	return t;
}

/* Arguments as a string: a JSON string's value, anything else printed as JSON. */
static void set_args(struct pr_tool_call *t, const cJSON *v)
{
	if (cJSON_IsString(v)) {
		args_append(t, v->valuestring, strlen(v->valuestring));
	} else if (v && !cJSON_IsNull(v)) {
		char *s = cJSON_PrintUnformatted(v);

		if (s)
			args_append(t, s, strlen(s));
		free(s);
	}
}

void pr_tools_from_answer(struct pr_llm_call *c, const cJSON *o)
{
	for (size_t k = 0; k < sizeof(call_shapes) / sizeof(call_shapes[0]); k++) {
		const struct call_shape *m = &call_shapes[k];
		const cJSON *it;
		int index = 0;

		if (m->api != c->api)
			continue;
		cJSON_ArrayForEach(it, pr_jget(o, m->list)) {
			const char *type = pr_jstr(it, "type");
			const char *name = m->name ? pr_jstr(it, m->name) : m->fixed_name;
			struct pr_tool_call *t;

			index++;
			if ((m->type && (!type || strcmp(type, m->type))) || !name)
				continue;
			t = add(c, name, pr_jstr(it, m->id), index - 1);
			if (t)
				set_args(t, pr_jget(it, m->args));
		}
	}
}

void pr_tools_anthropic_event(struct pr_llm_call *c, const char *type, const cJSON *j)
{
	int index = cJSON_IsNumber(pr_jget(j, "index")) ? pr_jget(j, "index")->valueint : -1;

	if (!strcmp(type, "content_block_start")) {
		const cJSON *b = pr_jget(j, "content_block");
		const char *bt = pr_jstr(b, "type");

		if (bt && !strcmp(bt, "tool_use") && pr_jstr(b, "name")) {
			struct pr_tool_call *t = add(c, pr_jstr(b, "name"), pr_jstr(b, "id"),
						     index);
			const cJSON *in = pr_jget(b, "input");

			/* "input": {} announces the arguments that input_json_delta streams */
			if (t && cJSON_GetArraySize(in) > 0)
				set_args(t, in);
		}
	} else if (!strcmp(type, "content_block_delta")) {
		const char *part = pr_jstr(j, "delta.partial_json");
		struct pr_tool_call *t = by_index(c, index);

		if (t && part)
			args_append(t, part, strlen(part));
	}
}

int pr_tools_chat_delta(struct pr_llm_call *c, const cJSON *calls)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, calls) {
		const cJSON *ix = pr_jget(it, "index");
		int index = cJSON_IsNumber(ix) ? ix->valueint : 0;
		struct pr_tool_call *t = by_index(c, index);
		const char *part = pr_jstr(it, "function.arguments");

		if (!t && pr_jstr(it, "function.name"))
			t = add(c, pr_jstr(it, "function.name"), pr_jstr(it, "id"), index);
		if (t && part)
			args_append(t, part, strlen(part));
	}
	return cJSON_GetArraySize(calls) > 0;
}

/* The newest results win: older ones are shifted out when the table is full. */
static struct pr_tool_result *result_slot(struct pr_llm_call *c)
{
	if (c->n_results == XP_LLM_MAX_RESULTS) {
		memmove(c->results, c->results + 1, (XP_LLM_MAX_RESULTS - 1) * sizeof(c->results[0]));
		c->n_results--;
	}
	return &c->results[c->n_results++];
}

/* metadata.exit_code inside an output that is itself JSON text (Codex shell outputs). */
static int exit_code_in(const char *output)
{
	cJSON *j = output && output[0] == '{' ? cJSON_Parse(output) : NULL;
	const cJSON *v = pr_jget(j, "metadata.exit_code");
	int code = cJSON_IsNumber(v) ? v->valueint : -1;

	cJSON_Delete(j);
	return code;
}

static void take_result(struct pr_llm_call *c, const struct result_shape *m, const cJSON *it)
{
	const char *key = pr_jstr(it, m->key), *id = pr_jstr(it, m->id);
	const cJSON *err = m->is_error ? pr_jget(it, m->is_error) : NULL;

	if (!key || !id || (m->want && strcmp(key, m->want)))
		return;
	struct pr_tool_result *r = result_slot(c);

	snprintf(r->id, sizeof(r->id), "%s", id);
	r->exit_code = exit_code_in(pr_jstr(it, m->output));
	r->is_error = cJSON_IsBool(err) ? cJSON_IsTrue(err) : m->is_error ? 0 : -1;
	if (r->exit_code >= 0)
		r->is_error = r->exit_code != 0;
}

static void take_conversation(struct pr_llm_call *c, const cJSON *req)
{
	for (const char *const *p = conversation_paths; *p && !c->conversation_id[0]; p++) {
		const char *v = pr_jstr(req, *p);
		const char *session = v ? strstr(v, "_session_") : NULL;

		/* Claude Code's metadata.user_id: "user_<hash>_account_<id>_session_<uuid>" */
		if (!strcmp(*p, "metadata.user_id"))
			v = session ? session + 9 : NULL;
		if (v)
			snprintf(c->conversation_id, sizeof(c->conversation_id), "%s", v);
	}
}

void pr_tools_from_request(struct pr_llm_call *c, const cJSON *req)
{
	for (size_t k = 0; k < sizeof(result_shapes) / sizeof(result_shapes[0]); k++) {
		const struct result_shape *m = &result_shapes[k];
		const cJSON *msg, *it;

		if (m->api != c->api)
			continue;
		cJSON_ArrayForEach(msg, pr_jget(req, m->list)) {
			if (!m->inner) {
				take_result(c, m, msg);
				continue;
			}
			cJSON_ArrayForEach(it, pr_jget(msg, m->inner))
				take_result(c, m, it);
		}
	}
	take_conversation(c, req);
}
