/* SPDX-License-Identifier: MIT */
/*
 * turn.c - lays one turn out on the agent's main line: prompt assembly up
 * to the first request, then per exchange an llm_inference span (children:
 * prompt_transfer, ttft, decode with its streaming gaps) and the
 * response_parse after it, the model's tool calls (tools.c matches them to
 * the child process trees that ran them; the other trees are the agent's own
 * agent_subprocess work), and every hole left as rate_limit_wait (after a 429),
 * orchestration (on CPU) or waiting (off CPU). Concurrent exchanges get
 * their own llm_inference trees, overlapping the main line.
 */
#include "assemble/turn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assemble/llm_span.h"
#include "assemble/tools.h"
#include "lib/grow.h"
#include "lib/json_int.h"
#include "theory/theory.h"

#define XT_PARSE_BLOCK_NS 1000000ull

enum seg_kind { SEG_PROMPT, SEG_SETUP, SEG_EXCHANGE, SEG_PARSE, SEG_TOOL, SEG_SUBPROC };

struct seg {
	enum seg_kind kind;
	uint64_t a, b;
	const struct xt_exchange *ex;
	const struct xt_tool *tool;
};

struct layout {
	const struct xt_turn_in *in;
	struct seg *seg;
	size_t n, cap;
	uint64_t end;
	int complete;
	uint32_t tid; /* the agent thread that talks to the model */
	struct xt_tools tools;
};

int xt_exchange_ok(const struct xt_exchange *e)
{
	/* status 0: the ciphertext tier, which cannot see it */
	return e->answered && !e->aborted &&
	       (e->call.status == 0 || (e->call.status >= 200 && e->call.status < 300));
}

void xt_exchange_free(struct xt_exchange *e)
{
	pr_llm_call_free(&e->call);
	free(e->req_text);
	free(e);
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
	if (!xp_grow((void **)&s->cmd, &s->cap, s->n + 1, sizeof(*s->cmd)) &&
	    (s->cmd[s->n] = strdup(cmd)))
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

int xt_turn_child(const struct xt_turn_in *in, const struct xt_proc *p)
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

		if (xt_turn_child(in, p) && p->fork_ns >= t && p->fork_ns < end)
			end = p->fork_ns;
	}
	/* parsing ends when the thread first sleeps for a while (not a short lock wait) */
	uint64_t blk = xt_sched_next(in->sched, in->ex[i]->tid, XT_ST_BLOCKED, t, XT_PARSE_BLOCK_NS);

	if (blk && blk < end)
		end = blk;
	return end;
}

