/* SPDX-License-Identifier: MIT */
/*
 * model.h - the analyzer's internal data model, shared by its stages.
 *
 * struct xa_trace is one turn as read from its file (turn.c builds it from
 * the core's typed turn, core/read.h, which it keeps); normalize.c adds the
 * exclusive timeline; domain.c fixes domains; categorize.c charges every
 * timeline nanosecond to one (domain, category, L3); metrics.c and drill.c
 * evaluate the L3 points and L4 causes into struct xa_turn.
 */
#ifndef XPERF_ANALYZE_MODEL_H
#define XPERF_ANALYZE_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "analyze/analyze.h"
#include "core/turn.h"

#define XA_MAX_L3 96  /* >= th_l3_count (checked at run time) */
#define XA_NVAR 16    /* counters (theory's counter names) + 2 sched values */
#define XA_REASON 96
#define XA_NS_MAX (1ull << 62) /* larger nanosecond values are refused: sums cannot overflow */

struct xa_span {
	struct tt_span sp;       /* the core's span (shallow: its strings and arrays are the
				  * turn's, tr->turn), or a carved one's; sp.domain is the declared
				  * domain; token times past XA_NS_MAX are left out of sp.ex */
	enum th_domain domain;   /* theory's for its stage (domain.c) */
	int has_sched;           /* on_cpu, runq, blocked all given, each <= XA_NS_MAX */
	int synthetic;           /* carved by normalize.c (ttft, streaming_gap) */
	uint64_t excl;           /* exclusive ns after flattening */
};

/* One piece of the exclusive timeline: [start, end) charged to span (or -1: uncovered). */
struct xa_seg {
	uint64_t start, end;
	int span;
	enum th_domain domain;
	enum th_category category; /* the span's dominant category */
};

/* One LLM call's tokens and cost (cost.c). */
struct xa_call {
	int64_t span;
	char model[64];
	struct xa_usage use;
	double usd_by[XA_TOK_COUNT]; /* cost of each category (billed counts x prices) */
	const char *waste_l3; /* why its tokens were waste, NULL when they were not */
};

/* Which turn: from the file's top level (path as given). */
struct xa_head {
	char path[512];
	char session_id[132];
	int64_t turn_index;
	int complete;
	char source[8];
	char tier[16];
	char agent[64];  /* agent.name */
	int64_t pid;     /* agent.pid */
};

struct xa_gpu {
	uint64_t phase, busy, kernel, copy, sync, launch;
};

struct xa_trace {
	struct tt_turn *turn;     /* the core's turn it was built from (owned) */
	struct xa_head head;
	uint64_t start, end;
	struct xa_span *spans;
	size_t nspans, cap;
	uint32_t mark_count[XA_MAX_L3]; /* waste marks per L3 */
	struct xa_gpu gpu;
	struct xa_seg *segs;
	size_t nsegs;
};

/* What the categorizer accumulates per L3 point, and the drill verdict. */
enum xa_state { XA_NOT_MEASURED, XA_OK_BELOW, XA_FIRED, XA_NOT_DRILLED, XA_FILTERED };

struct xa_l3 {
	uint64_t ns;         /* time charged */
	uint64_t base_ns;    /* effective points: time of the spans they measure */
	uint64_t saved_ns;   /* fired: time fixing it saves at most (drill.c, xa_savings) */
	double var[XA_NVAR]; /* counter sums of the spans charged here (L4) */
	uint32_t var_have;   /* measured in every contributing span */
	uint32_t var_unavail;/* listed unavailable in some contributing span */
	int nspans;
	char why[XA_REASON]; /* first missing-counter reason */
	double value;        /* metric */
	enum xa_state state;
	char note[XA_REASON]; /* why not measured */
};

struct xa_correction {
	int64_t span_id;
	char stage[48];
	enum th_domain declared, corrected;
};

