/* SPDX-License-Identifier: MIT */
/*
 * turn.c - the public calls that record a turn and its spans: start and end,
 * enter and leave, span attributes (marks are in marks.c).
 *
 * Each call measures first (probe.c, no lock held), then does its
 * bookkeeping under the session lock. Spans are numbered from 1 in the
 * order they are entered; each thread of a turn has a "top", its innermost
 * open span, which becomes the parent of the next span it enters and must
 * be the span it leaves next. Every check happens before any change, so a
 * refused call leaves the turn as it was.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdk/internal.h"

#define MAX_WARNINGS 64

/* Adds a warning once (same text, same turn), at most MAX_WARNINGS. */
static void warn(struct sd_turn *t, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (t->tt->quality.nwarnings < MAX_WARNINGS)
		tt_warn(t->tt, msg);
}

/* The calling thread's top in t; created (span 0) when `create`. */
struct sd_top *sd_top_of(struct sd_turn *t, pid_t tid, int create)
{
	for (size_t i = 0; i < t->ntops; i++)
		if (t->tops[i].tid == tid)
			return &t->tops[i];
	if (!create || xp_grow((void **)&t->tops, &t->tcap, t->ntops + 1, sizeof(*t->tops)))
		return NULL;
	t->tops[t->ntops] = (struct sd_top){ tid, 0 };
	return &t->tops[t->ntops++];
}

struct sd_turn *sd_lock_turn(int handle, int *err)
{
	struct sd_turn *t;

	sd_lock();
	t = sd_live() ? sd_turn_get(handle) : NULL;
	if (t)
		return t;
	*err = sd_live() ? XP_ENOTURN : XP_ENOINIT;
	sd_unlock();
	return NULL;
}

int xperf_start_turn(void)
{
	struct sd_turn *t;
	int handle;

	if (!sd_live())
		return sd_fail(XP_ENOINIT);
	t = calloc(1, sizeof(*t));
	if (!t || !(t->tt = tt_turn_new(NULL, 0, "sdk", "sdk"))) {
		free(t);
		return sd_fail(XP_ENOMEM);
	}
	t->tt->complete = 1;
	t->tt->start_ns = sd_now_ns();
	sd_lock();
	handle = sd_live() ? sd_turn_add(t) : XP_ENOINIT;
	sd_unlock();
	if (handle < 0) {
		sd_turn_free(t);
		return sd_fail(handle);
	}
	return handle;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/*
 * Ends the turn at now_ns, or later when another thread measured a span
 * boundary, token or mark after now_ns but recorded it first: everything
 * lies inside the turn.
 */
void sd_turn_close(struct sd_turn *t, uint64_t now_ns, int complete)
{
	for (size_t i = 0; i < t->nspans; i++) {
		const struct sd_span *sp = &t->spans[i];
		const struct tt_span *s = &t->tt->spans[i];

		now_ns = max_u64(now_ns, sp->open ? s->start_ns : s->end_ns);
		if (sp->ntokens)
			now_ns = max_u64(now_ns, sp->tokens[sp->ntokens - 1]);
	}
	for (size_t i = 0; i < t->tt->nfused; i++)
		now_ns = max_u64(now_ns, t->tt->fused[i].t_ns);
	for (size_t i = 0; i < t->tt->nwaste; i++)
		now_ns = max_u64(now_ns, t->tt->waste[i].t_ns);
	t->tt->end_ns = now_ns;
	t->tt->complete = complete;
	for (size_t i = 0; i < t->nspans; i++) {
		struct tt_span *s = &t->tt->spans[i];

		if (t->spans[i].open) {
			t->spans[i].open = 0;
			s->end_ns = now_ns;
			warn(t, "span %d (%s) was not left before the turn ended: closed at the "
			     "turn's end, without CPU time or counters", (int)s->id, s->stage);
			sd_stream_finish(t, (int)s->id);
		}
	}
}

int xperf_end_turn(int handle)
{
	uint64_t now = sd_now_ns();
	struct sd_turn *t;
	int err;

	t = sd_lock_turn(handle, &err);
	if (!t)
		return sd_fail(err);
	sd_turn_remove(t);
	sd_unlock();
	sd_turn_close(t, now, 1);
	return sd_session_write(t);
}

void sd_turn_free(struct sd_turn *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nspans; i++)
		free(t->spans[i].tokens);
	free(t->spans);
	free(t->tops);
	tt_turn_free(t->tt);
	free(t);
}

