/* SPDX-License-Identifier: MIT */
/*
 * vshape.c - the structural rules of TurnTrace v1, the same ones
 * turntrace.schema.json states, as tables walked by one generic checker that
 * takes the document one tokenizer event at a time.
 *
 * Structural objects are closed (an unknown property is an error: a typo
 * must not pass silently); `attributes` maps are open but the attributes
 * schema/README.md names (GenAI usage, status code, exit code...) are typed.
 * Waste kinds and counter names come from theory, not from copies. Each
 * table field also names its slot (validate.h): what a reader fills from it.
 */
#include "schema/vcheck.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/clock_anchor.h"
#include "lib/grow.h"
#include "theory/theory.h"

enum vkind {
	V_STRING,
	V_INT,
	V_NUMBER,    /* finite and >= 0 */
	V_BOOL,
	V_OBJECT,    /* closed: fields */
	V_ARRAY,     /* items */
	V_MAP,       /* open keys (checked by `known` when set), values of type items */
	V_ATTRS,     /* open keys; known keys typed by attr_types, others V_FREE */
	V_FREE,      /* an attribute of no fixed type: a scalar or an array of V_FREE_ITEM */
	V_FREE_ITEM, /* a string, a finite number or a boolean */
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
	enum sc_slot item_slot;       /* V_ARRAY, V_MAP: the slot of each item */
};

struct vfield {
	const char *name;
	int required;
	const struct vtype *type;
	enum sc_slot slot;
	int tree; /* a free-form part: the reader gets it whole under this slot */
};

static int waste_kind_known(const char *s)
{
	return th_waste_kind_find(s) != NULL;
}

static int counter_known(const char *s)
{
	return th_counter_name_find(s) != NULL;
}

#define INT_T(lo, hi) { .kind = V_INT, .min = (lo), .max = (hi) }
#define ENUM_T(list) { .kind = V_STRING, .oneof = (list) }
#define OBJ_T(f) { .kind = V_OBJECT, .fields = (f) }
#define LIST_T(t, slot) { .kind = V_ARRAY, .items = (t), .item_slot = (slot) }
#define END_F { NULL, 0, NULL, SC_NONE, 0 }

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
static const struct vtype t_boot_id = { .kind = V_STRING, .known = xp_boot_id_valid,
				       .form = "a boot id (8-4-4-4-12 lowercase hex)" };
static const struct vtype t_strings = LIST_T(&t_str, SC_NONE);
static const struct vtype t_warnings = LIST_T(&t_str, SC_DQ_WARNING);
static const struct vtype t_token_times = LIST_T(&t_ns, SC_TOKEN_TIME);
static const struct vtype t_attrs = { .kind = V_ATTRS };
static const struct vtype t_free = { .kind = V_FREE };
static const struct vtype t_free_item = { .kind = V_FREE_ITEM };
static const struct vtype t_free_list = LIST_T(&t_free_item, SC_NONE);
static const struct vtype t_counts = { .kind = V_MAP, .items = &t_ns };
static const struct vtype t_ctr_values = { .kind = V_MAP, .items = &t_number,
					   .known = counter_known, .what = "counter name",
					   .item_slot = SC_CTR_VALUE };
static const struct vtype t_ctr_why = { .kind = V_MAP, .items = &t_name,
					.known = counter_known, .what = "counter name",
					.item_slot = SC_CTR_WHY };

static const struct vfield sched_fields[] = {
	{ "on_cpu_ns", 0, &t_ns, SC_SCHED_ON_CPU, 0 }, { "runq_ns", 0, &t_ns, SC_SCHED_RUNQ, 0 },
	{ "blocked_ns", 0, &t_ns, SC_SCHED_BLOCKED, 0 }, END_F,
};
static const struct vtype t_sched = OBJ_T(sched_fields);

static const struct vfield counter_fields[] = {
	{ "values", 0, &t_ctr_values, SC_NONE, 0 }, { "unavailable", 0, &t_ctr_why, SC_NONE, 0 },
	END_F,
};
static const struct vtype t_counters = OBJ_T(counter_fields);

