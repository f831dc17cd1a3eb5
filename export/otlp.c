// SPDX-License-Identifier: MIT
/*
 * otlp.c - turns as an OTLP/JSON ExportTraceServiceRequest. A turn is a
 * trace: its id is derived from the session id and the turn index, so the
 * same file exports to the same ids; a root span covers the turn and is the
 * parent of the file's top-level spans. Consecutive turns of one session
 * share a resourceSpans entry (the agent process). Marks become span events,
 * failed LLM calls and tools status ERROR. Times are Unix-epoch ns: the
 * file's CLOCK_MONOTONIC times placed by its clock anchor (xe_turn_offset).
 */
#include "export/otlp.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/export.h"
#include "export/walk.h"
#include "core/write.h"
#include "lib/host_port.h"
#include "lib/json_int.h"
#include "lib/version.h"

#define SPAN_KIND_INTERNAL 1
#define SPAN_KIND_CLIENT 3
#define STATUS_CODE_ERROR 2

/*
 * The stages that are GenAI operations (OpenTelemetry GenAI semantic conventions):
 * span name "{operation} {subject}" (the first subject attribute the span or its
 * agent has), gen_ai.operation.name, kind (CLIENT: a call to a remote service).
 * Other stages are xperf's own INTERNAL spans named by their stage.
 */
static const struct operation {
	const char *stage, *name;
	enum tt_ex_str subject[2]; /* of the span's typed exchange */
	int nsubject;
	int kind;
} operations[] = {
	{ "llm_inference", "chat", { TT_EX_REQUEST_MODEL, TT_EX_RESPONSE_MODEL }, 2,
	  SPAN_KIND_CLIENT },
	{ "tool_call", "execute_tool", { TT_EX_TOOL }, 1, SPAN_KIND_INTERNAL },
};

/* LLM endpoints that are no chat: url.path suffix -> gen_ai.operation.name. */
static const struct {
	const char *path_suffix, *name;
} completion_paths[] = { { "/api/generate", "text_completion" },
			 { "/v1/completions", "text_completion" } };

/* File attributes whose OpenTelemetry name differs (TTFT: the metric's name is no span attribute). */
static const struct {
	const char *file, *otlp;
} renames[] = {
	{ "tool.name", "gen_ai.tool.name" },
	{ "gen_ai.server.time_to_first_token", "gen_ai.response.time_to_first_chunk" },
};

struct otlp {
	size_t nresource; /* entries written; the last is open */
};

/* One mark, sorted by the span it is attached to (-1: the root), then time. */
struct mark {
	const struct tt_mark *m;
	const char *cat; /* "waste", "fused" */
	int span;
	uint64_t t;
};

struct ids {
	uint64_t hi, lo;
};

/* splitmix64's finalizer: every input bit reaches every output bit. */
static uint64_t mix(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static uint64_t nonzero(uint64_t x)
{
	return x ? x : 1; /* all-zero ids are invalid in OTLP */
}

static struct ids trace_id(const char *session, int64_t turn)
{
	uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a 64 over the session id */

	for (const unsigned char *p = (const unsigned char *)session; *p; p++)
		h = (h ^ *p) * 0x100000001b3ULL;
	h = mix(h ^ mix((uint64_t)turn));
	return (struct ids){ nonzero(mix(h ^ 0x9e3779b97f4a7c15ULL)), nonzero(h) };
}

/* The root span is file id 0 (file ids start at 1), so a file parent of 0 (none) is the root. */
static uint64_t span_id(struct ids tr, int64_t id)
{
	return nonzero(mix(tr.lo ^ mix(tr.hi + (uint64_t)id)));
}

static void add_hex(cJSON *obj, const char *key, uint64_t hi, uint64_t lo, int wide)
{
	char hex[33];

	if (wide)
		snprintf(hex, sizeof(hex), "%016llx%016llx", (unsigned long long)hi,
			 (unsigned long long)lo);
	else
		snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)lo);
	cJSON_AddStringToObject(obj, key, hex);
}

