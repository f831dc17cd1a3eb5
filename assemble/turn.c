/* SPDX-License-Identifier: MIT */
/*
 * turn.c - lays one turn out on the agent's main line: prompt assembly up
 * to the first request, then per exchange an llm_inference span (children:
 * prompt_transfer, ttft, decode with its streaming gaps) and the
 * response_parse after it, the tool calls (one span per child process
 * tree), and every hole left as rate_limit_wait (after a 429),
 * orchestration (on CPU) or waiting (off CPU). Concurrent exchanges get
 * their own llm_inference trees, overlapping the main line.
 */
#include "assemble/turn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assemble/llm_span.h"
#include "lib/json_int.h"
#include "theory/theory.h"

#define XT_PARSE_BLOCK_NS 1000000ull

enum seg_kind { SEG_PROMPT, SEG_EXCHANGE, SEG_PARSE, SEG_TOOL };

struct seg {
	enum seg_kind kind;
	uint64_t a, b;
	const struct xt_exchange *ex;
	const struct xt_proc *proc;
};

struct layout {
	const struct xt_turn_in *in;
	struct seg *seg;
	size_t n;
	uint64_t end;
	int complete;
	uint32_t tid; /* the agent thread that talks to the model */
};

int xt_exchange_ok(const struct xt_exchange *e)
{
	/* status 0: the ciphertext tier, which cannot see it */
	return e->answered && !e->aborted &&
	       (e->call.status == 0 || (e->call.status >= 200 && e->call.status < 300));
}

void xt_cmdset_free(struct xt_cmdset *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->cmd[i]);
	free(s->cmd);
	memset(s, 0, sizeof(*s));
}

/* How many times cmd ran before; records this run. */
static int cmd_seen(struct xt_cmdset *s, const char *cmd)
{
	int n = 0;

	for (size_t i = 0; i < s->n; i++)
		n += !strcmp(s->cmd[i], cmd);
	if (s->n == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 16;
		char **nc = realloc(s->cmd, ncap * sizeof(*nc));

		if (!nc)
			return n;
		s->cmd = nc;
		s->cap = ncap;
	}
	s->cmd[s->n] = strdup(cmd);
	if (s->cmd[s->n])
		s->n++;
	return n;
}

static int is_side(const struct xt_turn_in *in, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (in->ex[i]->req_start_ns < in->ex[j]->resp_end_ns)
			return 1;
	return 0;
}

static int is_tool(const struct xt_turn_in *in, const struct xt_proc *p)
{
	return p->ppid == in->agent.pid && p->fork_ns >= in->start_ns && p->fork_ns < in->limit_ns;
}

/* When the agent finished reading exchange i's answer: the next thing it did. */
static uint64_t parse_end(const struct layout *l, size_t i)
{
	const struct xt_turn_in *in = l->in;
	uint64_t t = in->ex[i]->resp_end_ns, end = in->limit_ns;

	for (size_t j = i + 1; j < in->n_ex; j++)
		if (in->ex[j]->req_start_ns >= t && in->ex[j]->req_start_ns < end)
			end = in->ex[j]->req_start_ns;
	for (size_t k = 0; k < in->procs->n; k++) {
		const struct xt_proc *p = &in->procs->p[k];

		if (is_tool(in, p) && p->fork_ns >= t && p->fork_ns < end)
			end = p->fork_ns;
	}
	/* parsing ends when the thread first sleeps for a while (not a short lock wait) */
	uint64_t blk = xt_sched_next(in->sched, in->ex[i]->tid, XT_ST_BLOCKED, t, XT_PARSE_BLOCK_NS);

	if (blk && blk < end)
		end = blk;
	return end;
}

static int add_seg(struct layout *l, enum seg_kind k, uint64_t a, uint64_t b,
		   const struct xt_exchange *ex, const struct xt_proc *p)
{
	struct seg *ns = realloc(l->seg, (l->n + 1) * sizeof(*ns));

	if (!ns)
		return -1;
	l->seg = ns;
	l->seg[l->n++] = (struct seg){ k, a, b < a ? a : b, ex, p };
	if (b > l->end)
		l->end = b;
	return 0;
}

static int cmp_seg(const void *x, const void *y)
{
	const struct seg *a = x, *b = y;

	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	return (int)a->kind - (int)b->kind;
}

/* Collects the main-line segments and the turn's end. */
static int lay_out(struct layout *l)
{
	const struct xt_turn_in *in = l->in;
	int rc = 0;

	l->end = in->start_ns;
	l->complete = !in->last || in->agent_exited;
	l->tid = in->n_ex ? in->ex[0]->tid : in->agent.pid;
	if (in->n_ex && in->ex[0]->req_start_ns > in->start_ns)
		rc |= add_seg(l, SEG_PROMPT, in->start_ns, in->ex[0]->req_start_ns, NULL, NULL);
	for (size_t i = 0; i < in->n_ex; i++) {
		const struct xt_exchange *e = in->ex[i];

		rc |= add_seg(l, SEG_EXCHANGE, e->req_start_ns, e->resp_end_ns, e, NULL);
		if (!e->answered)
			l->complete = 0;
		if (!is_side(in, i) && e->answered)
			rc |= add_seg(l, SEG_PARSE, e->resp_end_ns, parse_end(l, i), e, NULL);
	}
	for (size_t k = 0; k < in->procs->n; k++) {
		const struct xt_proc *p = &in->procs->p[k];
		uint64_t end = xt_procs_tree_end(in->procs, p->pid);

		if (!is_tool(in, p))
			continue;
		if (!end) { /* still running when tracing ended */
			end = in->limit_ns;
			l->complete = 0;
		}
		rc |= add_seg(l, SEG_TOOL, p->fork_ns, end, NULL, p);
	}
	qsort(l->seg, l->n, sizeof(*l->seg), cmp_seg);
	return rc;
}

