// SPDX-License-Identifier: MIT
/*
 * metrics.c - the measured value of every L3 point of a turn. First the turn's
 * features (on-CPU time per stage, token counts, TTFT, GPU sums...) are summed
 * from its spans; then a table maps each L3 id to how its metric is formed
 * from them. A point whose inputs are missing is "not measured" with the
 * reason, never given a made-up value: a point whose inputs the turn could not
 * read (token counts, status codes and tool identity have no source in the
 * ciphertext tier) is gated on the feature that says they were read. Points
 * that compare a turn with the one before it are measured in session mode
 * (xa_metrics_session).
 */
#include "analyze/model.h"

#include <pthread.h>
#include <string.h>

enum kind {
	K_SHARE,   /* L3 time / turn time */
	K_EFF,     /* L3 (effective) time / time of the spans it measures */
	K_COUNT,   /* waste marks */
	K_RATIO,   /* a / b */
	K_PER_KTOK,/* ms of a per 1000 of b */
	K_TPS,     /* a per second of b */
	K_MS,      /* a in ms, measured when b > 0 */
	K_PER_MS,  /* a in ms / b */
	K_VALUE,   /* a, measured when b > 0 */
	K_L3_MS,   /* L3 time in ms, measured when b > 0 */
	K_SESSION, /* needs the previous turn */
};

struct metric {
	const char *l3;
	enum kind kind;
	enum xa_feat a, b;
	const char *missing; /* why it is not measured when b is 0 */
	enum xa_feat need;   /* measured only when this feature is > 0 (F_NONE: always) */
	const char *unread;  /* why, when it is not */
};

#define ALWAYS F_NONE, NULL
#define NO_TOK_IN F_IN_N, "no input token counts in this turn (ciphertext tier: no payload)"
#define NO_TOK_OUT F_OUT_N, "no output token counts in this turn (ciphertext tier: no payload)"
#define NO_STATUS F_STATUS_N, "no status codes or finish reasons in this turn (ciphertext tier)"
#define NO_TOOL_ID F_TOOL_ID, "tool identity unknown without plaintext (ciphertext tier)"

