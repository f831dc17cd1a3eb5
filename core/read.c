/* SPDX-License-Identifier: MIT */
/*
 * read.c - TurnTrace bytes -> struct tt_turn (read.h), in the validator's one
 * pass: each value the schema names arrives with its slot (validate.h) and
 * goes straight into its field; the free-form parts (attributes, waste
 * counts) are built as the small cJSON objects the turn
 * keeps. No tree of the whole document exists at any time: what stays is
 * the typed turn. The validator stops handing out values at its first
 * error, and a turn with any error is never returned.
 */
#include "core/read.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json_int.h"
#include "schema/jtok.h"

struct rd {
	struct tt_turn *t;
	int anchor;     /* bit 0: monotonic_ns, bit 1: realtime_ns */
	int custom;     /* the span being read has custom_stage true */
	int waste;      /* the mark being read is a waste mark */
	cJSON *root;    /* the free-form part being built, until it is placed */
	cJSON *open[XP_VALIDATE_MAX_DEPTH + 1];
	int depth;
};

static struct tt_span *cur_span(struct rd *r)
{
	return &r->t->spans[r->t->nspans - 1];
}

static struct tt_mark *cur_mark(struct rd *r)
{
	return r->waste ? &r->t->waste[r->t->nwaste - 1] : &r->t->fused[r->t->nfused - 1];
}

static uint64_t ns(const struct sc_jev *ev)
{
	return (uint64_t)sc_vint(ev); /* the schema took it as an integer >= 0 */
}

/* A counter value (a finite number >= 0): exact when written as an integer. */
static int counter(const struct sc_jev *ev, uint64_t *out)
{
	char lit[64], *end;

	if (ev->integer && ev->lit[0] != '-' && ev->litlen < sizeof(lit)) {
		memcpy(lit, ev->lit, ev->litlen);
		lit[ev->litlen] = '\0';
		errno = 0;
		*out = strtoull(lit, &end, 10);
		if (!errno)
			return 0;
	}
	if (!(ev->num >= 0 && ev->num < 1.8e19))
		return -1;
	*out = (uint64_t)ev->num;
	return 0;
}

static cJSON *node_of(const struct sc_jev *ev)
{
	switch (ev->type) {
	case SC_J_OBJECT:
		return cJSON_CreateObject();
	case SC_J_ARRAY:
		return cJSON_CreateArray();
	case SC_J_STRING:
		return cJSON_CreateString(ev->str);
	case SC_J_NUMBER:
		return xp_json_number(ev->lit, ev->litlen, ev->num);
	case SC_J_TRUE:
	case SC_J_FALSE:
		return cJSON_CreateBool(ev->type == SC_J_TRUE);
	default:
		return cJSON_CreateNull();
	}
}

/* A finished free-form part goes to its place in the turn. */
static void place(struct rd *r, enum sc_slot tree)
{
	cJSON **dst = tree == SC_SPAN_ATTRS ? &cur_span(r)->attrs
		    : tree == SC_MARK_COUNTS ? &cur_mark(r)->counts : &cur_mark(r)->attrs;

	cJSON_Delete(*dst);
	*dst = r->root;
	r->root = NULL;
}

/* An event inside a free-form part. */
static int tree_event(struct rd *r, const struct sc_vval *val)
{
	const struct sc_jev *ev = val->ev;
	cJSON *n, *up;

	if (ev->type == SC_J_END) {
		if (!--r->depth)
			place(r, val->tree);
		return 0;
	}
	if (!(n = node_of(ev)))
		return -1;
	if (!r->depth) {
		r->root = n;
	} else if (cJSON_IsArray(up = r->open[r->depth - 1])) {
		cJSON_AddItemToArray(up, n);
	} else if (!cJSON_AddItemToObject(up, ev->key, n)) {
		cJSON_Delete(n);
		return -1;
	}
	if (ev->type == SC_J_OBJECT || ev->type == SC_J_ARRAY)
		r->open[r->depth++] = n;
	return 0;
}

