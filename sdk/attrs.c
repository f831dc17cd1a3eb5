/* SPDX-License-Identifier: MIT */
/*
 * attrs.c - span and mark attributes: the caller's key/value list becomes a
 * cJSON object under OpenTelemetry names.
 *
 * The seed's short keys ("system", "input_tokens", "finish_reason", ...) map
 * to GenAI semantic-convention names through key_map, which also fixes each
 * name's value type (a mistyped value is XP_EINVAL, not a bad file). Strings
 * that are not UTF-8 keep their valid parts, with U+FFFD for each bad byte
 * (a tool's raw output must not make the file invalid JSON). What is never
 * written (credentials, content without opt-in) is decided in privacy.c. A
 * call applies all its attributes or none (they are built aside, then merged).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sdk/internal.h"

/* Value types; U*: >= 0, STATUS: an HTTP status 100..599 (schema/README.md's types). */
enum want { STR, INT, UINT, STATUS, NUM, UNUM, BOOL, STRS, UINTS };

enum how {
	PLAIN,
	WRAP, /* a string array, or one string that becomes a one-element array */
};

static const struct {
	const char *from, *to;
	enum want want;
	enum how how;
} key_map[] = {
	{ "system", "gen_ai.provider.name", STR, PLAIN },
	{ "provider", "gen_ai.provider.name", STR, PLAIN },
	{ "operation", "gen_ai.operation.name", STR, PLAIN },
	{ "request_model", "gen_ai.request.model", STR, PLAIN },
	{ "model", "gen_ai.request.model", STR, PLAIN },
	{ "response_model", "gen_ai.response.model", STR, PLAIN },
	{ "response_id", "gen_ai.response.id", STR, PLAIN },
	{ "temperature", "gen_ai.request.temperature", NUM, PLAIN },
	{ "top_p", "gen_ai.request.top_p", NUM, PLAIN },
	{ "max_tokens", "gen_ai.request.max_tokens", UINT, PLAIN },
	{ "input_tokens", "gen_ai.usage.input_tokens", UINT, PLAIN },
	{ "output_tokens", "gen_ai.usage.output_tokens", UINT, PLAIN },
	{ "cache_read_tokens", "gen_ai.usage.cache_read.input_tokens", UINT, PLAIN },
	{ "cache_read_input_tokens", "gen_ai.usage.cache_read.input_tokens", UINT, PLAIN },
	{ "finish_reason", "gen_ai.response.finish_reasons", STR, WRAP },
	{ "finish_reasons", "gen_ai.response.finish_reasons", STRS, PLAIN },
	{ "time_to_first_token", "gen_ai.server.time_to_first_token", UNUM, PLAIN },
	{ "ttft_ns", "xperf.ttft_ns", UINT, PLAIN }, /* the core adds it in seconds */
	{ "stream", "xperf.stream", BOOL, PLAIN },
	{ "token_times_ns", "xperf.token_times_ns", UINTS, PLAIN },
	{ "status_code", "http.response.status_code", STATUS, PLAIN },
	{ "tool_name", "tool.name", STR, PLAIN },
	{ "tool_call_id", "gen_ai.tool.call.id", STR, PLAIN },
	{ "exit_code", "process.exit.code", INT, PLAIN },
	{ "command_line", "process.command_line", STR, PLAIN },
	{ "response_size", "http.response.body.size", UINT, PLAIN },
};

/* s with each invalid UTF-8 byte replaced by U+FFFD (malloc'd), or NULL when s is valid. */
static char *utf8_fix(const char *s)
{
	size_t o = 0;
	char *fixed;

	if (xp_utf8_valid(s) || !(fixed = malloc(strlen(s) * 3 + 1)))
		return NULL;
	for (size_t n; *s; s += n ? n : 1) {
		n = xp_utf8_len((const unsigned char *)s, strnlen(s, 4));
		memcpy(fixed + o, n ? s : "\xef\xbf\xbd", n ? n : 3);
		o += n ? n : 3;
	}
	fixed[o] = '\0';
	return fixed;
}

/* A JSON string of s: UTF-8 repaired, secrets redacted (privacy.c). */
static cJSON *string_json(const char *s)
{
	char *fixed = utf8_fix(s);
	char *clean = xp_redact(fixed ? fixed : s);
	cJSON *v = cJSON_CreateString(clean ? clean : fixed ? fixed : s);

	free(clean);
	free(fixed);
	return v;
}

/* 1..128 bytes of printable UTF-8. */
static int key_valid(const char *key)
{
	size_t n = 0;

	if (!key)
		return 0;
	for (; key[n]; n++)
		if (n >= 128 || (unsigned char)key[n] <= ' ' || key[n] == 0x7f)
			return 0;
	return n > 0 && xp_utf8_valid(key);
}

static int type_ok(const struct xperf_attr *a, enum want w)
{
	switch (w) {
	case STR:
		return a->type == XP_ATTR_STR;
	case INT:
		return a->type == XP_ATTR_INT;
	case UINT:
		return a->type == XP_ATTR_INT && a->u.i >= 0;
	case STATUS:
		return a->type == XP_ATTR_INT && a->u.i >= 100 && a->u.i <= 599;
	case NUM:
		return a->type == XP_ATTR_INT || a->type == XP_ATTR_DOUBLE;
	case UNUM:
		return (a->type == XP_ATTR_INT && a->u.i >= 0) ||
		       (a->type == XP_ATTR_DOUBLE && a->u.d >= 0);
	case BOOL:
		return a->type == XP_ATTR_BOOL;
	case STRS:
		return a->type == XP_ATTR_STR_ARRAY;
	case UINTS:
		if (a->type != XP_ATTR_INT_ARRAY)
			return 0;
		for (size_t i = 0; a->u.ints.v && i < a->u.ints.n; i++)
			if (a->u.ints.v[i] < 0)
				return 0;
		return 1;
	}
	return 0;
}