static const struct vfield span_fields[] = {
	{ "id", 1, &t_id, SC_SPAN_ID, 0 }, { "parent", 1, &t_id_or_null, SC_SPAN_PARENT, 0 },
	{ "stage", 1, &t_name, SC_SPAN_STAGE, 0 }, { "custom_stage", 0, &t_bool, SC_SPAN_CUSTOM, 0 },
	{ "domain", 1, &t_domain, SC_SPAN_DOMAIN, 0 },
	{ "category", 1, &t_category, SC_SPAN_CATEGORY, 0 },
	{ "start_ns", 1, &t_ns, SC_SPAN_START, 0 }, { "end_ns", 1, &t_ns, SC_SPAN_END, 0 },
	{ "tid", 0, &t_pid, SC_SPAN_TID, 0 }, { "sched", 0, &t_sched, SC_SCHED, 0 },
	{ "counters", 0, &t_counters, SC_COUNTERS, 0 },
	{ "attributes", 0, &t_attrs, SC_SPAN_ATTRS, 1 }, END_F,
};
static const struct vtype t_span = OBJ_T(span_fields);

static const struct vfield agent_fields[] = {
	{ "name", 1, &t_name, SC_AGENT_NAME, 0 }, { "model", 0, &t_str, SC_AGENT_MODEL, 0 },
	{ "pid", 1, &t_pid, SC_AGENT_PID, 0 }, { "start_time_ns", 0, &t_ns, SC_AGENT_START, 0 },
	{ "comm", 0, &t_str, SC_AGENT_COMM, 0 },
	{ "container_id", 0, &t_str_or_null, SC_AGENT_CONTAINER, 0 }, END_F,
};
static const struct vtype t_agent = OBJ_T(agent_fields);

static const struct vfield anchor_fields[] = {
	{ "monotonic_ns", 1, &t_ns, SC_ANCHOR_MONO, 0 },
	{ "realtime_ns", 1, &t_ns, SC_ANCHOR_REAL, 0 },
	{ "boot_id", 0, &t_boot_id, SC_ANCHOR_BOOT, 0 }, END_F,
};
static const struct vtype t_anchor = OBJ_T(anchor_fields);

static const struct vfield fused_fields[] = {
	{ "kind", 1, &t_fused_kind, SC_MARK_KIND, 0 }, { "t_ns", 1, &t_ns, SC_MARK_T, 0 },
	{ "span", 0, &t_id_or_null, SC_MARK_SPAN, 0 },
	{ "attributes", 0, &t_attrs, SC_MARK_ATTRS, 1 }, END_F,
};
static const struct vtype t_fused = OBJ_T(fused_fields);

static const struct vfield waste_fields[] = {
	{ "kind", 1, &t_waste_kind, SC_MARK_KIND, 0 }, { "l3", 1, &t_name, SC_MARK_L3, 0 },
	{ "span", 0, &t_id_or_null, SC_MARK_SPAN, 0 }, { "t_ns", 1, &t_ns, SC_MARK_T, 0 },
	{ "counts", 0, &t_counts, SC_MARK_COUNTS, 1 },
	{ "attributes", 0, &t_attrs, SC_MARK_ATTRS, 1 }, END_F,
};
static const struct vtype t_waste = OBJ_T(waste_fields);

static const struct vfield activity_fields[] = {
	{ "kind", 1, &t_gpu_kind, SC_GPU_KIND, 0 }, { "name", 0, &t_str, SC_GPU_NAME, 0 },
	{ "start_ns", 1, &t_ns, SC_GPU_START, 0 }, { "end_ns", 1, &t_ns, SC_GPU_END, 0 },
	{ "device", 0, &t_ns, SC_GPU_DEVICE, 0 }, { "stream", 0, &t_ns, SC_GPU_STREAM, 0 },
	{ "correlation_id", 0, &t_ns, SC_GPU_CORR, 0 }, { "bytes", 0, &t_ns, SC_GPU_BYTES, 0 },
	END_F,
};
static const struct vtype t_activity = OBJ_T(activity_fields);

static const struct vtype t_spans = LIST_T(&t_span, SC_SPAN);
static const struct vtype t_fused_list = LIST_T(&t_fused, SC_FUSED);
static const struct vtype t_waste_list = LIST_T(&t_waste, SC_WASTE);
static const struct vtype t_activities = LIST_T(&t_activity, SC_GPU_ACTIVITY);

