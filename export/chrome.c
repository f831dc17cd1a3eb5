// SPDX-License-Identifier: MIT
/*
 * chrome.c - turns as a Chrome Trace Event Format object (Perfetto UI,
 * chrome://tracing). A session is a process (1, 2, ... in order of first
 * appearance), each thread a track; a span is a complete event ("X") on the
 * thread that entered it, or its parent's when the file gives none, kept
 * nested per track by lanes.c; a turn is a slice on the session's "turns"
 * track; waste and fused marks are instants; LLM token arrivals a counter.
 * Times are CLOCK_MONOTONIC microseconds with the nanoseconds kept.
 */
#include "export/chrome.h"

#include <stdlib.h>
#include <string.h>

#include "lib/json_int.h"

/* Turn fields shown in the turn slice's args. */
static const char *const turn_args[] = { "session_id", "turn_index", "complete", "source", "agent",
					 "clock_anchor", "data_quality" };
/* Span fields left out of a span's args: they are the event's ts, dur, tid and cat. */
static const char *const span_dropped[] = { "start_ns", "end_ns", "tid", "domain" };

cJSON *xe_chrome_event(const char *ph, int64_t pid, int64_t tid, uint64_t ts_ns, const char *cat,
		       const char *name)
{
	cJSON *ev = cJSON_CreateObject();

	cJSON_AddStringToObject(ev, "ph", ph);
	cJSON_AddNumberToObject(ev, "pid", (double)pid);
	cJSON_AddNumberToObject(ev, "tid", (double)tid);
	cJSON_AddItemToObject(ev, "ts", xe_us_raw(ts_ns));
	cJSON_AddStringToObject(ev, "cat", cat);
	cJSON_AddStringToObject(ev, "name", name);
	return ev;
}

/* A complete event: ph "X" with its duration. */
static cJSON *slice(int64_t pid, int64_t tid, uint64_t start, uint64_t end, const char *cat,
		    const char *name)
{
	cJSON *ev = xe_chrome_event("X", pid, tid, start, cat, name);

	cJSON_AddItemToObject(ev, "dur", xe_us_raw(end - start));
	return ev;
}

void xe_chrome_meta(struct xe_out *o, const char *what, int64_t pid, int64_t tid,
		    const char *name)
{
	cJSON *ev = cJSON_CreateObject();

	cJSON_AddStringToObject(ev, "ph", "M");
	cJSON_AddStringToObject(ev, "name", what);
	cJSON_AddNumberToObject(ev, "pid", (double)pid);
	cJSON_AddNumberToObject(ev, "tid", (double)tid);
	cJSON_AddStringToObject(cJSON_AddObjectToObject(ev, "args"), "name", name);
	xe_put(o, ev);
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
	return p.tid;
}

static int put_turn(struct chrome *c, const struct xe_turn *t, struct xe_out *o)
{
	const cJSON *agent = cJSON_GetObjectItemCaseSensitive(t->doc, "agent");
	char name[320];
	cJSON *ev, *args;

	if (t->first_of_session) {
		snprintf(name, sizeof(name), "%s %s",
			 cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(agent, "name")),
			 t->session_id);
		xe_chrome_meta(o, "process_name", t->session, 0, name);
	}
	if (xe_chrome_place(c, o, t->session, XE_TID_TURNS, t->start, t->end, "turns") < 0)
		return -1;
	snprintf(name, sizeof(name), "turn %lld", (long long)t->turn_index);
	ev = slice(t->session, XE_TID_TURNS, t->start, t->end, "turn", name);
	args = cJSON_AddObjectToObject(ev, "args");
	for (size_t i = 0; i < sizeof(turn_args) / sizeof(turn_args[0]); i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(t->doc, turn_args[i]);

		if (v)
			cJSON_AddItemToObject(args, turn_args[i], cJSON_Duplicate(v, 1));
	}
	xe_put(o, ev);
	return 0;
}

/* The thread of each span: its tid, else its nearest ancestor's, else the agent's pid. */
static void span_threads(const struct xe_turn *t, int64_t agent_pid, int64_t *th)
{
	for (size_t i = 0; i < t->nspans; i++)
		th[i] = t->spans[i].tid;
	for (size_t i = 0; i < t->nspans; i++) {
		int j = (int)i, k = (int)i;

		while (!th[j] && t->spans[j].parent_ix >= 0)
			j = t->spans[j].parent_ix;
		for (int64_t v = th[j] ? th[j] : agent_pid; k >= 0 && !th[k];
		     k = t->spans[k].parent_ix)
			th[k] = v;
	}
}