static const struct metric metrics[] = {
	{ "compute.supply.tool_io_blocked", K_SHARE, 0, 0, NULL, NO_TOOL_ID },
	{ "compute.supply.runqueue_delay", K_RATIO, F_RUNQ, F_CDUR, "no scheduler data on spans",
	  ALWAYS },
	{ "compute.supply.blocked_wait", K_SHARE, 0, 0, NULL, ALWAYS },
	{ "compute.processing.prompt_assembly", K_PER_KTOK, F_PA_CPU, F_IN_TOK,
	  "needs prompt_assembly on-CPU time and input tokens", NO_TOK_IN },
	{ "compute.processing.response_parse", K_PER_KTOK, F_RP_CPU, F_OUT_TOK,
	  "needs response_parse on-CPU time and output tokens", NO_TOK_OUT },
	{ "compute.processing.tool_cpu", K_SHARE, 0, 0, NULL, NO_TOOL_ID },
	{ "compute.processing.orchestration", K_SHARE, 0, 0, NULL, ALWAYS },
	{ "compute.processing.context_compress", K_SHARE, 0, 0, NULL, ALWAYS },
	{ "compute.processing.state_serialize", K_SHARE, 0, 0, NULL, ALWAYS },
	{ "compute.processing.memory_ops", K_SHARE, 0, 0, NULL, ALWAYS },
	{ "compute.processing.custom_stage", K_SHARE, 0, 0, NULL, ALWAYS },
	{ "compute.waste.failed_tool_call", K_COUNT, 0, 0, NULL, NO_TOOL_ID },
	{ "compute.waste.repeated_tool_call", K_COUNT, 0, 0, NULL, NO_TOOL_ID },
	{ "compute.effective.prompt_assembly", K_EFF, 0, 0, "no successful prompt_assembly span",
	  ALWAYS },
	{ "compute.effective.tool_execution", K_EFF, 0, 0, "no successful tool span", NO_TOOL_ID },
	{ "compute.effective.response_parse", K_EFF, 0, 0, "no successful response_parse span",
	  ALWAYS },
	{ "intelligent.supply.gpu_host_wait", K_RATIO, F_GPU_IDLE, F_GPU_PHASE, "no GPU activity",
	  ALWAYS },
	{ "intelligent.supply.gpu_launch_overhead", K_RATIO, F_GPU_LAUNCH, F_GPU_KERNEL,
	  "no GPU kernels", ALWAYS },
	{ "intelligent.supply.queue_wait", K_PER_MS, F_QUEUE_NS, F_QUEUE_N, "no queue_wait span",
	  ALWAYS },
	{ "intelligent.processing.slow_decode", K_TPS, F_DEC_TOK, F_DEC_NS,
	  "no decode time with output tokens", NO_TOK_OUT },
	{ "intelligent.processing.long_prefill", K_VALUE, F_MAX_IN, F_LLM_N, "no LLM call",
	  NO_TOK_IN },
	{ "intelligent.processing.context_growth", K_SESSION, 0, 0, NULL, ALWAYS },
	{ "intelligent.processing.gpu_kernel", K_RATIO, F_GPU_KERNEL, F_GPU_PHASE,
	  "no GPU activity", ALWAYS },
	{ "intelligent.processing.gpu_memcpy", K_RATIO, F_GPU_COPY, F_GPU_BUSY, "no GPU activity",
	  ALWAYS },
	{ "intelligent.processing.gpu_sync", K_RATIO, F_GPU_SYNC, F_GPU_PHASE, "no GPU activity",
	  ALWAYS },
	{ "intelligent.processing.sampling", K_RATIO, F_SAMP_NS, F_DEC_NS, "no decode time",
	  ALWAYS },
	{ "intelligent.waste.retry", K_COUNT, 0, 0, NULL, NO_STATUS },
	{ "intelligent.waste.llm_error", K_COUNT, 0, 0, NULL, NO_STATUS },
	{ "intelligent.waste.truncated_output", K_COUNT, 0, 0, NULL, NO_STATUS },
	{ "intelligent.waste.context_overflow", K_COUNT, 0, 0, NULL, NO_STATUS },
	{ "intelligent.effective.decode", K_EFF, 0, 0, "no successful decode", ALWAYS },
	{ "intelligent.effective.prefill", K_EFF, 0, 0, "no successful prefill span", ALWAYS },
	{ "intelligent.effective.gpu_kernel", K_EFF, 0, 0, "no gpu_kernel span", ALWAYS },
	{ "fused.supply.ttft", K_MS, F_TTFT_MAX, F_TTFT_N, "no TTFT span, mark or attribute",
	  ALWAYS },
	{ "fused.supply.rate_limit", K_MS, F_RATE_NS, F_RATE_N, "no rate_limit_wait span", ALWAYS },
	{ "fused.supply.streaming_gap", K_RATIO, F_GAP_NS, F_STREAM_NS, "no streamed response",
	  ALWAYS },
	{ "fused.supply.request_upload", K_MS, F_UP_MAX, F_UP_N, "no prompt_transfer span",
	  ALWAYS },
	{ "fused.processing.response_transfer", K_L3_MS, 0, F_NONE, NULL, ALWAYS },
	{ "fused.processing.connection_setup", K_PER_MS, F_CONN_NS, F_CONN_N,
	  "no connection_setup span", ALWAYS },
	{ "fused.waste.aborted_stream", K_COUNT, 0, 0, NULL, ALWAYS },
	{ "fused.waste.uncached_prefix", K_SESSION, 0, 0, NULL, ALWAYS },
	{ "fused.effective.response_delivery", K_EFF, 0, 0,
	  "no successful response_transfer span", ALWAYS },
};

/* Each metric's L3 index, resolved once. */
static int metric_l3[sizeof(metrics) / sizeof(metrics[0])];
static pthread_once_t metric_once = PTHREAD_ONCE_INIT;

static void resolve(void)
{
	for (size_t i = 0; i < sizeof(metrics) / sizeof(metrics[0]); i++)
		metric_l3[i] = xa_l3_index(metrics[i].l3);
}

