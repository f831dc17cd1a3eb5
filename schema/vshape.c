/* SPDX-License-Identifier: MIT */
/*
 * vshape.c - the structural rules of TurnTrace v1, the same ones
 * turntrace.schema.json states, as tables walked by one generic checker.
 *
 * Structural objects are closed (an unknown property is an error: a typo
 * must not pass silently); `attributes` maps are open but the attributes
 * schema/README.md names (GenAI usage, status code, exit code...) are typed.
 * Waste kinds and counter names come from theory, not from copies.
 */
#include "schema/vcheck.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/clock_anchor.h"
#include "lib/json_int.h"
#include "theory/theory.h"

enum vkind {
	V_STRING,
	V_INT,
	V_NUMBER,  /* finite and >= 0 */
	V_BOOL,
	V_OBJECT,  /* closed: fields */
	V_ARRAY,   /* items */
	V_MAP,     /* open keys (checked by `known` when set), values of type items */
	V_ATTRS,   /* open keys; known keys typed by attr_types, others scalar or array */
};

struct vfield;

struct vtype {
	enum vkind kind;
	int nullable;
	long long min, max;           /* V_INT bounds, inclusive */
	const char *const *oneof;     /* V_STRING: NULL-terminated allowed values */
	int (*known)(const char *s);  /* V_STRING value or V_MAP key known to theory */
	const char *what;             /* noun for `known` failures */
	const char *form;             /* V_STRING: `known` checks syntax; what the value must be */
	size_t minlen, maxlen;        /* V_STRING bytes; maxlen 0 = unlimited */
	const char *charset;          /* V_STRING allowed bytes, NULL = any */
	const struct vfield *fields;  /* V_OBJECT, NULL-terminated */
	const struct vtype *items;    /* V_ARRAY items, V_MAP values */
};

struct vfield {
	const char *name;
	int required;
	const struct vtype *type;
};

static int waste_kind_known(const char *s)
{
	return th_waste_kind_find(s) != NULL;
}

static int counter_known(const char *s)
{
	return th_counter_name_find(s) != NULL;
}

static int boot_id_known(const char *s)
{
	return xp_boot_id_valid(s);
}

#define INT_T(lo, hi) { .kind = V_INT, .min = (lo), .max = (hi) }
#define ENUM_T(list) { .kind = V_STRING, .oneof = (list) }

static const char *const versions[] = { "1.0", NULL };
static const char *const sources[] = { "sdk", "ebpf", "merged", NULL };
static const char *const clocks[] = { "CLOCK_MONOTONIC", NULL };
static const char *const domains[] = { "compute", "intelligent", "fused", NULL };
static const char *const categories[] = { "supply", "processing", "waste", "effective", NULL };
static const char *const gpu_sources[] = { "cupti", "uprobe", NULL };
static const char *const tiers[] = { "sdk", "plaintext", "ciphertext", NULL };
static const char *const tool_identities[] = { "model", "unknown", NULL };

static const struct vtype t_str = { .kind = V_STRING };
static const struct vtype t_name = { .kind = V_STRING, .minlen = 1 };
static const struct vtype t_str_or_null = { .kind = V_STRING, .nullable = 1 };
static const struct vtype t_bool = { .kind = V_BOOL };
static const struct vtype t_ns = INT_T(0, LLONG_MAX);
static const struct vtype t_id = INT_T(1, LLONG_MAX);
static const struct vtype t_id_or_null = { .kind = V_INT, .nullable = 1, .min = 1,
					   .max = LLONG_MAX };