/* Under the lock: the parent of a new span, or an error. */
static int parent_of(struct sd_turn *t, const struct xperf_span_opts *o, pid_t tid,
		     struct sd_top **top)
{
	*top = NULL;
	if (o->detached) {
		if (o->parent < 0 || (size_t)o->parent > t->nspans)
			return XP_ENOSPAN;
		return !o->parent || t->spans[o->parent - 1].open ? o->parent : XP_ECLOSED;
	}
	*top = sd_top_of(t, tid, 1);
	return *top ? (*top)->span : XP_ENOMEM;
}

/* Under the lock: the new span's id, or an error (nothing changed). */
static int add_span(struct sd_turn *t, const struct sd_sample *s, const struct xperf_span_opts *o,
		    cJSON *attrs)
{
	struct sd_top *top;
	struct sd_span *sp;
	struct tt_span *cs;
	int parent;

	if (t->nspans >= XPERF_MAX_SPANS) {
		t->tt->quality.dropped_events++;
		return XP_ELIMIT;
	}
	parent = parent_of(t, o, s->tid, &top);
	if (parent == XP_ENOSPAN || parent == XP_ECLOSED)
		return parent;
	if (parent < 0 || xp_grow((void **)&t->spans, &t->cap, t->nspans + 1, sizeof(*t->spans)) ||
	    !(cs = tt_span_add(t->tt, parent, o->stage, s->mono_ns, 0, s->tid))) {
		t->tt->quality.dropped_events++;
		return XP_ENOMEM;
	}
	sp = &t->spans[t->nspans++];
	memset(sp, 0, sizeof(*sp));
	if (parent)
		t->spans[parent - 1].open_children++;
	if (top)
		top->span = (int)cs->id;
	sp->open = 1;
	sp->llm = o->llm ? 1 : 0;
	sp->detached = o->detached ? 1 : 0;
	sp->cpu_start = s->cpu_ns;
	sp->ctr_mask = s->ctr.mask;
	memcpy(sp->ctr, s->ctr.value, sizeof(sp->ctr));
	memcpy(sp->why, s->why, sizeof(sp->why));
	if (attrs) {
		cJSON_Delete(cs->attrs);
		cs->attrs = attrs;
	}
	if (!cs->st)
		warn(t, "custom stage \"%s\" is not in the theory's stage map: charged to the %s "
		     "domain", o->stage, th_rules.unknown_stage_domain);
	return (int)cs->id;
}

/* The span's attributes: the caller's, and tool.name. 0 or an error. */
static int span_attrs(const struct xperf_span_opts *o, cJSON **out)
{
	struct xperf_attr tool = XP_STR("tool.name", o->tool_name);
	cJSON *extra = NULL;
	int err;

	*out = NULL;
	err = o->nattrs ? sd_attrs_build(out, NULL, o->attrs, o->nattrs, 1) : 0;
	if (!err && o->tool_name)
		err = sd_attrs_build(&extra, NULL, &tool, 1, 1);
	sd_attrs_join(out, extra);
	if (err) {
		cJSON_Delete(*out);
		*out = NULL;
	}
	return err;
}

int xperf_enter_ex(int handle, const struct xperf_span_opts *opts)
{
	struct xperf_span_opts o;
	struct sd_sample s;
	struct sd_turn *t;
	cJSON *attrs;
	int id;

	if (!opts)
		return sd_fail(XP_EINVAL);
	o = *opts;
	if (o.llm && !o.stage)
		o.stage = "llm_inference";
	if (!sd_name_valid(o.stage, XP_STAGE_MAX) || (o.parent && !o.detached))
		return sd_fail(XP_EINVAL);
	if (!sd_live())
		return sd_fail(XP_ENOINIT);
	if ((id = span_attrs(&o, &attrs)))
		return sd_fail(id);
	sd_probe(&s, 0);
	t = sd_lock_turn(handle, &id);
	if (t) {
		id = add_span(t, &s, &o, attrs);
		sd_unlock();
	}
	if (id < 0) {
		if (id == XP_ELIMIT || id == XP_ENOMEM)
			sd_count_dropped(1);
		cJSON_Delete(attrs);
		return sd_fail(id);
	}
	return id;
}