static int is_stage(const struct xa_span *s, const char *name)
{
	return !strcmp(s->sp.stage, name);
}

int xa_is_llm_call(const struct xa_trace *tr, const struct xa_span *s)
{
	const struct xa_span *p = s->sp.parent_ix >= 0 ? &tr->spans[s->sp.parent_ix] : NULL;

	return is_stage(s, "llm_inference") ||
	       ((is_stage(s, "decode") || is_stage(s, "prefill")) &&
		!(p && p->domain == XP_DOMAIN_INTELLIGENT));
}

static double cpu_of(const struct xa_span *s)
{
	if (s->has_sched)
		return (double)s->sp.on_cpu_ns;
	/* task_clock_ns */
	return s->sp.ctr && (s->sp.ctr->have & 1u) ? (double)s->sp.ctr->val[0] : -1;
}

static void max_into(double *f, double v)
{
	*f = v > *f ? v : *f;
}

static void call_features(const struct xa_span *s, double *f)
{
	double in = s->sp.ex.num[TT_EX_INPUT_TOKENS], out = s->sp.ex.num[TT_EX_OUTPUT_TOKENS];

	f[F_LLM_N]++;
	f[F_IN_N] += tt_ex_has(&s->sp.ex, TT_EX_INPUT_TOKENS);
	f[F_OUT_N] += tt_ex_has(&s->sp.ex, TT_EX_OUTPUT_TOKENS);
	f[F_STATUS_N] += tt_ex_has(&s->sp.ex, TT_EX_STATUS);
	f[F_IN_TOK] += in;
	f[F_OUT_TOK] += out;
	f[F_CACHE_READ] += s->sp.ex.num[TT_EX_CACHE_READ_TOKENS];
	max_into(&f[F_MAX_IN], in);
	if (!s->sp.waste_l3) {
		f[F_DEC_TOK] += out;
		f[F_STREAM_NS] += (double)(s->sp.end_ns - s->sp.start_ns);
	}
}

static void span_features(const struct xa_trace *tr, const struct xa_span *s, double *f)
{
	double dur = (double)(s->sp.end_ns - s->sp.start_ns), cpu = cpu_of(s);

	if (s->domain == XP_DOMAIN_COMPUTE && s->has_sched) {
		f[F_RUNQ] += (double)s->sp.runq_ns;
		f[F_CDUR] += dur;
	}
	if (is_stage(s, "prompt_assembly") && cpu >= 0) {
		f[F_PA_CPU] += cpu;
		f[F_PA_N]++;
	}
	if (is_stage(s, "response_parse") && cpu >= 0) {
		f[F_RP_CPU] += cpu;
		f[F_RP_N]++;
	}
	if (xa_is_llm_call(tr, s))
		call_features(s, f);
	if (s->sp.st && !s->sp.waste_l3 &&
	    !strcmp(s->sp.st->l3_home, "intelligent.processing.slow_decode"))
		f[F_DEC_NS] += (double)s->excl;
	if (is_stage(s, "queue_wait"))
		f[F_QUEUE_NS] += dur, f[F_QUEUE_N]++;
	if (is_stage(s, "ttft")) {
		if (!f[F_TTFT_N]++)
			f[F_TTFT_FIRST] = dur;
		max_into(&f[F_TTFT_MAX], dur);
	}
	if (is_stage(s, "rate_limit_wait"))
		f[F_RATE_NS] += dur, f[F_RATE_N]++;
	if (is_stage(s, "streaming_gap"))
		f[F_GAP_NS] += dur;
	if (is_stage(s, "prompt_transfer"))
		max_into(&f[F_UP_MAX], dur), f[F_UP_N]++;
	if (is_stage(s, "connection_setup"))
		f[F_CONN_NS] += dur, f[F_CONN_N]++;
	if (is_stage(s, "sampling"))
		f[F_SAMP_NS] += dur;
}