static int add_seg(struct layout *l, enum seg_kind k, uint64_t a, uint64_t b,
		   const struct xt_exchange *ex, const struct xt_tool *t)
{
	if (xp_grow((void **)&l->seg, &l->cap, l->n + 1, sizeof(*l->seg)))
		return -1;
	l->seg[l->n++] = (struct seg){ k, a, b < a ? a : b, ex, t };
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

/* A tool run in a process tree spans it; one run inside the agent, the end of its answer. */
static int lay_tool(struct layout *l, const struct xt_tool *t)
{
	const struct xt_proc *p = t->proc;
	uint64_t end = t->ex ? t->ex->resp_end_ns : l->in->start_ns;

	if (!p) {
		for (size_t i = 0; i < l->in->n_ex; i++)
			if (l->in->ex[i] == t->ex)
				end = parse_end(l, i);
		return add_seg(l, SEG_TOOL, end, end, t->ex, t);
	}
	end = xt_procs_tree_end(l->in->procs, p->pid);
	if (!end) { /* still running when tracing ended */
		end = l->in->limit_ns;
		l->complete = 0;
	}
	return add_seg(l, t->call ? SEG_TOOL : SEG_SUBPROC, p->fork_ns, end, NULL, t);
}

/* The agent ended by a signal: whatever turn it was in was cut, not finished. */
static int agent_killed(const struct xt_turn_in *in)
{
	const struct xt_proc *p = xt_procs_find(in->procs, in->agent.pid);

	return p && p->exited && xt_exit_signal(p->wait_status);
}

/*
 * Exchange i's TCP + TLS set-up, [*a, *b): 1 when it has one in the turn. A
 * request on a reused connection has none, nor has a side request (its set-up
 * runs beside the main line) or one whose connect began before the turn.
 */
static int setup_of(const struct xt_turn_in *in, const struct xt_exchange *e, int side,
		    uint64_t *a, uint64_t *b)
{
	*a = e->setup_start_ns;
	*b = e->setup_end_ns;
	return !side && *a >= in->start_ns && *a < *b && *b <= e->req_start_ns;
}

/* Collects the main-line segments and the turn's end. */
static int lay_out(struct layout *l)
{
	const struct xt_turn_in *in = l->in;
	int rc = 0;

	l->end = in->start_ns;
	l->complete = !in->last || (in->agent_exited && !agent_killed(in));
	l->tid = in->n_ex ? in->ex[0]->tid : in->agent.pid;
	for (size_t i = 0; i < in->n_ex; i++) {
		const struct xt_exchange *e = in->ex[i];
		uint64_t a, b;
		int side = is_side(in, i), setup = setup_of(in, e, side, &a, &b);
		uint64_t first = setup ? a : e->req_start_ns; /* where the prompt's time ends */

		if (!i && first > in->start_ns)
			rc |= add_seg(l, SEG_PROMPT, in->start_ns, first, NULL, NULL);
		if (setup)
			rc |= add_seg(l, SEG_SETUP, a, b, e, NULL);
		rc |= add_seg(l, SEG_EXCHANGE, e->req_start_ns, e->resp_end_ns, e, NULL);
		if (!e->answered || e->aborted) /* cut before or during its answer */
			l->complete = 0;
		if (!side && e->answered)
			rc |= add_seg(l, SEG_PARSE, e->resp_end_ns, parse_end(l, i), e, NULL);
	}
	if (xt_tools_match(in, &l->tools))
		return -1;
	for (size_t k = 0; k < l->tools.n; k++)
		rc |= lay_tool(l, &l->tools.t[k]);
	qsort(l->seg, l->n, sizeof(*l->seg), cmp_seg);
	return rc;
}

/* The process attributes of a tool or agent_subprocess span; its tool and exit code go typed. */
static int proc_attrs(struct tt_span *sp, const struct xt_proc *p)
{
	cJSON *at = sp->attrs;

	cJSON_AddStringToObject(at, "process.command_line", p->cmdline);
	cJSON_AddNumberToObject(at, "process.pid", p->pid);
	if (p->exited) {
		tt_ex_set(&sp->ex, TT_EX_EXIT_CODE, xt_exit_code(p->wait_status));
		if (xt_exit_signal(p->wait_status))
			cJSON_AddNumberToObject(at, "process.exit.signal",
						xt_exit_signal(p->wait_status));
		xp_json_add_u64(at, "process.cpu_ns", p->cpu_ns);
	}
	return tt_ex_set_str(&sp->ex, TT_EX_TOOL, p->tool[0] ? p->tool : "unknown");
}

/* What the model asked for: the call's name and id go typed. */
static int call_attrs(struct tt_span *sp, const struct xt_tool *t, int capture)
{
	const struct pr_tool_call *c = t->call;
	cJSON *at = sp->attrs;

	if (capture && c->args) /* opt-in (--capture-payloads): what the model asked to run */
		cJSON_AddStringToObject(at, "gen_ai.tool.call.arguments", c->args);
	if (!t->proc)
		cJSON_AddBoolToObject(at, "xperf.tool.in_process", 1);
	if (t->result && t->result->is_error >= 0)
		cJSON_AddBoolToObject(at, "xperf.tool.result.is_error", t->result->is_error);
	if (t->result && t->result->exit_code >= 0)
		cJSON_AddNumberToObject(at, "xperf.tool.result.exit_code", t->result->exit_code);
	return tt_ex_set_str(&sp->ex, TT_EX_TOOL_CALL, c->name) ||
	       (c->id[0] && tt_ex_set_str(&sp->ex, TT_EX_TOOL_CALL_ID, c->id));
}

/*
 * What makes a repeat: the command the model asked for (a wrapper's command
 * line is the same for every tool), else the call's name and arguments.
 */
static void repeat_key(const struct xt_tool *t, char *buf, size_t cap)
{
	if (!xt_tool_command(t->call, buf, cap))
		snprintf(buf, cap, "%s %s", t->call->name, t->call->args ? t->call->args : "");
}

/* A tool call the model asked for: failed and repeated ones are waste. */
static int emit_tool(struct tt_turn *d, const struct layout *l, const struct seg *s)
{
	const struct xt_tool *t = s->tool;
	const struct xt_proc *p = t->proc;
	char key[1024];
	struct tt_span *sp;
	int id = xt_doc_span(d, 0, "tool_call", s->a, s->b, p ? p->pid : l->tid, l->in->sched, &sp);

	if (id < 0 || (p ? proc_attrs(sp, p) : tt_ex_set_str(&sp->ex, TT_EX_TOOL, t->call->name)) ||
	    call_attrs(sp, t, l->in->capture_payloads))
		return -1;
	if ((p && p->exited && p->wait_status) || (t->result && t->result->is_error == 1))
		cJSON_AddStringToObject(xt_doc_waste(d, "failed_tool_call", s->b, id,
						     "failed_calls", 1),
					"gen_ai.tool.name", t->call->name);
	repeat_key(t, key, sizeof(key));
	int before = cmd_seen(l->in->seen, key);

	if (before > 0)
		cJSON_AddStringToObject(xt_doc_waste(d, "repeated_tool_call", s->a, id, "repeats",
						     before),
					"gen_ai.tool.name", t->call->name);
	return 0;
}

/*
 * A child process no tool call asked for: the agent's own work. Its exit
 * code is reported, never charged: housekeeping probes fail by design (a
 * `git rev-parse` outside a repository, `rg --version` where it is absent).
 */
static int emit_subproc(struct tt_turn *d, const struct layout *l, const struct seg *s)
{
	const struct xt_proc *p = s->tool->proc;
	struct tt_span *sp;
	int id = xt_doc_span(d, 0, "agent_subprocess", s->a, s->b, p->pid, l->in->sched, &sp);

	if (id < 0 || proc_attrs(sp, p))
		return -1;
	if (!l->tools.identity_known)
		cJSON_AddStringToObject(sp->attrs, "xperf.tool.identity", "unknown");
	return 0;
}

/* A hole in the main line: what the agent did there, from its scheduler state. */
static int emit_gap(struct tt_turn *d, const struct layout *l, uint64_t a, uint64_t b,
		    const struct xt_exchange *failed)
{
	struct xt_sched_sum buf;
	const struct xt_sched_sum *ss = xt_sched_query(l->in->sched, l->tid, a, b, &buf);
	int limited = failed && (failed->call.status == 429 || failed->retry_after[0]);
	const char *stage = limited ? "rate_limit_wait" :
			    ss && ss->on_cpu_ns * 2 < b - a ? "waiting" : "orchestration";
	int id = xt_doc_span(d, 0, stage, a, b, l->tid, l->in->sched, NULL);

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
	int rc = 0;

	for (size_t i = 0; i < l->n && !rc; i++) {
		const struct seg *s = &l->seg[i];
		int retry = failed && (s->kind == SEG_SETUP || s->kind == SEG_EXCHANGE);

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
					  "response_parse", s->a, s->b, l->tid, l->in->sched,
					  NULL) < 0;
			if (s->kind == SEG_PARSE && !xt_exchange_ok(s->ex))
				failed = s->ex;
			break;
		case SEG_SETUP:
			rc |= xt_doc_span(d, 0, "connection_setup", s->a, s->b, s->ex->tid,
					  l->in->sched, NULL) < 0;
			break;
		case SEG_EXCHANGE:
			rc |= xt_llm_span(d, s->ex, l->in->sched) < 0;
			break;
		case SEG_TOOL:
			rc |= emit_tool(d, l, s);
			break;
		case SEG_SUBPROC:
			rc |= emit_subproc(d, l, s);
			break;
		}
		if (s->b > cursor)
			cursor = s->b;
	}
	if (!rc && l->end > cursor)
		rc = emit_gap(d, l, cursor, l->end, NULL);
	return rc;
}

