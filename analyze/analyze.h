/* SPDX-License-Identifier: MIT */
/*
 * analyze.h - the Top-down analyzer as a library: `xperf analyze`, the
 * `xperf-bpf record` summary and `xperf demo` all call it.
 *
 * Pipeline (one module per stage, data flowing one way):
 *   load -> normalize -> domain check -> categorize -> drill -> aggregate -> report
 * A turn is analysed into an xa_turn (categories, L2, L3 points with their
 * metrics and verdicts, L4 inputs, corrections, timeline). A session is
 * streamed turn by turn into an xa_session: only aggregates and a compact
 * per-turn row are kept, so memory does not grow with the number of turns.
 * analyze/README.md documents the attribution rules and the report layout.
 */
#ifndef XPERF_ANALYZE_H
#define XPERF_ANALYZE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "theory/theory.h"

enum xa_format { XA_FMT_JSON, XA_FMT_TEXT, XA_FMT_HTML };

/*
 * Tokens and cost (analyze/README.md, "Tokens and cost"). Token categories as the
 * TurnTrace attributes count them; the price table is data (analyze/prices.tsv, compiled
 * in as the default, or a file of the same format).
 */
enum xa_tok { XA_TOK_INPUT, XA_TOK_OUTPUT, XA_TOK_CACHE_READ, XA_TOK_CACHE_WRITE,
	      XA_TOK_REASONING, XA_TOK_COUNT };
extern const char *const xa_tok_names[XA_TOK_COUNT]; /* "input", ..., "reasoning" */

struct xa_prices;
/* Parse a price table from text / a file; errors "NAME:LINE: message" on err. 0 ok, -1. */
int xa_prices_parse(const char *name, const char *text, size_t len, struct xa_prices **out,
		    FILE *err);
int xa_prices_load(const char *path, struct xa_prices **out, FILE *err);
void xa_prices_free(struct xa_prices *p);
/* The shipped table (analyze/prices.tsv); NULL only if it failed to parse. */
const struct xa_prices *xa_prices_default(void);
const char *xa_prices_date(const struct xa_prices *p);   /* "YYYY-MM-DD" */
const char *xa_prices_source(const struct xa_prices *p); /* file name, or "default ..." */
/* USD per token of each category for model (first matching pattern); -1 when none. */
int xa_prices_match(const struct xa_prices *p, const char *model, double *usd_per_tok);

/* Tokens by category and their cost: a call, a turn, its waste, a session. */
struct xa_usage {
	double tok[XA_TOK_COUNT];
	double usd;        /* cost of the priced calls */
	unsigned calls;    /* LLM calls counted */
	unsigned unpriced; /* calls whose model matched no price (their tokens still count) */
};

void xa_usage_add(struct xa_usage *dst, const struct xa_usage *src);
/* All of u's tokens, every category summed. */
double xa_usage_tokens(const struct xa_usage *u);
/* u as the reports' JSON object {input, ..., reasoning, calls, unpriced_calls, cost_usd}. */
struct cJSON *xa_usage_json(const struct xa_usage *u);
struct tt_exchange;
/* Tokens by category of an exchange (core/turn.h) into tok (absent ones untouched); 1 when any. */
int xa_tok_of(const struct tt_exchange *ex, double *tok);
/* Cost in USD of one LLM call's tokens (as the attributes count them) for model, per
 * category into usd_by (each token priced once); -1 when no price matches the model. */
int xa_call_cost(const struct xa_prices *p, const char *model, const double *tok,
		 double *usd_by);

struct xa_options {
	enum xa_format format;
	int depth;        /* 1..4: deepest level reported (L3 by default) */
	unsigned grades;  /* bit (1 << XP_GRADE_x) set: points of that grade are kept */
	double threshold; /* drill into nodes whose share of turn time is above this */
	const struct xa_prices *prices; /* NULL: xa_prices_default() */
};

/* Defaults: JSON, depth 3, grades A,B,C, threshold th_rules.drill_threshold. */
void xa_options_default(struct xa_options *o);
/* The formats' names, in enum xa_format's order: json, text, html. */
extern const char *const xa_format_names[3];
/* ns / wall, 0 when wall is 0: every share of turn time in the reports (fleet's too). */
double xa_share(uint64_t ns, uint64_t wall);

struct xa_turn;    /* one analysed turn */
struct xa_session; /* one analysed session (aggregates) */

/* Return codes of the analyse functions (same values as the CLI exit codes). */
#define XA_OK 0
#define XA_EFAIL 1    /* I/O or memory failure */
#define XA_EINVALID 2 /* the turn file is invalid (turn mode) or no valid turn (session) */