static int span_value(struct rd *r, const struct sc_vval *val)
{
	struct tt_span *s = cur_span(r);
	const struct sc_jev *ev = val->ev;
	const struct th_counter_name *c;
	int i;

	switch (val->slot) {
	case SC_SPAN_ID:
		s->id = sc_vint(ev);
		break;
	case SC_SPAN_PARENT:
		s->parent = ev->type == SC_J_NULL ? 0 : sc_vint(ev);
		break;
	case SC_SPAN_STAGE:
		s->st = th_stage_find(ev->str);
		return tt_str_set(&s->stage, ev->str);
	case SC_SPAN_CUSTOM:
		r->custom = ev->type == SC_J_TRUE;
		break;
	case SC_SPAN_DOMAIN:
		return th_domain_parse(ev->str, &s->domain);
	case SC_SPAN_CATEGORY:
		return th_category_parse(ev->str, &s->category);
	case SC_SPAN_START:
		s->start_ns = ns(ev);
		break;
	case SC_SPAN_END:
		s->end_ns = ns(ev);
		break;
	case SC_SPAN_TID:
		s->tid = sc_vint(ev);
		break;
	case SC_SCHED_ON_CPU:
		s->on_cpu_ns = ns(ev), s->sched |= TT_SCHED_ON_CPU;
		break;
	case SC_SCHED_RUNQ:
		s->runq_ns = ns(ev), s->sched |= TT_SCHED_RUNQ;
		break;
	case SC_SCHED_BLOCKED:
		s->blocked_ns = ns(ev), s->sched |= TT_SCHED_BLOCKED;
		break;
	case SC_COUNTERS:
		return tt_span_counters(s) ? 0 : -1;
	case SC_CTR_VALUE:
	case SC_CTR_WHY:
		c = th_counter_name_find(ev->key);
		i = c ? (int)(c - th_counter_name_table) : TT_COUNTERS_MAX;
		if (i >= TT_COUNTERS_MAX)
			break;
		if (val->slot == SC_CTR_WHY) {
			s->ctr->unavail |= 1u << i;
			return tt_str_set(&s->ctr->why[i], ev->str);
		}
		if (!counter(ev, &s->ctr->val[i]))
			s->ctr->have |= 1u << i;
		break;
	default:
		break;
	}
	return 0;
}

static int mark_value(struct rd *r, const struct sc_vval *val)
{
	struct tt_mark *m = cur_mark(r);
	const struct th_l3 *p;

	switch (val->slot) {
	case SC_MARK_KIND:
		return tt_str_set(&m->kind, val->ev->str);
	case SC_MARK_L3:
		p = th_l3_find(val->ev->str);
		m->l3 = p ? p->id : ""; /* unknown: the rules refuse the turn */
		break;
	case SC_MARK_SPAN:
		m->span = val->ev->type == SC_J_NULL ? 0 : sc_vint(val->ev);
		break;
	case SC_MARK_T:
		m->t_ns = ns(val->ev);
		break;
	default:
		break;
	}
	return 0;
}

/* The gpu section: its object, an activity's, their members. */
static int gpu_value(struct rd *r, const struct sc_vval *val)
{
	struct tt_gpu *g = r->t->gpu;
	struct tt_gpu_act *a = g && g->nacts ? &g->acts[g->nacts - 1] : NULL;
	const struct sc_jev *ev = val->ev;
	int kind;

	if (ev->type == SC_J_END)
		return 0;
	switch (val->slot) {
	case SC_GPU:
		tt_gpu_free(g);
		return (r->t->gpu = tt_gpu_new("", 0)) ? 0 : -1;
	case SC_GPU_DROPPED:
		g->dropped = ns(ev);
		break;
	case SC_GPU_SOURCE:
		snprintf(g->source, sizeof(g->source), "%s", ev->str);
		break;
	case SC_GPU_ACTIVITY:
		return tt_gpu_add(g, XP_GPU_KERNEL, 0, 0) ? 0 : -1;
	case SC_GPU_KIND:
		kind = th_gpu_kind_parse(ev->str);
		a->kind = kind < 0 ? XP_GPU_KERNEL : (enum th_gpu_kind)kind; /* the schema checked it */
		break;
	case SC_GPU_NAME:
		a->have |= TT_GPU_NAME;
		return tt_str_set(&a->name, ev->str);
	case SC_GPU_START:
		a->start_ns = ns(ev);
		break;
	case SC_GPU_END:
		a->end_ns = ns(ev);
		break;
	case SC_GPU_DEVICE:
		a->device = ns(ev), a->have |= TT_GPU_DEVICE;
		break;
	case SC_GPU_STREAM:
		a->stream = ns(ev), a->have |= TT_GPU_STREAM;
		break;
	case SC_GPU_CORR:
		a->correlation_id = ns(ev), a->have |= TT_GPU_CORR;
		break;
	default:
		a->bytes = ns(ev), a->have |= TT_GPU_BYTES;
		break;
	}
	return 0;
}

/* A span or a mark starts or ends. */
static int item(struct rd *r, const struct sc_vval *val)
{
	struct tt_mark *m;

	r->waste = val->slot == SC_WASTE;
	if (val->ev->type == SC_J_END) {
		if (val->slot != SC_SPAN)
			return 0;
		if (r->custom)
			cur_span(r)->st = NULL;
		return tt_exchange_read(cur_span(r));
	}
	if (val->slot == SC_SPAN) {
		r->custom = 0;
		return tt_span_add(r->t, 0, "", 0, 0, 0) ? 0 : -1;
	}
	if (!(m = tt_mark_add(r->t, "", r->waste ? "" : NULL, 0, 0)))
		return -1;
	cJSON_Delete(m->attrs); /* as in the file: none unless given */
	m->attrs = NULL;
	return 0;
}