static const struct vfield gpu_fields[] = {
	{ "activities", 1, &t_activities, SC_NONE, 0 },
	{ "dropped_records", 1, &t_ns, SC_GPU_DROPPED, 0 },
	{ "source", 1, &t_gpu_source, SC_GPU_SOURCE, 0 },
	END_F,
};
static const struct vtype t_gpu = OBJ_T(gpu_fields);

static const struct vfield dq_fields[] = {
	{ "tier", 1, &t_tier, SC_DQ_TIER, 0 }, { "dropped_events", 1, &t_ns, SC_DQ_DROPPED, 0 },
	{ "truncated_payloads", 1, &t_ns, SC_DQ_TRUNCATED, 0 },
	{ "warnings", 1, &t_warnings, SC_NONE, 0 },
	{ "non_llm_requests", 0, &t_ns, SC_DQ_NON_LLM, 0 },
	{ "tool_identity", 0, &t_tool_identity, SC_DQ_TOOL_IDENTITY, 0 }, END_F,
};
static const struct vtype t_dq = OBJ_T(dq_fields);

static const struct vfield turn_fields[] = {
	{ "schema_version", 1, &t_version, SC_NONE, 0 },
	{ "session_id", 1, &t_session, SC_SESSION, 0 },
	{ "turn_index", 1, &t_id, SC_TURN_INDEX, 0 }, { "complete", 1, &t_bool, SC_COMPLETE, 0 },
	{ "source", 1, &t_source, SC_SOURCE, 0 }, { "clock", 1, &t_clock, SC_NONE, 0 },
	{ "clock_anchor", 0, &t_anchor, SC_NONE, 0 }, { "start_ns", 1, &t_ns, SC_START, 0 },
	{ "end_ns", 1, &t_ns, SC_END, 0 }, { "agent", 1, &t_agent, SC_NONE, 0 },
	{ "spans", 1, &t_spans, SC_NONE, 0 }, { "fused_marks", 1, &t_fused_list, SC_NONE, 0 },
	{ "waste_marks", 1, &t_waste_list, SC_NONE, 0 }, { "gpu", 0, &t_gpu, SC_GPU, 0 },
	{ "data_quality", 1, &t_dq, SC_NONE, 0 }, END_F,
};
static const struct vtype t_turn = OBJ_T(turn_fields);

#define ATTR(name, type) { name, 0, type, SC_NONE, 0 }

/* Attributes with a meaning fixed by schema/README.md (OTel GenAI names and xperf's own). */
static const struct vfield attr_types[] = {
	ATTR("gen_ai.provider.name", &t_str), ATTR("gen_ai.request.model", &t_str),
	ATTR("gen_ai.response.model", &t_str), ATTR("gen_ai.usage.input_tokens", &t_ns),
	ATTR("gen_ai.usage.output_tokens", &t_ns),
	ATTR("gen_ai.usage.cache_read.input_tokens", &t_ns),
	ATTR("gen_ai.usage.cache_creation.input_tokens", &t_ns),
	ATTR("gen_ai.usage.reasoning.output_tokens", &t_ns),
	ATTR("gen_ai.response.finish_reasons", &t_strings),
	ATTR("gen_ai.server.time_to_first_token", &t_number), ATTR("xperf.ttft_ns", &t_ns),
	ATTR("xperf.stream", &t_bool),
	{ "xperf.token_times_ns", 0, &t_token_times, SC_TOKEN_TIMES, 0 },
	ATTR("http.response.status_code", &t_http_status),
	ATTR("http.response.body.size", &t_ns), ATTR("server.address", &t_str),
	ATTR("server.port", &t_port), ATTR("tool.name", &t_str),
	ATTR("process.exit.code", &t_any_int), ATTR("process.command_line", &t_str),
	{ "ttft_ns", 0, &t_ns, SC_ATTR_TTFT_NS, 0 }, ATTR("gen_ai.tool.name", &t_str),
	ATTR("gen_ai.tool.call.id", &t_str), ATTR("gen_ai.conversation.id", &t_str), END_F,
};