static void add_time(cJSON *obj, const char *key, uint64_t mono, int64_t offset)
{
	int64_t t = (int64_t)mono + offset;
	char text[24];

	snprintf(text, sizeof(text), "%lld", (long long)(t > 0 ? t : 0));
	cJSON_AddStringToObject(obj, key, text);
}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const struct operation *operation_of(const struct tt_span *s)
{
	for (size_t i = 0; i < COUNT(operations); i++)
		if (!strcmp(s->stage, operations[i].stage))
			return &operations[i];
	return NULL;
}

static const char *operation_name(const struct operation *op, const struct tt_span *s)
{
	const char *path =
		cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s->attrs, "url.path"));
	size_t len = path ? strlen(path) : 0;

	for (size_t i = 0; path && i < COUNT(completion_paths); i++) {
		size_t n = strlen(completion_paths[i].path_suffix);

		if (len >= n && !strcmp(path + len - n, completion_paths[i].path_suffix))
			return completion_paths[i].name;
	}
	return op->name;
}

/* "{operation} {subject}", or the operation alone when no subject is known. */
static void operation_span_name(const struct operation *op, const char *opname,
				const struct tt_exchange *ex, const char *agent_model, char *out,
				size_t len)
{
	const char *subject = NULL;

	for (int i = 0; !subject && i < op->nsubject; i++)
		subject = ex->str[op->subject[i]];
	if (!subject && op->kind == SPAN_KIND_CLIENT)
		subject = agent_model;
	snprintf(out, len, "%s%s%s", opname, subject && *subject ? " " : "",
		 subject ? subject : "");
}

/* server.address "host:port" (older files) as server.address + server.port. */
static void server_attrs(cJSON *attrs, const cJSON *map, const cJSON *v)
{
	char host[256];
	int port;

	xp_host_port(cJSON_GetStringValue(v), host, sizeof(host), &port);
	xe_otlp_attr_str(attrs, "server.address", host);
	if (port && !cJSON_GetObjectItemCaseSensitive(map, "server.port"))
		xe_otlp_attr_take(attrs, "server.port", cJSON_CreateNumber(port));
}

/*
 * The file's attributes under their OpenTelemetry names (a name the file also gives
 * is kept). gen_ai.usage.* belongs on GenAI operations only (backends sum it over
 * spans): on xperf's own spans (prompt assembly, decode...) the tokens their work
 * measured become xperf.usage.*.
 */
static void file_attrs(cJSON *attrs, const cJSON *map, int operation)
{
	static const char usage[] = "gen_ai.usage.";
	const cJSON *m;
	char moved[160];

	cJSON_ArrayForEach(m, map) {
		const char *key = m->string;
		size_t i = 0;

		if (!operation && !strncmp(key, usage, sizeof(usage) - 1)) {
			snprintf(moved, sizeof(moved), "xperf.usage.%s", key + sizeof(usage) - 1);
			xe_otlp_attr(attrs, moved, m);
			continue;
		}

		while (i < COUNT(renames) && strcmp(key, renames[i].file))
			i++;
		if (i < COUNT(renames)) {
			if (cJSON_GetObjectItemCaseSensitive(map, renames[i].otlp))
				continue;
			key = renames[i].otlp;
		}
		if (!strcmp(key, "server.address"))
			server_attrs(attrs, map, m);
		else
			xe_otlp_attr(attrs, key, m);
	}
}

static cJSON *event_of(const struct mark *m, int64_t offset)
{
	cJSON *ev = cJSON_CreateObject(), *attrs;
	char name[80];

	add_time(ev, "timeUnixNano", m->t, offset);
	snprintf(name, sizeof(name), "xperf.%s.%s", m->cat, m->m->kind);
	cJSON_AddStringToObject(ev, "name", name);
	attrs = cJSON_AddArrayToObject(ev, "attributes");
	if (m->m->l3)
		xe_otlp_attr_str(attrs, "xperf.l3", m->m->l3);
	xe_otlp_attr_map(attrs, "xperf.count.", m->m->counts);
	xe_otlp_attr_map(attrs, "", m->m->attrs);
	return ev;
}