static int turn_value(struct rd *r, const struct sc_vval *val)
{
	struct tt_turn *t = r->t;
	const struct sc_jev *ev = val->ev;
	const char *s = ev->type == SC_J_STRING ? ev->str : NULL;

	switch (val->slot) {
	case SC_SESSION:
		return tt_str_set(&t->session_id, s);
	case SC_TURN_INDEX:
		t->index = sc_vint(ev);
		break;
	case SC_COMPLETE:
		t->complete = ev->type == SC_J_TRUE;
		break;
	case SC_SOURCE:
		snprintf(t->source, sizeof(t->source), "%s", s);
		break;
	case SC_START:
		t->start_ns = ns(ev);
		break;
	case SC_END:
		t->end_ns = ns(ev);
		break;
	case SC_ANCHOR_MONO:
		t->anchor.monotonic_ns = ns(ev), r->anchor |= 1;
		break;
	case SC_ANCHOR_REAL:
		t->anchor.realtime_ns = ns(ev), r->anchor |= 2;
		break;
	case SC_ANCHOR_BOOT:
		snprintf(t->anchor.boot_id, sizeof(t->anchor.boot_id), "%s", s);
		break;
	case SC_AGENT_NAME:
		return tt_str_set(&t->agent.name, s);
	case SC_AGENT_MODEL:
		return tt_str_set(&t->agent.model, s);
	case SC_AGENT_COMM:
		return tt_str_set(&t->agent.comm, s);
	case SC_AGENT_CONTAINER:
		t->agent.container_known = 1;
		return tt_str_set(&t->agent.container_id, s);
	case SC_AGENT_PID:
		t->agent.pid = sc_vint(ev);
		break;
	case SC_AGENT_START:
		t->agent.start_time_ns = ns(ev);
		break;
	case SC_DQ_TIER:
		snprintf(t->quality.tier, sizeof(t->quality.tier), "%s", s);
		break;
	case SC_DQ_DROPPED:
		t->quality.dropped_events = ns(ev);
		break;
	case SC_DQ_TRUNCATED:
		t->quality.truncated_payloads = ns(ev);
		break;
	case SC_DQ_NON_LLM:
		t->quality.non_llm_requests = ns(ev), t->quality.has_non_llm_requests = 1;
		break;
	case SC_DQ_TOOL_IDENTITY:
		snprintf(t->quality.tool_identity, sizeof(t->quality.tool_identity), "%s", s);
		break;
	case SC_DQ_WARNING:
		return tt_warn(t, s);
	default:
		break;
	}
	return 0;
}

static int on_value(void *ctx, const struct sc_vval *val)
{
	struct rd *r = ctx;

	if (val->tree)
		return tree_event(r, val);
	switch (val->slot) {
	case SC_SPAN:
	case SC_FUSED:
	case SC_WASTE:
		return item(r, val);
	case SC_SPAN_ID ... SC_CTR_WHY:
		return span_value(r, val);
	case SC_MARK_KIND ... SC_MARK_T:
		return mark_value(r, val);
	case SC_GPU ... SC_GPU_BYTES:
		return gpu_value(r, val);
	default:
		return turn_value(r, val);
	}
}

/* What the validator leaves to the typed turn: the index, the waste binding. */
static const char *finish(struct rd *r)
{
	struct tt_turn *t = r->t;

	t->has_anchor = r->anchor == 3;
	if (!t->has_anchor)
		t->anchor.boot_id[0] = '\0';
	if (tt_turn_index(t))
		return "/spans: duplicate ids, unknown parents or a parent cycle (or out of memory)";
	tt_turn_bind_waste(t);
	for (size_t i = 0; i < t->nwaste; i++)
		if (t->waste[i].span && t->waste[i].span_ix < 0)
			return "/waste_marks: a mark names no span of the turn";
	return NULL;
}

/* buf NULL: the file at name. */
static struct tt_turn *load(const char *name, const char *buf, size_t len, sc_verror_fn cb,
			    void *ctx, int *nerr)
{
	struct rd r = { .t = tt_turn_new("?", 0, "?", "?") };
	struct sc_vsink sink = { on_value, &r };
	struct sc_verror e = { .file = name ? name : "<buffer>" };
	const char *why = r.t ? NULL : "out of memory";
	int n = why ? 0 : buf ? sc_validate_buffer_into(name, buf, len, cb, ctx, &sink)
			      : sc_validate_file_into(name, cb, ctx, &sink);

	if (!n && !why)
		why = finish(&r);
	if (why) {
		snprintf(e.msg, sizeof(e.msg), "%s", why);
		if (cb)
			cb(&e, ctx);
		n++;
	}
	cJSON_Delete(r.root);
	if (n) {
		tt_turn_free(r.t);
		r.t = NULL;
	}
	if (nerr)
		*nerr = n;
	return r.t;
}

struct tt_turn *tt_turn_load(const char *path, sc_verror_fn cb, void *ctx, int *nerr)
{
	return load(path, NULL, 0, cb, ctx, nerr);
}

struct tt_turn *tt_turn_load_buffer(const char *name, const char *buf, size_t len,
				    sc_verror_fn cb, void *ctx, int *nerr)
{
	return load(name, buf ? buf : "", len, cb, ctx, nerr);
}