/* The keys of the open map being checked (maps hold no maps: one set is enough). */
struct keyset {
	char *arena;
	size_t alen, acap;
	uint32_t *slot; /* offset + 1 into arena; 0: free */
	size_t cap, n;
};

/* An open container and how it is checked. */
struct frame {
	const struct vtype *t; /* NULL: not checked (an error said why) */
	enum sc_slot slot, tree;
	unsigned long long seen; /* V_OBJECT: fields present (tables have fewer than 64) */
	size_t idx, plen;        /* arrays: the next index; the pointer to restore at the end */
	struct sc_jpos pos;
};

struct sc_vshape {
	struct sc_vctx *v;
	struct sc_vrules *rules;
	const struct sc_vsink *sink;
	struct frame fr[XP_VALIDATE_MAX_DEPTH + 1];
	int depth;
	struct keyset keys;
};

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* Adds key: 1 when it was there already, 0 when new, -1 on ENOMEM. */
static int keyset_add(struct keyset *k, const char *key)
{
	size_t len = strlen(key) + 1, i;

	if (2 * (k->n + 1) > k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 64;
		uint32_t *slot = calloc(cap, sizeof(*slot));

		if (!slot)
			return -1;
		for (size_t j = 0; j < k->cap; j++) {
			if (!k->slot[j])
				continue;
			for (i = hash(k->arena + k->slot[j] - 1) & (cap - 1); slot[i];)
				i = (i + 1) & (cap - 1);
			slot[i] = k->slot[j];
		}
		free(k->slot);
		k->slot = slot;
		k->cap = cap;
	}
	for (i = hash(key) & (k->cap - 1); k->slot[i]; i = (i + 1) & (k->cap - 1))
		if (!strcmp(k->arena + k->slot[i] - 1, key))
			return 1;
	if (k->alen + len > UINT32_MAX - 1 ||
	    xp_grow((void **)&k->arena, &k->acap, k->alen + len, 1))
		return -1;
	memcpy(k->arena + k->alen, key, len);
	k->slot[i] = (uint32_t)k->alen + 1;
	k->alen += len;
	k->n++;
	return 0;
}

/* Empty for the next map; a table a large map grew is dropped, not cleared for each small one. */
static void keyset_clear(struct keyset *k)
{
	if (k->cap > 256) {
		free(k->slot);
		k->slot = NULL;
		k->cap = 0;
	} else if (k->slot) {
		memset(k->slot, 0, k->cap * sizeof(*k->slot));
	}
	k->alen = k->n = 0;
}

static const char *json_type(const struct sc_jev *ev)
{
	static const char *const names[] = {
		[SC_J_OBJECT] = "an object", [SC_J_ARRAY] = "an array", [SC_J_STRING] = "a string",
		[SC_J_NUMBER] = "a number", [SC_J_TRUE] = "a boolean", [SC_J_FALSE] = "a boolean",
		[SC_J_NULL] = "null", [SC_J_END] = "nothing",
	};
	return names[ev->type];
}

static int is_integer(const struct sc_jev *ev)
{
	double d = ev->num;

	return isfinite(d) && d == floor(d) && fabs(d) < 9.2e18;
}

/* A string, a finite number or a boolean. */
static int is_free_scalar(const struct sc_jev *ev)
{
	return ev->type == SC_J_STRING || ev->type == SC_J_TRUE || ev->type == SC_J_FALSE ||
	       (ev->type == SC_J_NUMBER && isfinite(ev->num));
}

static int check_string(struct sc_vctx *v, const struct sc_jev *ev, const struct vtype *t)
{
	const char *s = ev->str;
	size_t len = strlen(s);
	char list[160] = "";

	if (len < t->minlen) {
		sc_vctx_error(v, ev->pos, "must not be empty");
	} else if (t->maxlen && len > t->maxlen) {
		sc_vctx_error(v, ev->pos, "longer than %zu bytes", t->maxlen);
	} else if (t->charset && s[strspn(s, t->charset)]) {
		sc_vctx_error(v, ev->pos, "character '%c' not allowed (use [A-Za-z0-9._-])",
			      s[strspn(s, t->charset)]);
	} else if (t->known && !t->known(s) && t->form) {
		sc_vctx_error(v, ev->pos, "\"%s\" is not %s", s, t->form);
	} else if (t->known && !t->known(s)) {
		sc_vctx_error(v, ev->pos, "unknown %s \"%s\"", t->what, s);
	} else if (t->oneof) {
		for (int i = 0; t->oneof[i]; i++) {
			if (!strcmp(s, t->oneof[i]))
				return 0;
			strncat(list, i ? ", " : "", sizeof(list) - strlen(list) - 1);
			strncat(list, t->oneof[i], sizeof(list) - strlen(list) - 1);
		}
		sc_vctx_error(v, ev->pos, "\"%s\" is not one of: %s", s, list);
	} else {
		return 0;
	}
	return -1;
}