int xperf_enter(int turn, const char *stage, const char *tool_name)
{
	return xperf_enter_ex(turn, &(struct xperf_span_opts){ .stage = stage,
							      .tool_name = tool_name });
}

int xperf_enter_llm(int turn, const char *stage, const struct xperf_attr *attrs, size_t n)
{
	return xperf_enter_ex(turn, &(struct xperf_span_opts){ .stage = stage, .llm = 1,
							      .attrs = attrs, .nattrs = n });
}

/* Under the lock: 0 when the calling thread may leave span id now. */
static int check_leave(struct sd_turn *t, int id, pid_t tid, int llm)
{
	const struct sd_span *sp;
	const struct sd_top *top;

	if (id < 1 || (size_t)id > t->nspans)
		return XP_ENOSPAN;
	sp = &t->spans[id - 1];
	if (!sp->open)
		return XP_ECLOSED;
	if (!sp->detached && t->tt->spans[id - 1].tid != tid)
		return XP_ETHREAD;
	top = sd_top_of(t, tid, 0);
	if (sp->open_children || (!sp->detached && (!top || top->span != id)))
		return XP_EORDER;
	return llm && !sp->llm ? XP_ENOTLLM : 0;
}

/*
 * Under the lock, after check_leave: closes the span with the end sample.
 * A detached span keeps its wall time only: its thread's CPU time and
 * counters also hold whatever else ran there meanwhile.
 */
static void close_span(struct sd_turn *t, int id, const struct sd_sample *s)
{
	struct sd_span *sp = &t->spans[id - 1];
	struct tt_span *cs = &t->tt->spans[id - 1];

	sp->open = 0;
	cs->end_ns = s->mono_ns > cs->start_ns ? s->mono_ns : cs->start_ns;
	if (cs->parent)
		t->spans[cs->parent - 1].open_children--;
	if (sp->detached) {
		sd_stream_finish(t, id);
		return;
	}
	cs->sched = TT_SCHED_ON_CPU;
	cs->on_cpu_ns = s->cpu_ns > sp->cpu_start ? s->cpu_ns - sp->cpu_start : 0;
	sp->ctr_mask &= s->ctr.mask;
	for (int c = 0; c < XP_CTR_COUNT; c++) {
		if (sp->ctr_mask & (1ull << c))
			sp->ctr[c] = s->ctr.value[c] - sp->ctr[c];
		else if (sp->why[c] == XP_NO_REASON)
			sp->why[c] = s->why[c];
	}
	sd_top_of(t, s->tid, 0)->span = (int)cs->parent;
	sd_stream_finish(t, id);
}

/*
 * Adds the attributes to span id; leaving, also closes it (measured first,
 * refused unless check_leave allows it).
 */
static int update_span(int handle, int id, int leave, int llm, const struct xperf_attr *a,
		       size_t n)
{
	struct sd_sample s;
	struct sd_turn *t;
	cJSON *attrs = NULL;
	int err;

	if (!sd_live())
		return sd_fail(XP_ENOINIT);
	if (leave)
		sd_probe(&s, 1);
	if (n && (err = sd_attrs_build(&attrs, NULL, a, n, 1)))
		return sd_fail(err);
	t = sd_lock_turn(handle, &err);
	if (t) {
		if (leave)
			err = check_leave(t, id, s.tid, llm);
		else
			err = id >= 1 && (size_t)id <= t->nspans ? 0 : XP_ENOSPAN;
		if (!err) {
			sd_attrs_join(&t->tt->spans[id - 1].attrs, attrs);
			attrs = NULL;
			if (leave)
				close_span(t, id, &s);
		}
		sd_unlock();
	}
	cJSON_Delete(attrs);
	return err ? sd_fail(err) : 0;
}

int xperf_leave(int turn, int span)
{
	return update_span(turn, span, 1, 0, NULL, 0);
}

int xperf_leave_llm(int turn, int span, const struct xperf_attr *attrs, size_t n)
{
	return update_span(turn, span, 1, 1, attrs, n);
}

int xperf_span_set(int handle, int id, const struct xperf_attr *a, size_t n)
{
	return update_span(handle, id, 0, 0, a, n);
}
