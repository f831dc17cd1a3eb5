// SPDX-License-Identifier: MIT
/*
 * chrome.c - turns as a Chrome Trace Event Format object (Perfetto UI,
 * chrome://tracing). A session is a process (1, 2, ... in order of first
 * appearance), each thread a track; a span is a complete event ("X") on the
 * thread that entered it, or its parent's when the file gives none, kept
 * nested per track by lanes.c; a turn is a slice on the session's "turns"
 * track; waste and fused marks are instants; LLM token arrivals a counter.
 * Times are whole microseconds of the wall clock, from each turn's clock
 * anchor (walk.c); a span within one microsecond is an instant.
 */
#include "export/chrome.h"

#include <stdlib.h>
#include <string.h>

#include "core/write.h"
#include "lib/json_int.h"

/* Span fields left out of a span's args: they are the event's ts, dur, tid and cat. */
static const char *const span_dropped[] = { "start_ns", "end_ns", "tid", "domain" };

uint64_t xe_chrome_us(const struct chrome *c, uint64_t ns)
{
	int64_t wall = (int64_t)ns + c->offset;

	return wall > 0 ? (uint64_t)wall / 1000 : 0;
}

cJSON *xe_chrome_event(const char *ph, int64_t pid, int64_t tid, uint64_t ts_us, const char *cat,
		       const char *name)
{
	cJSON *ev = cJSON_CreateObject();

	cJSON_AddStringToObject(ev, "ph", ph);
	cJSON_AddNumberToObject(ev, "pid", (double)pid);
	cJSON_AddNumberToObject(ev, "tid", (double)tid);
	cJSON_AddItemToObject(ev, "ts", xe_u64_raw(ts_us));
	cJSON_AddStringToObject(ev, "cat", cat);
	cJSON_AddStringToObject(ev, "name", name);
	return ev;
}

cJSON *xe_chrome_slice(struct chrome *c, struct xe_out *o, int64_t pid, int64_t tid,
		       uint64_t start, uint64_t end, const char *track, const char *cat,
		       const char *name, int64_t *drawn)
{
	uint64_t a = xe_chrome_us(c, start), b = xe_chrome_us(c, end);
	cJSON *ev;

	*drawn = xe_chrome_place(c, o, pid, tid, a, b, track);
	if (*drawn < 0)
		return NULL;
	ev = xe_chrome_event(a < b ? "X" : "i", pid, *drawn, a, cat, name);
	if (a < b)
		cJSON_AddItemToObject(ev, "dur", xe_u64_raw(b - a));
	else
		cJSON_AddStringToObject(ev, "s", "t");
	return ev;
}

/* A metadata event ("M") what of pid or (pid, tid), its args {key: val}. */
static void put_meta(struct xe_out *o, const char *what, int64_t pid, int64_t tid,
		     const char *key, cJSON *val)
{
	cJSON *ev = cJSON_CreateObject();

	cJSON_AddStringToObject(ev, "ph", "M");
	cJSON_AddStringToObject(ev, "name", what);
	cJSON_AddNumberToObject(ev, "pid", (double)pid);
	cJSON_AddNumberToObject(ev, "tid", (double)tid);
	cJSON_AddItemToObject(cJSON_AddObjectToObject(ev, "args"), key, val);
	xe_put(o, ev);
}

void xe_chrome_meta(struct xe_out *o, const char *what, int64_t pid, int64_t tid,
		    const char *name)
{
	put_meta(o, what, pid, tid, "name", cJSON_CreateString(name));
}

int64_t xe_chrome_place(struct chrome *c, struct xe_out *o, int64_t pid, int64_t tid,
			uint64_t start, uint64_t end, const char *track)
{
	struct xe_place p;
	char name[128];

	if (xe_lanes_place(c->lanes, pid, tid, start, end, &p))
		return -1;
	if (p.is_new) {
		snprintf(name, sizeof(name), p.lane ? "%s (overlap %d)" : "%s", track, p.lane);
		xe_chrome_meta(o, "thread_name", pid, p.tid, name);
	}
	if (p.is_new && tid == XE_TID_TURNS && !p.lane) /* the turns first, above the threads */
		put_meta(o, "thread_sort_index", pid, tid, "sort_index", cJSON_CreateNumber(-1));
	return p.tid;
}