/* The JSON value of one attribute; NULL when malformed (or out of memory). */
static cJSON *value_json(const struct xperf_attr *a)
{
	cJSON *arr;

	switch (a->type) {
	case XP_ATTR_STR:
		return a->u.s ? string_json(a->u.s) : NULL;
	case XP_ATTR_INT:
		return xp_json_exact_i64(a->u.i);
	case XP_ATTR_DOUBLE:
		return isfinite(a->u.d) ? cJSON_CreateNumber(a->u.d) : NULL;
	case XP_ATTR_BOOL:
		return cJSON_CreateBool(a->u.b);
	case XP_ATTR_STR_ARRAY:
		if (a->u.strs.n && !a->u.strs.v)
			return NULL;
		for (size_t i = 0; i < a->u.strs.n; i++)
			if (!a->u.strs.v[i])
				return NULL;
		arr = cJSON_CreateArray();
		for (size_t i = 0; arr && i < a->u.strs.n; i++)
			cJSON_AddItemToArray(arr, string_json(a->u.strs.v[i]));
		return arr;
	case XP_ATTR_INT_ARRAY:
		if (a->u.ints.n && !a->u.ints.v)
			return NULL;
		arr = cJSON_CreateArray();
		for (size_t i = 0; arr && i < a->u.ints.n; i++)
			cJSON_AddItemToArray(arr, xp_json_exact_i64(a->u.ints.v[i]));
		return arr;
	}
	return NULL;
}

static int map_index(const char *key)
{
	for (size_t i = 0; i < sizeof(key_map) / sizeof(key_map[0]); i++)
		if (strcmp(key, key_map[i].from) == 0 || strcmp(key, key_map[i].to) == 0)
			return (int)i;
	return -1;
}

static void put(cJSON *obj, const char *key, cJSON *v)
{
	if (cJSON_GetObjectItemCaseSensitive(obj, key))
		cJSON_ReplaceItemInObjectCaseSensitive(obj, key, v);
	else
		cJSON_AddItemToObject(obj, key, v);
}

/*
 * Adds one attribute to obj: under its OTel name when `map`, else under its
 * own key. A key of key_map (short or OTel) must have that entry's type.
 */
static int add_one(cJSON *obj, const struct xperf_attr *a, int map)
{
	int m = map_index(a->key);
	cJSON *v;

	if (m >= 0 && !type_ok(a, key_map[m].want) &&
	    !(key_map[m].how == WRAP && a->type == XP_ATTR_STR_ARRAY))
		return XP_EINVAL;
	v = value_json(a);
	if (!v)
		return XP_EINVAL;
	if (m < 0 || !map) {
		put(obj, a->key, v);
		return 0;
	}
	if (key_map[m].how == WRAP && cJSON_IsString(v)) {
		cJSON *arr = cJSON_CreateArray();

		cJSON_AddItemToArray(arr, v);
		v = arr;
	}
	put(obj, key_map[m].to, v);
	return 0;
}

/*
 * Builds the attributes into obj, under OTel names when map is set; with
 * counts, integers go there instead (counts are >= 0). Withheld keys are
 * skipped: never written, not an error.
 */
static int build(cJSON *obj, const struct xperf_attr *a, size_t n, int capture, int map,
		 cJSON *counts)
{
	if (n && !a)
		return XP_EINVAL;
	for (size_t i = 0; i < n; i++) {
		int err;

		if (!key_valid(a[i].key))
			return XP_EINVAL;
		/* the names of key_map are known and harmless: no privacy scan for them */
		if (map_index(a[i].key) < 0 && sd_withheld(a[i].key, capture))
			continue;
		if (counts && a[i].type == XP_ATTR_INT) {
			if (a[i].u.i < 0)
				return XP_EINVAL;
			put(counts, a[i].key, xp_json_exact_i64(a[i].u.i));
			continue;
		}
		err = add_one(obj, &a[i], map);
		if (err)
			return err;
	}
	return 0;
}

void sd_attrs_join(cJSON **dst, cJSON *src)
{
	cJSON *item;

	if (!src)
		return;
	if (!*dst) {
		*dst = src;
		return;
	}
	while ((item = src->child)) {
		char key[160]; /* cJSON frees the item's own key before copying it */

		snprintf(key, sizeof(key), "%s", item->string);
		cJSON_DetachItemViaPointer(src, item);
		put(*dst, key, item);
	}
	cJSON_Delete(src);
}

int sd_attrs_build(cJSON **out, cJSON **counts, const struct xperf_attr *a, size_t n, int map)
{
	cJSON *o = cJSON_CreateObject(), *c = counts ? cJSON_CreateObject() : NULL;
	int err = o && (c || !counts) ? build(o, a, n, sd_capture(), map, c) : XP_ENOMEM;

	if (err) {
		cJSON_Delete(o);
		cJSON_Delete(c);
		return err;
	}
	*out = o;
	if (counts)
		*counts = c;
	return 0;
}