static int check_int(struct sc_vctx *v, const struct sc_jev *ev, const struct vtype *t)
{
	if (!is_integer(ev))
		sc_vctx_error(v, ev->pos, "expected an integer, got %g", ev->num);
	else if (sc_vint(ev) < t->min)
		sc_vctx_error(v, ev->pos, "must be >= %lld, got %lld", t->min, sc_vint(ev));
	else if (sc_vint(ev) > t->max)
		sc_vctx_error(v, ev->pos, "must be <= %lld, got %lld", t->max, sc_vint(ev));
	else
		return 0;
	return -1;
}

/* The JSON type a kind needs, for the "expected X" message. */
static const char *const kind_names[] = {
	[V_STRING] = "a string", [V_INT] = "an integer", [V_NUMBER] = "a number",
	[V_BOOL] = "a boolean", [V_OBJECT] = "an object", [V_ARRAY] = "an array",
	[V_MAP] = "an object", [V_ATTRS] = "an object",
};

static int type_ok(const struct sc_jev *ev, enum vkind k)
{
	switch (k) {
	case V_STRING:
		return ev->type == SC_J_STRING;
	case V_INT:
	case V_NUMBER:
		return ev->type == SC_J_NUMBER;
	case V_BOOL:
		return ev->type == SC_J_TRUE || ev->type == SC_J_FALSE;
	case V_ARRAY:
		return ev->type == SC_J_ARRAY;
	default:
		return ev->type == SC_J_OBJECT;
	}
}

/* Checks a value of type t; 0 when it passed (a container is then checked inside). */
static int check_value(struct sc_vctx *v, const struct sc_jev *ev, const struct vtype **t)
{
	const struct vtype *ty = *t;

	if (ty->nullable && ev->type == SC_J_NULL)
		return 0;
	if (ty->kind == V_FREE || ty->kind == V_FREE_ITEM) {
		if (is_free_scalar(ev))
			return 0;
		if (ty->kind == V_FREE && ev->type == SC_J_ARRAY) {
			*t = &t_free_list;
			return 0;
		}
		sc_vctx_error(v, ev->pos, ty->kind == V_FREE
			      ? "attribute must be a string, number, boolean or an array of them, got %s"
			      : "array attribute items must be strings, numbers or booleans, got %s",
			      json_type(ev));
		return -1;
	}
	if (!type_ok(ev, ty->kind)) {
		sc_vctx_error(v, ev->pos, "expected %s%s, got %s", kind_names[ty->kind],
			      ty->nullable ? " or null" : "", json_type(ev));
		return -1;
	}
	switch (ty->kind) {
	case V_STRING:
		return check_string(v, ev, ty);
	case V_INT:
		return check_int(v, ev, ty);
	case V_NUMBER:
		if (isfinite(ev->num) && ev->num >= 0)
			return 0;
		sc_vctx_error(v, ev->pos, "must be a finite number >= 0");
		return -1;
	default:
		return 0;
	}
}

static const struct vfield *field_of(const struct vfield *f, const char *name)
{
	for (; f->name; f++)
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}

/* The type of a member or an element of container p (NULL: not to be checked). */
static const struct vtype *member_type(struct sc_vshape *s, struct frame *p,
				       const struct sc_jev *ev, enum sc_slot *slot,
				       enum sc_slot *tree)
{
	const struct vfield *f;
	unsigned long long bit;
	int dup;