/*
 * Analyse one TurnTrace file. Validation errors are printed to `err` (one
 * line each: "path:line:col: /pointer: message") and XA_EINVALID returned.
 * On XA_OK *out holds the result (free with xa_turn_free).
 */
int xa_analyze_turn_file(const char *path, const struct xa_options *o, struct xa_turn **out,
			 FILE *err);
void xa_turn_free(struct xa_turn *t);

/*
 * Analyse every turn_*.json in `dir` in turn-index order, one turn in memory
 * at a time. An invalid file is reported on `err` with its path and reason,
 * skipped and counted (xa_summary.skipped). Returns XA_EINVALID when the
 * directory holds no valid turn, XA_EFAIL when it cannot be read.
 */
int xa_analyze_session_dir(const char *dir, const struct xa_options *o, struct xa_session **out,
			   FILE *err);
void xa_session_free(struct xa_session *s);

/* Render in o->format to `out`. 0 on success, -1 on a write error. */
int xa_render_turn(const struct xa_turn *t, const struct xa_options *o, FILE *out);
int xa_render_session(const struct xa_session *s, const struct xa_options *o, FILE *out);

/*
 * Render the turn (s == NULL) or the session (t == NULL) into the file at
 * `path` through lib/atomic_file.h (atomic, 0600, only over a regular file).
 * 0 on success, -errno or -XP_OUT_REFUSED on failure.
 */
int xa_render_to_path(const struct xa_turn *t, const struct xa_session *s,
		      const struct xa_options *o, const char *path);

/*
 * The turn files of a session directory (turn_NNN.json), in index order,
 * without listing them in memory: xa_scan_dir finds the index range, then
 * xa_scan_path names each index that has a file. `xperf export` walks with it too.
 */
struct xa_scan {
	char dir[512];
	int64_t lo, hi;  /* smallest and largest turn index found */
	uint32_t widths; /* bit w: some file's index has w digits */
	size_t nfiles;
};
int xa_scan_dir(const char *dir, struct xa_scan *sc);
/* Path of turn `idx` into path; 0 when such a file exists. */
int xa_scan_path(const struct xa_scan *sc, int64_t idx, char *path, size_t len);

/* The short summary the recorder and the demo print. */
struct xa_bottleneck {
	const struct th_l3 *l3; /* NULL when fewer than three fired */
	unsigned turns_fired;   /* in how many turns it fired */
	double value;           /* its metric in the turn where it was worst */
	uint64_t saved_ns;      /* what fixing it saves at most (analyze/README.md, "Savings") */
};

struct xa_summary {
	unsigned turns;                /* analysed */
	unsigned skipped;              /* invalid files skipped */
	uint64_t wall_ns;              /* sum of turn wall times */
	double l1_share[XP_CAT_COUNT]; /* time-weighted, sums to 1 */
	struct xa_bottleneck top[3];   /* by turns fired, then time */
	uint64_t dropped_events;       /* sum of data_quality.dropped_events */
	unsigned warnings;             /* data-quality warnings + analyzer notes */
	unsigned corrections;          /* domain corrections */
	char tier[16];                 /* "sdk", "plaintext", "ciphertext", "mixed" */
	struct xa_usage use, waste;    /* tokens and cost; of the wasted calls */
};

void xa_session_summary(const struct xa_session *s, struct xa_summary *out);

/* What `xperf top` shows of a session (live.c). */
#define XA_LIVE_LAST 5
struct xa_live_turn {
	int64_t turn_index;
	uint64_t wall_ns;
	double ttft_ms;         /* -1: none */
	double usd;
	const struct th_l3 *top; /* its biggest fired point, NULL when none */
};

struct xa_live {
	char agent[64];
	int64_t pid;
	unsigned turns;
	uint64_t wall_ns;
	double ttft_p50_ms, ttft_p95_ms; /* first TTFT of each turn; -1 when none */
	double out_tok_per_s;            /* output tokens / decode time; -1 when none */
	struct xa_usage use;
	double waste_share;              /* Waste Bound / wall time */
	const struct th_l3 *top;         /* the session's first-ranked fired point */
	uint64_t top_saved_ns;           /* what fixing it saves (analyze/README.md) */
	struct xa_live_turn last[XA_LIVE_LAST]; /* the last turns, newest first */
	unsigned nlast;
};

/* 0 ok, -1 on a read error of the spilled rows. */
int xa_session_live(const struct xa_session *s, struct xa_live *out);
/* A few lines (<= 80 columns): turns, L1 shares, top bottlenecks with their
 * suggestions, data quality. 0 on success, -1 on a write error. */
int xa_print_summary(const struct xa_session *s, FILE *out);

#endif /* XPERF_ANALYZE_H */