static const struct xt_sched_sum *sched_of(const struct layout *l, uint32_t tid, uint64_t a,
					   uint64_t b, struct xt_sched_sum *buf)
{
	if (!xt_sched_known(l->in->sched, tid))
		return NULL;
	*buf = xt_sched_query(l->in->sched, tid, a, b);
	return buf;
}

static int emit_tool(struct tt_turn *d, const struct layout *l, const struct seg *s)
{
	const struct xt_proc *p = s->proc;
	struct xt_sched_sum buf;
	cJSON *at;
	int id = xt_doc_span(d, 0, "tool_call", s->a, s->b, p->pid,
			     sched_of(l, p->pid, s->a, s->b, &buf), &at);

	if (id < 0)
		return -1;
	cJSON_AddStringToObject(at, "tool.name", p->tool[0] ? p->tool : "unknown");
	cJSON_AddStringToObject(at, "process.command_line", p->cmdline);
	cJSON_AddNumberToObject(at, "process.pid", p->pid);
	if (p->exited) {
		cJSON_AddNumberToObject(at, "process.exit.code", xt_exit_code(p->wait_status));
		if (xt_exit_signal(p->wait_status))
			cJSON_AddNumberToObject(at, "process.exit.signal",
						xt_exit_signal(p->wait_status));
		xp_json_add_u64(at, "process.cpu_ns", p->cpu_ns);
		if (p->wait_status)
			cJSON_AddStringToObject(xt_doc_waste(d, "failed_tool_call", s->b, id,
							     "failed_calls", 1),
						"tool.name", p->tool);
	}
	int before = cmd_seen(l->in->seen, p->cmdline);

	if (before > 0)
		cJSON_AddStringToObject(xt_doc_waste(d, "repeated_tool_call", s->a, id, "repeats",
						     before),
					"process.command_line", p->cmdline);
	return 0;
}

/* A hole in the main line: what the agent did there, from its scheduler state. */
static int emit_gap(struct tt_turn *d, const struct layout *l, uint64_t a, uint64_t b,
		    const struct xt_exchange *failed)
{
	struct xt_sched_sum buf;
	const struct xt_sched_sum *ss = sched_of(l, l->tid, a, b, &buf);
	const char *stage = ss && ss->on_cpu_ns * 2 < b - a ? "waiting" : "orchestration";
	int limited = failed && (failed->call.status == 429 || failed->retry_after[0]);

	if (limited)
		stage = "rate_limit_wait";
	int id = xt_doc_span(d, 0, stage, a, b, l->tid, ss, NULL);

	/*
	 * A wait the provider asked for stays fused supply (rate limit); a
	 * backoff the agent chose on its own is the retry's waste.
	 */
	if (id > 0 && failed)
		xt_doc_waste(d, "retry", a, limited ? 0 : id, "retries", 1);
	return id < 0 ? -1 : 0;
}

static int emit(struct tt_turn *d, const struct layout *l)
{
	const struct xt_exchange *failed = NULL; /* last main exchange, if it failed */
	uint64_t cursor = l->in->start_ns;
	struct xt_sched_sum buf;
	int rc = 0;

	for (size_t i = 0; i < l->n && !rc; i++) {
		const struct seg *s = &l->seg[i];
		int retry = failed && s->kind == SEG_EXCHANGE;

		if (s->a > cursor)
			rc = emit_gap(d, l, cursor, s->a, retry ? failed : NULL);
		else if (retry)
			xt_doc_waste(d, "retry", s->a, 0, "retries", 1);
		if (retry)
			failed = NULL;
		switch (s->kind) {
		case SEG_PROMPT:
		case SEG_PARSE:
			rc |= xt_doc_span(d, 0, s->kind == SEG_PROMPT ? "prompt_assembly" :
					  "response_parse", s->a, s->b, l->tid,
					  sched_of(l, l->tid, s->a, s->b, &buf), NULL) < 0;
			if (s->kind == SEG_PARSE && !xt_exchange_ok(s->ex))
				failed = s->ex;
			break;
		case SEG_EXCHANGE:
			rc |= xt_llm_span(d, s->ex, l->in->sched) < 0;
			break;
		case SEG_TOOL:
			rc |= emit_tool(d, l, s);
			break;
		}
		if (s->b > cursor)
			cursor = s->b;
	}
	if (!rc && l->end > cursor)
		rc = emit_gap(d, l, cursor, l->end, NULL);
	return rc;
}

struct tt_turn *xt_turn_build(const struct xt_turn_in *in, uint64_t *end_ns)
{
	struct layout l = { .in = in };
	struct tt_turn *d = NULL;

	if (lay_out(&l) == 0) {
		d = xt_doc_new(in->session_id, in->index, l.complete, in->start_ns, l.end,
			       &in->agent, in->tier, in->anchor);
		if (d && emit(d, &l)) {
			tt_turn_free(d);
			d = NULL;
		}
	}
	free(l.seg);
	if (!d)
		return NULL;
	d->quality.dropped_events = in->dropped;
	d->quality.truncated_payloads = in->truncated;
	if ((!xt_sched_known(in->sched, l.tid) &&
	     tt_warn(d, "no scheduler data for the agent thread: spans carry no sched")) ||
	    (!l.complete && tt_warn(d, "turn cut: tracing ended before the turn did")) ||
	    tt_turn_categorize(d)) {
		tt_turn_free(d);
		return NULL;
	}
	*end_ns = l.end;
	return d;
}