static int put_turn(struct chrome *c, const struct xe_turn *t, struct xe_out *o)
{
	char name[320];
	cJSON *ev, *args;
	int64_t drawn;

	if (t->first_of_session) {
		snprintf(name, sizeof(name), "%s %s", t->turn->agent.name ? t->turn->agent.name : "",
			 t->turn->session_id);
		xe_chrome_meta(o, "process_name", t->session, 0, name);
	}
	snprintf(name, sizeof(name), "turn %lld", (long long)t->turn->index);
	ev = xe_chrome_slice(c, o, t->session, XE_TID_TURNS, t->turn->start_ns, t->turn->end_ns,
			     "turns", "turn", name, &drawn);
	if (!ev)
		return -1;
	args = cJSON_AddObjectToObject(ev, "args");
	cJSON_AddStringToObject(args, "session_id", t->turn->session_id);
	xp_json_add_u64(args, "turn_index", (uint64_t)t->turn->index);
	cJSON_AddBoolToObject(args, "complete", t->turn->complete);
	cJSON_AddStringToObject(args, "source", t->turn->source);
	cJSON_AddItemToObject(args, "agent", tt_agent_json(&t->turn->agent));
	if (t->turn->has_anchor)
		cJSON_AddItemToObject(args, "clock_anchor", tt_anchor_json(&t->turn->anchor));
	cJSON_AddItemToObject(args, "data_quality", tt_quality_json(&t->turn->quality));
	xe_put(o, ev);
	return 0;
}

/* The thread of each span: its tid, else its nearest ancestor's, else the agent's pid. */
static void span_threads(const struct xe_turn *t, int64_t agent_pid, int64_t *th)
{
	for (size_t i = 0; i < t->nspans; i++)
		th[i] = t->spans[i].ts->tid;
	for (size_t i = 0; i < t->nspans; i++) {
		int j = (int)i, k = (int)i;

		while (!th[j] && t->spans[j].parent_ix >= 0)
			j = t->spans[j].parent_ix;
		for (int64_t v = th[j] ? th[j] : agent_pid; k >= 0 && !th[k];
		     k = t->spans[k].parent_ix)
			th[k] = v;
	}
}

/* The span's event (placed on its thread's track, *drawn: the tid it is on) and args. */
static cJSON *span_event(struct chrome *c, struct xe_out *o, const struct xe_span *s, int64_t pid,
			 int64_t tid, const char *track, int64_t *drawn)
{
	char name[160], why[64];
	const struct tt_span *ts = s->ts;
	const char *l3 = xe_span_l3_home(s);
	cJSON *args, *ev;

	xe_span_name(s, name, sizeof(name));
	ev = xe_chrome_slice(c, o, pid, tid, ts->start_ns, ts->end_ns, track,
			     th_domains[ts->domain].key, name, drawn);
	if (!ev)
		return NULL;
	args = tt_span_json(ts);
	for (size_t i = 0; i < sizeof(span_dropped) / sizeof(span_dropped[0]); i++)
		cJSON_DeleteItemFromObjectCaseSensitive(args, span_dropped[i]);
	/* shown as the "tokens received" counter */
	cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(args, "attributes"),
						TT_TOKEN_TIMES_ATTR);
	xp_json_add_u64(args, "dur_ns", ts->end_ns - ts->start_ns); /* the microsecond grid rounds it */
	if (l3)
		cJSON_AddStringToObject(args, "l3_home", l3);
	if (tt_ex_failed(&s->ts->ex, why, sizeof(why)))
		cJSON_AddStringToObject(args, "error", why);
	cJSON_AddItemToObject(ev, "args", args);
	return ev;
}

/* A change of the token counter: +1 at a token, -n at the end of a call that received n. */
struct token_step {
	uint64_t us;
	int delta;
};

static int by_us(const void *a, const void *b)
{
	const struct token_step *x = a, *y = b;

	return (x->us > y->us) - (x->us < y->us);
}

/* The token steps of the turn's LLM calls (their xperf.token_times_ns); NULL on memory. */
static struct token_step *token_steps(const struct chrome *c, const struct xe_turn *t, size_t *n)
{
	size_t cap = 1;
	struct token_step *st;

	for (size_t i = 0; i < t->nspans; i++)
		cap += t->spans[i].ts->ex.ntokens + 2;
	if (!(st = malloc(cap * sizeof(*st))))
		return NULL;
	*n = 0;
	for (size_t i = 0; i < t->nspans; i++) {
		const struct tt_span *ts = t->spans[i].ts;
		const struct tt_exchange *ex = &ts->ex;

		if (!ex->ntokens)
			continue;
		st[(*n)++] = (struct token_step){ xe_chrome_us(c, ts->start_ns), 0 };
		for (size_t k = 0; k < ex->ntokens; k++)
			st[(*n)++] = (struct token_step){ xe_chrome_us(c, ex->token_ns[k]), 1 };
		st[(*n)++] = (struct token_step){ xe_chrome_us(c, ts->end_ns), -(int)ex->ntokens };
	}
	qsort(st, *n, sizeof(*st), by_us); /* equal stamps: the sum is what is drawn */
	return st;
}