static const struct vtype t_pid = INT_T(1, INT_MAX);
static const struct vtype t_any_int = INT_T(LLONG_MIN, LLONG_MAX);
static const struct vtype t_http_status = INT_T(100, 599);
static const struct vtype t_port = INT_T(1, 65535);
static const struct vtype t_number = { .kind = V_NUMBER };
static const struct vtype t_session = { .kind = V_STRING, .minlen = 1, .maxlen = 128,
					.charset = "abcdefghijklmnopqrstuvwxyz"
						   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-" };
static const struct vtype t_version = ENUM_T(versions);
static const struct vtype t_source = ENUM_T(sources);
static const struct vtype t_clock = ENUM_T(clocks);
static const struct vtype t_domain = ENUM_T(domains);
static const struct vtype t_category = ENUM_T(categories);
static const struct vtype t_fused_kind = ENUM_T(th_fused_kind_names);
static const struct vtype t_gpu_kind = ENUM_T(th_gpu_kind_names);
static const struct vtype t_gpu_source = ENUM_T(gpu_sources);
static const struct vtype t_tier = ENUM_T(tiers);
static const struct vtype t_tool_identity = ENUM_T(tool_identities);
static const struct vtype t_waste_kind = { .kind = V_STRING, .known = waste_kind_known,
					   .what = "waste kind" };
static const struct vtype t_boot_id = { .kind = V_STRING, .known = boot_id_known,
				       .form = "a boot id (8-4-4-4-12 lowercase hex)" };
static const struct vtype t_strings = { .kind = V_ARRAY, .items = &t_str };
static const struct vtype t_ns_list = { .kind = V_ARRAY, .items = &t_ns };
static const struct vtype t_attrs = { .kind = V_ATTRS };
static const struct vtype t_counts = { .kind = V_MAP, .items = &t_ns };
static const struct vtype t_ctr_values = { .kind = V_MAP, .items = &t_number,
					   .known = counter_known, .what = "counter name" };
static const struct vtype t_ctr_why = { .kind = V_MAP, .items = &t_name,
					.known = counter_known, .what = "counter name" };

#define OBJ_T(f) { .kind = V_OBJECT, .fields = (f) }

static const struct vfield sched_fields[] = {
	{ "on_cpu_ns", 0, &t_ns }, { "runq_ns", 0, &t_ns }, { "blocked_ns", 0, &t_ns },
	{ NULL, 0, NULL },
};
static const struct vtype t_sched = OBJ_T(sched_fields);

static const struct vfield counter_fields[] = {
	{ "values", 0, &t_ctr_values }, { "unavailable", 0, &t_ctr_why }, { NULL, 0, NULL },
};
static const struct vtype t_counters = OBJ_T(counter_fields);

static const struct vfield span_fields[] = {
	{ "id", 1, &t_id }, { "parent", 1, &t_id_or_null }, { "stage", 1, &t_name },
	{ "custom_stage", 0, &t_bool }, { "domain", 1, &t_domain },
	{ "category", 1, &t_category }, { "start_ns", 1, &t_ns }, { "end_ns", 1, &t_ns },
	{ "tid", 0, &t_pid }, { "sched", 0, &t_sched }, { "counters", 0, &t_counters },
	{ "attributes", 0, &t_attrs }, { NULL, 0, NULL },
};
static const struct vtype t_span = OBJ_T(span_fields);

static const struct vfield agent_fields[] = {
	{ "name", 1, &t_name }, { "model", 0, &t_str }, { "pid", 1, &t_pid },
	{ "start_time_ns", 0, &t_ns }, { "comm", 0, &t_str },
	{ "container_id", 0, &t_str_or_null }, { NULL, 0, NULL },
};
static const struct vtype t_agent = OBJ_T(agent_fields);

static const struct vfield anchor_fields[] = {
	{ "monotonic_ns", 1, &t_ns }, { "realtime_ns", 1, &t_ns }, { "boot_id", 0, &t_boot_id },
	{ NULL, 0, NULL },
};
static const struct vtype t_anchor = OBJ_T(anchor_fields);

static const struct vfield fused_fields[] = {
	{ "kind", 1, &t_fused_kind }, { "t_ns", 1, &t_ns }, { "span", 0, &t_id_or_null },
	{ "attributes", 0, &t_attrs }, { NULL, 0, NULL },
};
static const struct vtype t_fused = OBJ_T(fused_fields);

static const struct vfield waste_fields[] = {
	{ "kind", 1, &t_waste_kind }, { "l3", 1, &t_name }, { "span", 0, &t_id_or_null },
	{ "t_ns", 1, &t_ns }, { "counts", 0, &t_counts }, { "attributes", 0, &t_attrs },
	{ NULL, 0, NULL },
};
static const struct vtype t_waste = OBJ_T(waste_fields);

static const struct vfield activity_fields[] = {
	{ "kind", 1, &t_gpu_kind }, { "name", 0, &t_str }, { "start_ns", 1, &t_ns },
	{ "end_ns", 1, &t_ns }, { "device", 0, &t_ns }, { "stream", 0, &t_ns },
	{ "correlation_id", 0, &t_ns }, { "bytes", 0, &t_ns }, { NULL, 0, NULL },
};
static const struct vtype t_activity = OBJ_T(activity_fields);

static const struct vtype t_spans = { .kind = V_ARRAY, .items = &t_span };
static const struct vtype t_fused_list = { .kind = V_ARRAY, .items = &t_fused };
static const struct vtype t_waste_list = { .kind = V_ARRAY, .items = &t_waste };
static const struct vtype t_activities = { .kind = V_ARRAY, .items = &t_activity };

static const struct vfield gpu_fields[] = {
	{ "activities", 1, &t_activities }, { "dropped_records", 1, &t_ns },
	{ "source", 1, &t_gpu_source }, { NULL, 0, NULL },
};
static const struct vtype t_gpu = OBJ_T(gpu_fields);

static const struct vfield dq_fields[] = {
	{ "tier", 1, &t_tier }, { "dropped_events", 1, &t_ns },
	{ "truncated_payloads", 1, &t_ns }, { "warnings", 1, &t_strings },
	{ "non_llm_requests", 0, &t_ns }, { "tool_identity", 0, &t_tool_identity }, { NULL, 0, NULL },
};
static const struct vtype t_dq = OBJ_T(dq_fields);

static const struct vfield turn_fields[] = {
	{ "schema_version", 1, &t_version }, { "session_id", 1, &t_session },
	{ "turn_index", 1, &t_id }, { "complete", 1, &t_bool }, { "source", 1, &t_source },
	{ "clock", 1, &t_clock }, { "clock_anchor", 0, &t_anchor }, { "start_ns", 1, &t_ns },
	{ "end_ns", 1, &t_ns }, { "agent", 1, &t_agent }, { "spans", 1, &t_spans }, { "fused_marks", 1, &t_fused_list },
	{ "waste_marks", 1, &t_waste_list }, { "gpu", 0, &t_gpu }, { "data_quality", 1, &t_dq },
	{ NULL, 0, NULL },
};
static const struct vtype t_turn = OBJ_T(turn_fields);

/* Attributes with a meaning fixed by schema/README.md (OTel GenAI names and xperf's own). */
static const struct vfield attr_types[] = {
	{ "gen_ai.provider.name", 0, &t_str }, { "gen_ai.request.model", 0, &t_str },
	{ "gen_ai.response.model", 0, &t_str }, { "gen_ai.usage.input_tokens", 0, &t_ns },
	{ "gen_ai.usage.output_tokens", 0, &t_ns },
	{ "gen_ai.usage.cache_read.input_tokens", 0, &t_ns },
	{ "gen_ai.usage.cache_creation.input_tokens", 0, &t_ns },
	{ "gen_ai.usage.reasoning.output_tokens", 0, &t_ns },
	{ "gen_ai.response.finish_reasons", 0, &t_strings },
	{ "gen_ai.server.time_to_first_token", 0, &t_number }, { "xperf.ttft_ns", 0, &t_ns },
	{ "xperf.stream", 0, &t_bool }, { "xperf.token_times_ns", 0, &t_ns_list },
	{ "http.response.status_code", 0, &t_http_status },
	{ "http.response.body.size", 0, &t_ns }, { "server.address", 0, &t_str },
	{ "server.port", 0, &t_port }, { "tool.name", 0, &t_str },
	{ "process.exit.code", 0, &t_any_int }, { "process.command_line", 0, &t_str },
	{ "ttft_ns", 0, &t_ns }, { "gen_ai.tool.name", 0, &t_str },
	{ "gen_ai.tool.call.id", 0, &t_str }, { "gen_ai.conversation.id", 0, &t_str },
	{ NULL, 0, NULL },
};

static const char *json_type(const cJSON *n)
{
	if (cJSON_IsString(n))
		return "a string";
	if (cJSON_IsNumber(n))
		return "a number";
	if (cJSON_IsBool(n))
		return "a boolean";
	if (cJSON_IsNull(n))
		return "null";
	if (cJSON_IsArray(n))
		return "an array";
	return "an object";
}

static int is_integer(const cJSON *n)
{
	double d = n->valuedouble;

	return cJSON_IsNumber(n) && isfinite(d) && d == floor(d) && fabs(d) < 9.2e18;
}

long long sc_vint(const cJSON *n)
{
	int64_t v;

	return xp_json_get_i64(n, &v) ? (long long)n->valuedouble : v;
}

static void check_value(struct sc_vctx *v, const cJSON *n, const struct vtype *t);

static void check_string(struct sc_vctx *v, const cJSON *n, const struct vtype *t)
{
	const char *s = n->valuestring;
	size_t len = strlen(s);
	char list[160] = "";

	if (len < t->minlen) {
		sc_vctx_error(v, n, "must not be empty");
	} else if (t->maxlen && len > t->maxlen) {
		sc_vctx_error(v, n, "longer than %zu bytes", t->maxlen);
	} else if (t->charset && s[strspn(s, t->charset)]) {
		sc_vctx_error(v, n, "character '%c' not allowed (use [A-Za-z0-9._-])",
			      s[strspn(s, t->charset)]);
	} else if (t->known && !t->known(s) && t->form) {
		sc_vctx_error(v, n, "\"%s\" is not %s", s, t->form);
	} else if (t->known && !t->known(s)) {
		sc_vctx_error(v, n, "unknown %s \"%s\"", t->what, s);
	} else if (t->oneof) {
		for (int i = 0; t->oneof[i]; i++) {
			if (!strcmp(s, t->oneof[i]))
				return;
			strncat(list, i ? ", " : "", sizeof(list) - strlen(list) - 1);
			strncat(list, t->oneof[i], sizeof(list) - strlen(list) - 1);
		}
		sc_vctx_error(v, n, "\"%s\" is not one of: %s", s, list);
	}
}

static void check_int(struct sc_vctx *v, const cJSON *n, const struct vtype *t)
{
	if (!is_integer(n))
		sc_vctx_error(v, n, "expected an integer, got %g", n->valuedouble);
	else if (sc_vint(n) < t->min)
		sc_vctx_error(v, n, "must be >= %lld, got %lld", t->min, sc_vint(n));
	else if (sc_vint(n) > t->max)
		sc_vctx_error(v, n, "must be <= %lld, got %lld", t->max, sc_vint(n));
}

static const struct vfield *field_of(const struct vfield *f, const char *name)
{
	for (; f->name; f++)
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}

static void check_object(struct sc_vctx *v, const cJSON *n, const struct vtype *t)
{
	unsigned long long seen = 0; /* tables have fewer than 64 fields */
	const cJSON *c;

	cJSON_ArrayForEach(c, n) {
		const struct vfield *f = field_of(t->fields, c->string);
		size_t saved = sc_vctx_key(v, c->string);
		unsigned long long bit = f ? 1ull << (f - t->fields) : 0;

		if (!f)
			sc_vctx_error(v, c, "unknown property \"%s\"", c->string);
		else if (seen & bit)
			sc_vctx_error(v, c, "duplicate property \"%s\"", c->string);
		else
			check_value(v, c, f->type);
		seen |= bit;
		sc_vctx_up(v, saved);
	}
	for (const struct vfield *f = t->fields; f->name; f++)
		if (f->required && !(seen & (1ull << (f - t->fields))))
			sc_vctx_error(v, n, "missing required property \"%s\"", f->name);
}

static int by_key(const void *a, const void *b)
{
	return strcmp((*(const cJSON *const *)a)->string, (*(const cJSON *const *)b)->string);
}

/* Duplicate keys in an open map: sort the members by key, compare neighbours. */
static void check_dup_keys(struct sc_vctx *v, const cJSON *n)
{
	int count = cJSON_GetArraySize(n), k = 0;
	const cJSON **m, *c;

	if (count < 2)
		return;
	m = malloc((size_t)count * sizeof(*m));
	if (!m) {
		sc_vctx_error(v, n, "out of memory");
		return;
	}
	cJSON_ArrayForEach(c, n)
		m[k++] = c;
	qsort(m, (size_t)count, sizeof(*m), by_key);
	for (k = 1; k < count; k++) {
		if (!strcmp(m[k - 1]->string, m[k]->string)) {
			size_t saved = sc_vctx_key(v, m[k]->string);

			sc_vctx_error(v, m[k], "duplicate property \"%s\"", m[k]->string);
			sc_vctx_up(v, saved);
		}
	}
	free(m);
}

static void check_scalar_or_list(struct sc_vctx *v, const cJSON *n)
{
	const cJSON *c;
	size_t i = 0;

	if (cJSON_IsString(n) || cJSON_IsBool(n) || (cJSON_IsNumber(n) && isfinite(n->valuedouble)))
		return;
	if (!cJSON_IsArray(n)) {
		sc_vctx_error(v, n, "attribute must be a string, number, boolean or an array of "
				    "them, got %s", json_type(n));
		return;
	}
	cJSON_ArrayForEach(c, n) {
		size_t saved = sc_vctx_index(v, i++);

		if (!cJSON_IsString(c) && !cJSON_IsBool(c) &&
		    !(cJSON_IsNumber(c) && isfinite(c->valuedouble)))
			sc_vctx_error(v, c, "array attribute items must be strings, numbers or "
					    "booleans, got %s", json_type(c));
		sc_vctx_up(v, saved);
	}
}

static void check_map(struct sc_vctx *v, const cJSON *n, const struct vtype *t)
{
	const cJSON *c;

	check_dup_keys(v, n);
	cJSON_ArrayForEach(c, n) {
		size_t saved = sc_vctx_key(v, c->string);
		const struct vfield *f =
			t->kind == V_ATTRS ? field_of(attr_types, c->string) : NULL;

		if (t->known && !t->known(c->string))
			sc_vctx_error(v, c, "unknown %s \"%s\"", t->what, c->string);
		else if (t->kind == V_MAP)
			check_value(v, c, t->items);
		else if (f)
			check_value(v, c, f->type);
		else
			check_scalar_or_list(v, c);
		sc_vctx_up(v, saved);
	}
}

static void check_array(struct sc_vctx *v, const cJSON *n, const struct vtype *t)
{
	const cJSON *c;
	size_t i = 0;

	cJSON_ArrayForEach(c, n) {
		size_t saved = sc_vctx_index(v, i++);

		check_value(v, c, t->items);
		sc_vctx_up(v, saved);
	}
}

/* The JSON type a kind needs, for the "expected X" message. */
static const char *const kind_names[] = {
	[V_STRING] = "a string", [V_INT] = "an integer", [V_NUMBER] = "a number",
	[V_BOOL] = "a boolean", [V_OBJECT] = "an object", [V_ARRAY] = "an array",
	[V_MAP] = "an object", [V_ATTRS] = "an object",
};

static int type_ok(const cJSON *n, enum vkind k)
{
	switch (k) {
	case V_STRING:
		return cJSON_IsString(n);
	case V_INT:
	case V_NUMBER:
		return cJSON_IsNumber(n);
	case V_BOOL:
		return cJSON_IsBool(n);
	case V_ARRAY:
		return cJSON_IsArray(n);
	default:
		return cJSON_IsObject(n);
	}
}

static void check_value(struct sc_vctx *v, const cJSON *n, const struct vtype *t)
{
	if (t->nullable && cJSON_IsNull(n))
		return;
	if (!type_ok(n, t->kind)) {
		sc_vctx_error(v, n, "expected %s%s, got %s", kind_names[t->kind],
			      t->nullable ? " or null" : "", json_type(n));
		return;
	}
	switch (t->kind) {
	case V_STRING:
		check_string(v, n, t);
		break;
	case V_INT:
		check_int(v, n, t);
		break;
	case V_NUMBER:
		if (!isfinite(n->valuedouble) || n->valuedouble < 0)
			sc_vctx_error(v, n, "must be a finite number >= 0");
		break;
	case V_OBJECT:
		check_object(v, n, t);
		break;
	case V_ARRAY:
		check_array(v, n, t);
		break;
	case V_MAP:
	case V_ATTRS:
		check_map(v, n, t);
		break;
	case V_BOOL:
		break;
	}
}

void sc_vshape_turn(struct sc_vctx *v, const cJSON *root)
{
	check_value(v, root, &t_turn);
}