/* Turn features metrics.c computes (ns, counts, tokens). */
enum xa_feat {
	F_NONE, F_WALL, F_RUNQ, F_CDUR, F_PA_CPU, F_PA_N, F_RP_CPU, F_RP_N, F_IN_TOK, F_OUT_TOK,
	F_DEC_NS, F_DEC_TOK, F_MAX_IN, F_LLM_N, F_QUEUE_NS, F_QUEUE_N, F_TTFT_MAX, F_TTFT_N,
	F_RATE_NS, F_RATE_N, F_STREAM_NS, F_GAP_NS, F_UP_MAX, F_UP_N, F_CONN_NS, F_CONN_N,
	F_SAMP_NS, F_GPU_PHASE, F_GPU_IDLE, F_GPU_KERNEL, F_GPU_BUSY, F_GPU_COPY, F_GPU_SYNC,
	F_GPU_LAUNCH, F_CACHE_READ, F_TTFT_FIRST,
	F_IN_N, F_OUT_N, F_STATUS_N, /* LLM calls whose input/output tokens, status were read */
	F_TOOL_ID,                   /* 1: tool calls are the model's (plaintext), 0: unknown */
	F_FEAT_COUNT
};

struct xa_turn {
	struct xa_head head;
	uint64_t start, wall;
	uint64_t cat_ns[XP_CAT_COUNT];
	uint64_t l2_ns[XP_DOMAIN_COUNT][XP_CAT_COUNT];
	struct xa_l3 l3[XA_MAX_L3];
	double feat[F_FEAT_COUNT]; /* turn features (enum xa_feat) */
	struct xa_correction *corr;
	size_t ncorr, cap_corr;
	char notes[4][XA_REASON]; /* analyzer notes (uncovered time, custom stages...) */
	unsigned nnotes;
	unsigned warnings;
	uint64_t dropped_events;
	struct xa_seg *segs;      /* timeline, owned */
	size_t nsegs;
	char (*seg_stage)[48];    /* stage label per segment */
	const char **seg_waste;   /* per segment: the L3 id of the waste mark covering it, or NULL */
	char (*seg_tool)[64];     /* per segment: "tool NAME (pid N)" when a tool's span holds it */
	uint64_t *tok_ns;         /* token arrivals of its LLM calls, sorted (the HTML timeline) */
	size_t ntok;
	struct xa_usage use, waste; /* tokens and cost of its LLM calls; of the wasted ones */
	struct xa_call *calls;    /* owned */
	size_t ncalls;
	char unpriced_model[64];  /* the first model that matched no price */
};

/* One row of the session's per-turn table (spilled to a temp file). */
struct xa_row {
	int64_t turn_index;
	uint64_t start;  /* CLOCK_MONOTONIC ns: the session page's time axis */
	uint64_t wall;
	uint64_t cat_ns[XP_CAT_COUNT];
	double in_tok;
	double ttft_ms;  /* -1: none */
	int32_t top_l3;  /* fired point with the most time, -1 when none fired */
	uint32_t nfired;
	int32_t complete;
	double out_tok;  /* output tokens of its LLM calls */
	double usd, waste_usd;
};

#define XA_SLOWEST 5
#define XA_SKIP_SHOWN 8

/* Running least-squares sums of points (x, y). */
struct xa_fit {
	double n, sx, sy, sxx, sxy;
};

struct xa_session {
	char dir[512];
	struct xa_options opt;
	unsigned turns, skipped, incomplete;
	char skip_msg[XA_SKIP_SHOWN][2 * XA_REASON];
	struct xa_turn *total; /* time sums over all turns; l3 states are session verdicts */
	unsigned fired[XA_MAX_L3], measured[XA_MAX_L3];
	double worst[XA_MAX_L3];
	int64_t worst_turn[XA_MAX_L3];
	struct xa_fit ttft; /* TTFT (ms) over turn index */
	struct xa_fit tok;  /* input tokens over turn index */
	double tok_first, tok_last, growth_max;
	struct xa_row slow[XA_SLOWEST];
	unsigned nslow;
	FILE *rows;
	double prev_feat[F_FEAT_COUNT];
	int have_prev;
	uint64_t dropped;
	unsigned warnings, corrections;
	char tier[16];
	double dec_tok, dec_ns; /* output tokens and decode time of successful calls */
	struct xa_head last;    /* the last turn's (agent name and pid) */
};