/*
 * Counter "tokens received": the tokens the session's LLM calls in flight have
 * received, one value per microsecond where it changes; 0 when a call starts
 * with none in flight and again when the last call in flight ends.
 */
static int put_tokens(struct chrome *c, const struct xe_turn *t, struct xe_out *o)
{
	size_t n = 0;
	struct token_step *st = token_steps(c, t, &n);
	int64_t value = 0;

	if (!st)
		return -1;
	for (size_t i = 0; i < n; i++) {
		value += st[i].delta;
		if (i + 1 == n || st[i + 1].us != st[i].us) {
			cJSON *ev = xe_chrome_event("C", t->session, 0, st[i].us, "intelligent",
						    "tokens received");

			cJSON_AddNumberToObject(cJSON_AddObjectToObject(ev, "args"), "tokens",
						(double)value);
			xe_put(o, ev);
		}
	}
	free(st);
	return 0;
}

/* The track a span is drawn on: the agent's main thread, a tool's process, another thread. */
static void track_name(const struct xe_span *s, int64_t tid, int64_t agent, char *out, size_t len)
{
	const char *tool = s->ts->ex.str[TT_EX_TOOL];

	if (tid == agent)
		snprintf(out, len, "main thread %lld", (long long)tid);
	else if (tool)
		snprintf(out, len, "tool %s (pid %lld)", tool, (long long)tid);
	else
		snprintf(out, len, "thread %lld", (long long)tid);
}

static int put_spans(struct chrome *c, const struct xe_turn *t, struct xe_out *o, int64_t *drawn)
{
	int64_t agent = t->turn->agent.pid;
	char track[192];

	span_threads(t, agent, drawn);
	for (size_t i = 0; i < t->nspans; i++) {
		const struct xe_span *s = &t->spans[i];
		cJSON *ev;

		track_name(s, drawn[i], agent, track, sizeof(track));
		ev = span_event(c, o, s, t->session, drawn[i], track, &drawn[i]);
		if (!ev)
			return -1;
		xe_put(o, ev);
	}
	return put_tokens(c, t, o);
}

/* Marks as instants: on their span's track, or process-wide when they name none. */
static void put_marks(const struct chrome *c, const struct xe_turn *t, struct xe_out *o,
		      const int64_t *drawn, const struct tt_mark *m, size_t n, const char *cat)
{
	char name[80];

	for (; n--; m++) {
		int ix = xe_span_find(t, m->span);
		cJSON *args = tt_mark_json(m), *ev;

		snprintf(name, sizeof(name), "%s: %s", cat, m->kind);
		ev = xe_chrome_event("i", t->session, ix >= 0 ? drawn[ix] : XE_TID_TURNS,
				     xe_chrome_us(c, m->t_ns), cat, name);
		cJSON_AddStringToObject(ev, "s", ix >= 0 ? "t" : "p");
		cJSON_DeleteItemFromObjectCaseSensitive(args, "t_ns");
		cJSON_AddItemToObject(ev, "args", args);
		xe_put(o, ev);
	}
}

static int chrome_turn(void *st, const struct xe_turn *t, struct xe_out *o)
{
	struct chrome *c = st;
	int64_t *drawn = calloc(t->nspans + 1, sizeof(*drawn));
	int rc = -1;

	c->offset = t->offset;
	if (drawn && !put_turn(c, t, o) && !put_spans(c, t, o, drawn)) {
		put_marks(c, t, o, drawn, t->turn->waste, t->turn->nwaste, "waste");
		put_marks(c, t, o, drawn, t->turn->fused, t->turn->nfused, "fused");
		rc = xe_chrome_gpu(c, t, o);
	}
	free(drawn);
	return rc;
}

static int chrome_begin(void *st, struct xe_out *o)
{
	(void)st;
	xe_puts(o, "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"producer\":\"xperf export\","
		   "\"clock\":\"Unix-epoch microseconds: CLOCK_MONOTONIC placed by each boot's "
		   "clock_anchor\"},\"traceEvents\":[\n");
	xe_out_list_reset(o);
	return 0;
}

static int chrome_end(void *st, struct xe_out *o)
{
	(void)st;
	xe_puts(o, "\n]}\n");
	return 0;
}

const struct xe_format_ops xe_chrome_ops = { chrome_begin, chrome_turn, chrome_end };

void *xe_chrome_new(void)
{
	struct chrome *c = calloc(1, sizeof(*c));

	if (c && !(c->lanes = xe_lanes_new())) {
		free(c);
		c = NULL;
	}
	return c;
}

void xe_chrome_free(void *st)
{
	struct chrome *c = st;

	if (!c)
		return;
	xe_lanes_free(c->lanes);
	free(c->gpu_named);
	free(c);
}