	if (!p->t)
		return NULL;
	switch (p->t->kind) {
	case V_OBJECT:
		if (!(f = field_of(p->t->fields, ev->key))) {
			sc_vctx_error(s->v, ev->pos, "unknown property \"%s\"", ev->key);
			return NULL;
		}
		bit = 1ull << (f - p->t->fields);
		if (p->seen & bit) {
			sc_vctx_error(s->v, ev->pos, "duplicate property \"%s\"", ev->key);
			return NULL;
		}
		p->seen |= bit;
		*slot = f->slot;
		if (f->tree)
			*tree = f->slot;
		return f->type;
	case V_ARRAY:
		*slot = p->t->item_slot;
		return p->t->items;
	case V_MAP:
	case V_ATTRS:
		if ((dup = keyset_add(&s->keys, ev->key)) < 0)
			sc_vctx_error(s->v, ev->pos, "out of memory");
		else if (dup)
			sc_vctx_error(s->v, ev->pos, "duplicate property \"%s\"", ev->key);
		if (p->t->known && !p->t->known(ev->key)) {
			sc_vctx_error(s->v, ev->pos, "unknown %s \"%s\"", p->t->what, ev->key);
			return NULL;
		}
		*slot = p->t->item_slot;
		if (p->t->kind == V_MAP)
			return p->t->items;
		f = field_of(attr_types, ev->key);
		*slot = f ? f->slot : SC_NONE;
		return f ? f->type : &t_free;
	default:
		return NULL;
	}
}

/* A value the shape accepted goes to the rules and the reader while the document is valid. */
static void emit(struct sc_vshape *s, enum sc_slot slot, enum sc_slot tree,
		 const struct sc_jev *ev)
{
	struct sc_vval val = { slot, tree, ev };

	if (s->v->nerr || (!slot && !tree))
		return;
	if (sc_vrules_feed(s->rules, &val) || (s->sink && s->sink->fn(s->sink->ctx, &val)))
		sc_vctx_error(s->v, ev->pos, "out of memory");
}

static void close_container(struct sc_vshape *s, const struct sc_jev *ev)
{
	struct frame *f = &s->fr[--s->depth];

	if (f->t && f->t->kind == V_OBJECT)
		for (const struct vfield *fl = f->t->fields; fl->name; fl++)
			if (fl->required && !(f->seen & (1ull << (fl - f->t->fields))))
				sc_vctx_error(s->v, f->pos, "missing required property \"%s\"",
					      fl->name);
	emit(s, f->slot, f->tree, ev);
	sc_vctx_up(s->v, f->plen);
}

void sc_vshape_feed(struct sc_vshape *s, const struct sc_jev *ev)
{
	enum sc_slot slot = SC_NONE, tree = SC_NONE;
	const struct vtype *t = &t_turn;
	size_t saved = s->v->plen;
	struct frame *p;

	if (ev->type == SC_J_END) {
		close_container(s, ev);
		return;
	}
	if (s->depth) {
		p = &s->fr[s->depth - 1];
		tree = p->tree;
		saved = ev->key ? sc_vctx_key(s->v, ev->key) : sc_vctx_index(s->v, p->idx++);
		t = member_type(s, p, ev, &slot, &tree);
	}
	if (t && check_value(s->v, ev, &t))
		t = NULL;
	emit(s, slot, tree, ev);
	if (ev->type != SC_J_OBJECT && ev->type != SC_J_ARRAY) {
		sc_vctx_up(s->v, saved);
		return;
	}
	if (t && (t->kind == V_MAP || t->kind == V_ATTRS))
		keyset_clear(&s->keys);
	s->fr[s->depth++] = (struct frame){ .t = t, .slot = slot, .tree = tree, .plen = saved,
					    .pos = ev->pos };
}

struct sc_vshape *sc_vshape_new(struct sc_vctx *v, struct sc_vrules *rules,
				const struct sc_vsink *sink)
{
	struct sc_vshape *s = calloc(1, sizeof(*s));

	if (s)
		*s = (struct sc_vshape){ .v = v, .rules = rules, .sink = sink };
	return s;
}

void sc_vshape_free(struct sc_vshape *s)
{
	if (!s)
		return;
	free(s->keys.arena);
	free(s->keys.slot);
	free(s);
}