/* aggregate.c: fold one analysed turn into s; 0 ok, -1 on a write error. */
int xa_session_add(struct xa_session *s, const struct xa_turn *t);
/* Session verdicts for each L3 point, after the last turn. */
void xa_session_finish(struct xa_session *s);
/* Least-squares slope of y over x from the running sums, 0 with < 2 points. */
double xa_slope(const struct xa_fit *f);
/* Read row i of the per-turn table back; 0 ok. */
int xa_session_row(const struct xa_session *s, size_t i, struct xa_row *r);

/* turn.c: build a trace from the core's turn, which it takes (xa_trace_free frees it, also
 * after a failure); 0 ok, -1 on data it cannot use or memory. */
int xa_trace_from_turn(struct tt_turn *t, const char *path, struct xa_trace *tr);
void xa_trace_free(struct xa_trace *tr);

/* gpu.c: fill tr->gpu from the turn's GPU activities (none: zeros). 0 ok, -1 bad or memory. */
int xa_gpu_stats(struct xa_trace *tr, const struct tt_turn *t);

/* load.c: read + validate + build one turn. XA_OK, XA_EINVALID, XA_EFAIL.
 * Errors go to err (one line each); the first one is also copied to first. On failure tr is
 * empty (xa_trace_free on it does nothing). */
int xa_load_turn(const char *path, struct xa_trace *tr, FILE *err, char *first, size_t flen);

/* normalize.c: carve ttft/stream gaps, flatten into tr->segs; 0 ok, -1 memory. */
int xa_normalize(struct xa_trace *tr);
/* domain.c: set span domains from the stage map, record corrections in t. */
int xa_domain_check(struct xa_trace *tr, struct xa_turn *t);
/* categorize.c: charge every timeline ns; fills t's category, L2, L3 sums. */
int xa_categorize(const struct xa_trace *tr, struct xa_turn *t);
/* metrics.c: turn features and each L3 point's metric value. */
void xa_metrics(const struct xa_trace *tr, struct xa_turn *t);
/* drill.c: threshold walk L1 -> L2 -> L3, grade filter, states, savings of fired points. */
void xa_drill(struct xa_turn *t, const struct xa_options *o);
/* The most a fix of point p (under l2, metric value, ns charged) saves: 0 unless it fires. */
uint64_t xa_savings(const struct th_l3 *p, const struct th_l2 *l2, uint64_t ns, double value);
/* Does v cross thr in direction cmp (fires above: v > thr)? Also: is v worse than thr. */
int xa_crosses(double v, double thr, enum th_cmp cmp);

/* cost.c: tokens and cost of every LLM call, the turn's sums, and the waste ones. */
int xa_tokens(const struct xa_trace *tr, struct xa_turn *t, const struct xa_prices *p);
/* metrics.c: an LLM call (llm_inference, or decode/prefill outside one). */
int xa_is_llm_call(const struct xa_trace *tr, const struct xa_span *s);

/* metrics.c: the points that compare a turn with the previous one (prev: its features). */
void xa_metrics_session(struct xa_turn *t, const double *prev);

/* L4: evaluate cause `l4` for L3 point `i` of t. */
enum xa_state xa_l4_eval(const struct xa_turn *t, size_t i, const struct th_l4 *l4, double *value,
			 char *why, size_t whylen);
/* expr.c: evaluate an L4 formula over named variables; 0 ok, -1 missing var (name in why). */
int xa_expr_eval(const char *formula, const double *vars, uint32_t have, double *out, char *why,
		 size_t whylen);
/* The name of variable i (counters, then "sched.runq_ns", "sched.on_cpu_ns"); NULL past the end. */
const char *xa_var_name(size_t i);
size_t xa_var_count(void);

/* Index of an L3 point in theory's table, -1 when unknown. */
int xa_l3_index(const char *id);
/* The L2 parent of L3 point i (NULL when theory names an unknown one). */
const struct th_l2 *xa_l3_parent(size_t i);
/* Append a note (dropped when full). */
void xa_note(struct xa_turn *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* XPERF_ANALYZE_MODEL_H */