static void features(const struct xa_trace *tr, double *f)
{
	memset(f, 0, F_FEAT_COUNT * sizeof(*f));
	f[F_WALL] = (double)(tr->end - tr->start);
	for (size_t i = 0; i < tr->nspans; i++)
		span_features(tr, &tr->spans[i], f);
	f[F_GPU_PHASE] = (double)tr->gpu.phase;
	f[F_GPU_BUSY] = (double)tr->gpu.busy;
	f[F_GPU_IDLE] = (double)(tr->gpu.phase - tr->gpu.busy);
	f[F_GPU_KERNEL] = (double)tr->gpu.kernel;
	f[F_GPU_COPY] = (double)tr->gpu.copy;
	f[F_GPU_SYNC] = (double)tr->gpu.sync;
	f[F_GPU_LAUNCH] = (double)tr->gpu.launch;
	f[F_TOOL_ID] = strcmp(tr->turn->quality.tool_identity, "unknown") != 0;
	/* waste marks of the SDK and plaintext tiers come from what was read */
	f[F_STATUS_N] += strcmp(tr->head.tier, "ciphertext") != 0;
}

static void not_measured(struct xa_l3 *p, const char *why)
{
	p->state = XA_NOT_MEASURED;
	snprintf(p->note, sizeof(p->note), "%s", why);
}

static void eval(const struct metric *m, int l3, const struct xa_trace *tr, struct xa_turn *t)
{
	struct xa_l3 *p = &t->l3[l3];
	const double *f = t->feat, a = f[m->a], b = f[m->b];

	if (m->need != F_NONE && f[m->need] <= 0)
		return not_measured(p, m->unread);
	p->state = XA_OK_BELOW;
	switch (m->kind) {
	case K_SHARE:
		p->value = t->wall ? (double)p->ns / (double)t->wall : 0;
		return;
	case K_EFF:
		if (!p->base_ns)
			return not_measured(p, m->missing);
		p->value = (double)p->ns / (double)p->base_ns;
		return;
	case K_COUNT:
		p->value = tr->mark_count[l3];
		return;
	case K_L3_MS:
		p->value = (double)p->ns / 1e6;
		return;
	case K_SESSION:
		return not_measured(p, "compares with the previous turn: session mode");
	default:
		break;
	}
	if (b <= 0 || (m->kind == K_PER_KTOK && a <= 0))
		return not_measured(p, m->missing);
	switch (m->kind) {
	case K_RATIO: p->value = a / b; break;
	case K_PER_KTOK: p->value = (a / 1e6) / (b / 1000); break;
	case K_TPS: p->value = a / (b / 1e9); break;
	case K_MS: p->value = a / 1e6; break;
	case K_PER_MS: p->value = a / 1e6 / b; break;
	default: p->value = a; break;
	}
}

void xa_metrics(const struct xa_trace *tr, struct xa_turn *t)
{
	features(tr, t->feat);
	for (size_t i = 0; i < th_l3_count; i++)
		not_measured(&t->l3[i], "no metric defined for this point");
	pthread_once(&metric_once, resolve);
	for (size_t i = 0; i < sizeof(metrics) / sizeof(metrics[0]); i++)
		if (metric_l3[i] >= 0)
			eval(&metrics[i], metric_l3[i], tr, t);
}

void xa_metrics_session(struct xa_turn *t, const double *prev)
{
	struct xa_l3 *g = &t->l3[xa_l3_index("intelligent.processing.context_growth")];
	struct xa_l3 *u = &t->l3[xa_l3_index("fused.waste.uncached_prefix")];

	if (!prev || prev[F_IN_TOK] <= 0 || t->feat[F_LLM_N] <= 0) {
		snprintf(g->note, sizeof(g->note), "no input tokens in this or the previous turn");
		snprintf(u->note, sizeof(u->note), "no input tokens in this or the previous turn");
		return;
	}
	g->state = u->state = XA_OK_BELOW;
	g->value = t->feat[F_IN_TOK] / prev[F_IN_TOK] - 1;
	u->value = 1 - t->feat[F_CACHE_READ] / prev[F_IN_TOK];
	u->value = u->value < 0 ? 0 : u->value;
}