/* What the turn can say about its data: losses, tools, requests that were no model call. */
static int quality(struct tt_turn *d, const struct xt_turn_in *in, const struct xt_tools *t)
{
	d->quality.dropped_events = in->dropped;
	d->quality.truncated_payloads = in->truncated;
	d->quality.non_llm_requests = in->non_llm_requests;
	d->quality.has_non_llm_requests = 1;
	snprintf(d->quality.tool_identity, sizeof(d->quality.tool_identity), "%s",
		 t->identity_known ? "model" : "unknown");
	if (!t->identity_known && t->n)
		return tt_warn(d, "tool identity unknown (no plaintext): child processes are "
				  "agent_subprocess, exit codes not charged as waste");
	return 0;
}

struct tt_turn *xt_turn_build(const struct xt_turn_in *in, uint64_t *end_ns)
{
	struct layout l = { .in = in };
	struct tt_turn *d = NULL;
	int rc = lay_out(&l);

	if (!rc)
		d = xt_doc_new(in->session_id, in->index, l.complete, in->start_ns, l.end,
			       &in->agent, in->tier, in->anchor);
	rc = rc || !d || emit(d, &l) || quality(d, in, &l.tools) ||
	     (!xt_sched_known(in->sched, l.tid) &&
	      tt_warn(d, "no scheduler data for the agent thread: spans carry no sched")) ||
	     (!l.complete && tt_warn(d, "turn cut: tracing ended before the turn did")) ||
	     tt_turn_categorize(d);
	free(l.seg);
	xt_tools_free(&l.tools);
	if (rc) {
		tt_turn_free(d);
		return NULL;
	}
	*end_ns = l.end;
	return d;
}