/* The span's events: marks [*next, ...) attached to `span`; *next moves past them. */
static void add_events(cJSON *sp, const struct mark *m, size_t n, size_t *next, int span,
		       int64_t offset)
{
	cJSON *events = NULL;

	for (; *next < n && m[*next].span == span; (*next)++) {
		if (!events)
			events = cJSON_AddArrayToObject(sp, "events");
		cJSON_AddItemToArray(events, event_of(&m[*next], offset));
	}
}

/* The members common to every span: ids, name, kind, times. */
static cJSON *span_head(struct ids tr, int64_t id, int64_t parent, const char *name, int kind,
			uint64_t start, uint64_t end, int64_t offset)
{
	cJSON *sp = cJSON_CreateObject();

	add_hex(sp, "traceId", tr.hi, tr.lo, 1);
	add_hex(sp, "spanId", 0, span_id(tr, id), 0);
	if (parent >= 0)
		add_hex(sp, "parentSpanId", 0, span_id(tr, parent), 0);
	cJSON_AddStringToObject(sp, "name", name);
	cJSON_AddNumberToObject(sp, "kind", kind);
	add_time(sp, "startTimeUnixNano", start, offset);
	add_time(sp, "endTimeUnixNano", end, offset);
	return sp;
}

/* The span's scheduler and counter values, under xperf.sched.*, xperf.counter*. */
static void measured_attrs(cJSON *attrs, const struct tt_span *s)
{
	static const char *const sched[] = { "on_cpu_ns", "runq_ns", "blocked_ns" };
	const uint64_t ns[] = { s->on_cpu_ns, s->runq_ns, s->blocked_ns };
	const struct tt_counters *k = s->ctr ? s->ctr : &(struct tt_counters){ .have = 0 };
	char key[96];

	for (int i = 0; i < 3; i++)
		if (s->sched & (1u << i)) {
			snprintf(key, sizeof(key), "xperf.sched.%s", sched[i]);
			xe_otlp_attr_take(attrs, key, xp_json_exact_u64(ns[i]));
		}
	for (size_t c = 0; c < th_counter_name_count && c < TT_COUNTERS_MAX; c++)
		if (k->have & (1u << c)) {
			snprintf(key, sizeof(key), "xperf.counter.%s", th_counter_name_table[c].name);
			xe_otlp_attr_take(attrs, key, xp_json_exact_u64(k->val[c]));
		}
	for (size_t c = 0; c < th_counter_name_count && c < TT_COUNTERS_MAX; c++)
		if (!(k->have & (1u << c)) && (k->unavail & (1u << c))) {
			snprintf(key, sizeof(key), "xperf.counter_unavailable.%s",
				 th_counter_name_table[c].name);
			xe_otlp_attr_str(attrs, key, k->why[c] ? k->why[c] : "unavailable");
		}
}

static cJSON *file_span(const struct xe_turn *t, const struct xe_span *xs, struct ids tr,
			int64_t offset)
{
	const struct tt_span *s = xs->ts;
	const struct operation *op = operation_of(s);
	const char *l3 = xe_span_l3_home(xs), *opname = op ? operation_name(op, s) : NULL;
	char name[160], why[64];
	cJSON *sp, *attrs, *map = tt_span_attrs_json(s);

	if (op)
		operation_span_name(op, opname, &s->ex, t->turn->agent.model, name, sizeof(name));
	else
		xe_span_name(xs, name, sizeof(name));
	sp = span_head(tr, s->id, s->parent, name, op ? op->kind : SPAN_KIND_INTERNAL, s->start_ns,
		       s->end_ns, offset);
	attrs = cJSON_AddArrayToObject(sp, "attributes");
	if (op) {
		xe_otlp_attr_str(attrs, "gen_ai.operation.name", opname);
		xe_otlp_attr_str(attrs, "gen_ai.conversation.id", t->turn->session_id);
	}
	file_attrs(attrs, map, op != NULL);
	cJSON_Delete(map);
	xe_otlp_cost(attrs, &s->ex);
	xe_otlp_attr_str(attrs, "xperf.stage", s->stage);
	xe_otlp_attr_str(attrs, "xperf.domain", th_domains[s->domain].key);
	xe_otlp_attr_str(attrs, "xperf.category", th_categories[s->category].key);
	if (!s->st)
		xe_otlp_attr_take(attrs, "xperf.custom_stage", cJSON_CreateTrue());
	xe_otlp_attr_take(attrs, "xperf.span_id", xp_json_exact_u64((uint64_t)s->id));
	if (s->tid)
		xe_otlp_attr_take(attrs, "thread.id", xp_json_exact_u64((uint64_t)s->tid));
	if (l3)
		xe_otlp_attr_str(attrs, "xperf.l3", l3);
	measured_attrs(attrs, s);
	if (tt_ex_failed(&xs->ts->ex, why, sizeof(why))) {
		cJSON *status = cJSON_AddObjectToObject(sp, "status");

		cJSON_AddNumberToObject(status, "code", STATUS_CODE_ERROR);
		cJSON_AddStringToObject(status, "message", why);
	}
	return sp;
}