static cJSON *span_event(const struct xe_span *s, int64_t pid, int64_t tid)
{
	char name[160], why[64];
	const char *l3 = xe_span_l3_home(s->item);
	const char *domain =
		cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s->item, "domain"));
	cJSON *args = cJSON_Duplicate(s->item, 1), *ev;

	xe_span_name(s->item, name, sizeof(name));
	ev = slice(pid, tid, s->start, s->end, domain, name);
	for (size_t i = 0; i < sizeof(span_dropped) / sizeof(span_dropped[0]); i++)
		cJSON_DeleteItemFromObjectCaseSensitive(args, span_dropped[i]);
	/* shown as the "tokens received" counter */
	cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(args, "attributes"),
						"xperf.token_times_ns");
	if (l3)
		cJSON_AddStringToObject(args, "l3_home", l3);
	if (xe_span_failed(s->item, why, sizeof(why)))
		cJSON_AddStringToObject(args, "error", why);
	cJSON_AddItemToObject(ev, "args", args);
	return ev;
}

static void put_count(struct xe_out *o, int64_t pid, uint64_t ts, int n)
{
	cJSON *ev = xe_chrome_event("C", pid, 0, ts, "intelligent", "tokens received");

	cJSON_AddNumberToObject(cJSON_AddObjectToObject(ev, "args"), "tokens", n);
	xe_put(o, ev);
}

/* Tokens received so far in an LLM span, from 0 at its start. */
static void put_tokens(const struct xe_span *s, int64_t pid, struct xe_out *o)
{
	const cJSON *times = xe_attr(s->item, "xperf.token_times_ns"), *v;
	uint64_t t;
	int n = 0;

	if (!cJSON_GetArraySize(times))
		return;
	if (!xp_json_get_u64(cJSON_GetArrayItem(times, 0), &t) && t > s->start)
		put_count(o, pid, s->start, 0);
	cJSON_ArrayForEach(v, times) {
		if (!xp_json_get_u64(v, &t))
			put_count(o, pid, t, ++n);
	}
}

static int put_spans(struct chrome *c, const struct xe_turn *t, struct xe_out *o, int64_t *drawn)
{
	int64_t agent = (int64_t)xe_u64(cJSON_GetObjectItemCaseSensitive(t->doc, "agent"), "pid");
	char track[64];

	span_threads(t, agent, drawn);
	for (size_t i = 0; i < t->nspans; i++) {
		const struct xe_span *s = &t->spans[i];

		snprintf(track, sizeof(track), "%s %lld",
			 drawn[i] == agent ? "main thread" : "thread", (long long)drawn[i]);
		drawn[i] = xe_chrome_place(c, o, t->session, drawn[i], s->start, s->end, track);
		if (drawn[i] < 0)
			return -1;
		xe_put(o, span_event(s, t->session, drawn[i]));
		put_tokens(s, t->session, o);
	}
	return 0;
}

/* Marks as instants: on their span's track, or process-wide when they name none. */
static void put_marks(const struct xe_turn *t, struct xe_out *o, const int64_t *drawn,
		      const char *key, const char *cat)
{
	const cJSON *m;
	char name[80];

	cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(t->doc, key))
	{
		int ix = xe_span_find(t, (int64_t)xe_u64(m, "span"));
		cJSON *args = cJSON_Duplicate(m, 1), *ev;

		snprintf(name, sizeof(name), "%s: %s", cat,
			 cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "kind")));
		ev = xe_chrome_event("i", t->session, ix >= 0 ? drawn[ix] : XE_TID_TURNS,
				     xe_u64(m, "t_ns"), cat, name);
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

	if (drawn && !put_turn(c, t, o) && !put_spans(c, t, o, drawn)) {
		put_marks(t, o, drawn, "waste_marks", "waste");
		put_marks(t, o, drawn, "fused_marks", "fused");
		rc = xe_chrome_gpu(c, t, o);
	}
	free(drawn);
	return rc;
}

static int chrome_begin(void *st, struct xe_out *o)
{
	(void)st;
	xe_puts(o, "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"producer\":\"xperf export\","
		   "\"clock\":\"CLOCK_MONOTONIC\"},\"traceEvents\":[\n");
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

void *xe_chrome_new(const struct xe_options *opt)
{
	struct chrome *c = calloc(1, sizeof(*c));

	(void)opt;
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