static cJSON *root_span(const struct xe_turn *t, struct ids tr, int64_t offset)
{
	const char *agent = t->turn->agent.name ? t->turn->agent.name : "";
	cJSON *sp, *attrs, *dq = tt_quality_json(&t->turn->quality);
	char name[160];

	/* in-process: the agent is the traced process itself */
	snprintf(name, sizeof(name), "invoke_agent %s", agent);
	sp = span_head(tr, 0, -1, name, SPAN_KIND_INTERNAL, t->turn->start_ns, t->turn->end_ns, offset);
	attrs = cJSON_AddArrayToObject(sp, "attributes");
	xe_otlp_attr_str(attrs, "gen_ai.operation.name", "invoke_agent");
	xe_otlp_attr_str(attrs, "gen_ai.agent.name", agent);
	xe_otlp_attr_str(attrs, "gen_ai.conversation.id", t->turn->session_id);
	xe_otlp_attr_str(attrs, "xperf.session_id", t->turn->session_id);
	xe_otlp_attr_take(attrs, "xperf.turn_index", xp_json_exact_u64((uint64_t)t->turn->index));
	xe_otlp_attr_take(attrs, "xperf.complete", cJSON_CreateBool(t->turn->complete));
	xe_otlp_attr_str(attrs, "xperf.source", t->turn->source);
	xe_otlp_attr_map(attrs, "xperf.data_quality.", dq);
	cJSON_Delete(dq);
	return sp;
}

static int by_span_time(const void *a, const void *b)
{
	const struct mark *x = a, *y = b;

	if (x->span != y->span)
		return x->span < y->span ? -1 : 1;
	return (x->t > y->t) - (x->t < y->t);
}

/* Both kinds of marks, sorted by span (root first). NULL on memory. */
static struct mark *collect_marks(const struct xe_turn *t, size_t *n)
{
	const struct tt_turn *tt = t->turn;
	struct mark *m = malloc((tt->nwaste + tt->nfused + 1) * sizeof(*m));

	if (!m)
		return NULL;
	*n = 0;
	for (size_t i = 0; i < tt->nwaste + tt->nfused; i++) {
		int waste = i < tt->nwaste;
		const struct tt_mark *tm = waste ? &tt->waste[i] : &tt->fused[i - tt->nwaste];

		m[(*n)++] = (struct mark){ tm, waste ? "waste" : "fused",
					   xe_span_find(t, tm->span), tm->t_ns };
	}
	qsort(m, *n, sizeof(*m), by_span_time);
	return m;
}

static cJSON *resource_of(const struct xe_turn *t)
{
	const struct tt_agent *ag = &t->turn->agent;
	cJSON *res = cJSON_CreateObject(), *attrs = cJSON_AddArrayToObject(res, "attributes");

	xe_otlp_attr_str(attrs, "service.name", ag->name ? ag->name : "");
	xe_otlp_attr_take(attrs, "process.pid", xp_json_exact_u64((uint64_t)ag->pid));
	if (ag->comm)
		xe_otlp_attr_str(attrs, "process.executable.name", ag->comm);
	if (ag->model)
		xe_otlp_attr_str(attrs, "xperf.agent.model", ag->model);
	if (ag->container_id)
		xe_otlp_attr_str(attrs, "container.id", ag->container_id);
	xe_otlp_attr_str(attrs, "xperf.session_id", t->turn->session_id);
	if (t->boot_id)
		xe_otlp_attr_str(attrs, "xperf.boot_id", t->boot_id);
	return res;
}

/* Close the open resourceSpans entry and open one for t's session. */
static int open_resource(struct otlp *s, const struct xe_turn *t, struct xe_out *o)
{
	cJSON *res = resource_of(t);
	char *text = cJSON_PrintUnformatted(res);

	cJSON_Delete(res);
	if (!text)
		return -1;
	xe_puts(o, s->nresource++ ? "\n]}]},\n{\"resource\":" : "{\"resource\":");
	xe_puts(o, text);
	xe_puts(o, ",\"scopeSpans\":[{\"scope\":{\"name\":\"xperf\",\"version\":\"" XP_VERSION
		   "\"},\"spans\":[\n");
	free(text);
	xe_out_list_reset(o);
	return 0;
}

/* Whether mono + offset is a Unix time in OTLP's range here (int64 ns: 1970 to 2262). */
static int in_epoch(uint64_t mono, int64_t offset)
{
	int64_t t;

	return mono <= INT64_MAX && !__builtin_add_overflow((int64_t)mono, offset, &t) && t >= 0;
}

/* Whether offset maps a time of t (marks included) outside the epoch; that time in *bad. */
static int out_of_epoch(const struct xe_turn *t, const struct mark *m, size_t n, int64_t offset,
			uint64_t *bad)
{
	size_t k = 0, total = 2 + 2 * t->nspans + n;

	for (; k < total; k++) {
		*bad = k == 0 ? t->turn->start_ns : k == 1 ? t->turn->end_ns
			: k < 2 + 2 * t->nspans ? (k % 2 ? t->spans[(k - 2) / 2].ts->end_ns
							  : t->spans[(k - 2) / 2].ts->start_ns)
						 : m[k - 2 - 2 * t->nspans].t;
		if (!in_epoch(*bad, offset))
			return 1;
	}
	return 0;
}

static int otlp_turn(void *st, const struct xe_turn *t, struct xe_out *o)
{
	struct otlp *s = st;
	struct ids tr = trace_id(t->turn->session_id, t->turn->index);
	size_t nmarks = 0, next = 0;
	struct mark *m = collect_marks(t, &nmarks);
	int64_t offset = t->offset;
	uint64_t bad;
	cJSON *sp;

	if (!m || (t->session_changed && open_resource(s, t, o))) {
		free(m);
		return XE_EFAIL;
	}
	if (out_of_epoch(t, m, nmarks, offset, &bad)) {
		fprintf(stderr,
			"xperf export: %s: clock offset %lld (--clock-offset-ns or the file's clock "
			"anchor) puts %llu ns outside the Unix times OTLP carries (1970 to 2262)\n",
			t->path, (long long)offset, (unsigned long long)bad);
		free(m);
		return XE_EINVALID;
	}
	sp = root_span(t, tr, offset);
	add_events(sp, m, nmarks, &next, -1, offset);
	xe_put(o, sp);
	for (size_t i = 0; i < t->nspans; i++) {
		sp = file_span(t, &t->spans[i], tr, offset); /* top-level: the root's child */
		add_events(sp, m, nmarks, &next, (int)i, offset);
		xe_put(o, sp);
	}
	free(m);
	return XE_OK;
}

static int otlp_begin(void *st, struct xe_out *o)
{
	(void)st;
	xe_puts(o, "{\"resourceSpans\":[\n");
	return 0;
}

static int otlp_end(void *st, struct xe_out *o)
{
	struct otlp *s = st;

	xe_puts(o, s->nresource ? "\n]}]}\n]}\n" : "]}\n");
	return 0;
}

const struct xe_format_ops xe_otlp_ops = { otlp_begin, otlp_turn, otlp_end };

void *xe_otlp_new(void)
{
	return calloc(1, sizeof(struct otlp));
}
