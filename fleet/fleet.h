/* SPDX-License-Identifier: MIT */
/*
 * fleet.h - xperf across many nodes: a trace tree `DIR/<node>/<session>/turn_*.json`
 * (or `DIR/<session>/...`, DIR then being one node) folded into fleet-wide
 * aggregates, one session at a time through the analyzer library, then rendered
 * as a report (text, JSON, HTML) or as Prometheus metrics.
 *
 * Memory: the aggregates are fixed-size except the (node, agent) series and the
 * node list, which grow with the number of distinct nodes and agents, never with
 * the number of sessions or turns. Lists shown to people (worst sessions, invalid
 * files) keep the first few in a stable order; their totals are always counted.
 * fleet/README.md documents the layout and every figure.
 */
#ifndef XPERF_FLEET_H
#define XPERF_FLEET_H

#include <stdint.h>
#include <stdio.h>

#include "analyze/analyze.h"
#include "theory/theory.h"

#define FLEET_NAME 128    /* node and agent names are cut to this (bytes, with the NUL) */
#define FLEET_PATH 512
#define FLEET_MSG 640
#define FLEET_WORST 5     /* worst sessions kept */
#define FLEET_BAD_SHOWN 20 /* invalid-file messages kept */

/*
 * The counters the Prometheus exposition exports per (node, agent): a vector of
 * fleet_ctr_len() counts, FC_* then the offsets fleet_ctr_*() give (they depend
 * on theory's L3 count). Histograms take nbuckets cumulative buckets, _count,
 * then _sum in ns.
 */
enum { FC_TURNS, FC_INCOMPLETE, FC_WALL_NS, FC_DROPPED, FC_L2 /* + domain * cats + cat */ };
size_t fleet_ctr_l3_turns(void); /* + L3 index: turns it fired in */
size_t fleet_ctr_l3_ns(void);    /* + L3 index: ns charged to it */
size_t fleet_ctr_ttft(void);     /* histogram: first TTFT of each turn */
size_t fleet_ctr_turn(void);     /* histogram: turn wall time */
size_t fleet_ctr_usage(void);    /* + FU_*: tokens and cost; + FU_LEN + FU_*: of wasted calls */
size_t fleet_ctr_len(void);

/* A usage block (analyze/README.md, "Tokens and cost"): tokens by type (xa_tok_names),
 * cost in nano-USD (exported as exact decimal USD), LLM calls, unpriced calls. */
enum { FU_TOK, FU_NUSD = FU_TOK + XA_TOK_COUNT, FU_CALLS, FU_UNPRICED, FU_LEN };

struct fleet_bucket {
	const char *le; /* the `le` label, seconds */
	uint64_t ns;
};
extern const struct fleet_bucket fleet_ttft_buckets[], fleet_turn_buckets[];
extern const size_t fleet_ttft_nbuckets, fleet_turn_nbuckets;
/* Count one observation of ns in the histogram at v[base]. */
void fleet_ctr_observe(uint64_t *v, size_t base, const struct fleet_bucket *b, size_t nb,
		       uint64_t ns);

/* One (node, agent) pair: the label set of the per-agent metrics. */
struct fleet_series {
	char node[FLEET_NAME];
	char agent[FLEET_NAME];
	unsigned sessions, turns, incomplete;
	uint64_t wall_ns;
	double usd; /* cost of its LLM calls (analyze/README.md, "Tokens and cost") */
	uint64_t *ctr; /* the exported counters (fleet_ctr_len()), NULL until one is added */
};

/* One session's counter vector (serve keeps them across scans: ledger.c). */
struct fleet_sess_ctr {
	char path[FLEET_PATH];
	char node[FLEET_NAME];
	char agent[FLEET_NAME];
	uint64_t *v;
};

struct fleet_node {
	char name[FLEET_NAME];
	unsigned sessions, invalid_files;
	uint64_t dropped_events;
};

/* One L3 point over the fleet. */
struct fleet_point {
	unsigned turns;    /* turns in which it fired */
	unsigned sessions; /* sessions in which it fired at least once */
	uint64_t ns;       /* time charged to it */
};

struct fleet_session {
	char path[FLEET_PATH];
	char node[FLEET_NAME];
	char agent[FLEET_NAME];
	unsigned turns;
	uint64_t wall_ns;
	double effective_share; /* Effective Work / wall time; worst sessions have the least */
	const struct th_l3 *top; /* its first-ranked bottleneck, NULL when none fired */
};

struct fleet_agg {
	char dir[FLEET_PATH];
	unsigned sessions, turns, incomplete;
	uint64_t wall_ns, dropped_events;
	uint64_t l2_ns[XP_DOMAIN_COUNT][XP_CAT_COUNT];
	struct fleet_point *points; /* th_l3_count entries, theory's order */
	unsigned invalid_files;     /* turn files skipped as invalid */
	unsigned failed_sessions;   /* session dirs that could not be read or had no valid turn */
	char bad[FLEET_BAD_SHOWN][FLEET_MSG]; /* lexically first messages, sorted */
	unsigned nbad;
	struct fleet_session worst[FLEET_WORST]; /* least effective first */
	unsigned nworst;
	struct fleet_series *series;
	size_t nseries, cap_series;
	struct fleet_node *nodes;
	size_t nnodes, cap_nodes;
	int scan_failed;     /* the trace directory could not be read */
	double scan_seconds; /* how long the scan took (serve exports it) */
	double scan_time;    /* when it ended, seconds since the epoch */
	struct xa_usage use, waste; /* tokens and cost of every session; of the wasted ones */
	const struct xa_prices *prices; /* NULL: the shipped table */
	int keep_sessions;           /* keep each session's counter vector in sess (serve) */
	struct fleet_sess_ctr *sess;
	size_t nsess, cap_sess;
};

/* 0 ok, -1 out of memory. Free with fleet_agg_free (also after a failed init). */
int fleet_agg_init(struct fleet_agg *a, const char *dir);
void fleet_agg_free(struct fleet_agg *a);

/*
 * Walk `dir` and fold every session into `a` (initialised). Each problem (an
 * invalid file, an unreadable directory) is counted in `a` and, when `log` is
 * not NULL, also printed there as one line. Returns 0, or -1 when `dir` itself
 * cannot be read or memory runs out (message on log).
 */
int fleet_collect(const char *dir, struct fleet_agg *a, FILE *log);

/* What one analysed session brings to the aggregates (collect.c fills it). */
struct fleet_input {
	const char *path, *node, *agent;
	unsigned turns, incomplete;
	uint64_t wall_ns, dropped_events;
	uint64_t l2_ns[XP_DOMAIN_COUNT][XP_CAT_COUNT];
	unsigned *fired; /* per L3 point (theory's order): turns fired */
	uint64_t *ns;    /* per L3 point: time charged */
	const struct th_l3 *top;
	struct xa_usage use, waste;
	uint64_t *ctr; /* its histograms (the rest of its counter vector comes from the
			* fields above); NULL: none */
};

/* agg.c: fold one session in. 0 ok, -1 out of memory. */
int fleet_add_session(struct fleet_agg *a, const struct fleet_input *in);
/* agg.c: the counter vector of series (node, agent), created zero; NULL on memory. */
uint64_t *fleet_series_ctr(struct fleet_agg *a, const char *node, const char *agent);
/* agg.c: count one invalid turn file (or unreadable session) of `node`, with its message. */
int fleet_add_bad(struct fleet_agg *a, const char *node, const char *msg, int whole_session);

/* agg.c: L3 indexes of the points that fired, ranked (turns, then sessions, then time);
 * returns how many (idx holds th_l3_count entries). */
size_t fleet_ranked_points(const struct fleet_agg *a, size_t *idx);
/* agg.c: sort series and nodes by name (reporters call it once before rendering). */
void fleet_sort(struct fleet_agg *a);
/* agg.c: time of category c summed over domains. */
uint64_t fleet_cat_ns(const struct fleet_agg *a, enum th_category c);
/* agg.c: 100 x part / whole, 0 when whole is 0 (the text and HTML reports' percentages). */
double fleet_pct(uint64_t part, uint64_t whole);

enum fleet_format { FLEET_TEXT, FLEET_JSON, FLEET_HTML };
/* report_*.c: render the report. 0 ok, -1 on a write or memory error. */
int fleet_report_text(struct fleet_agg *a, FILE *out);
int fleet_report_json(struct fleet_agg *a, FILE *out);
int fleet_report_html(struct fleet_agg *a, FILE *out);

/* prom.c: the Prometheus text exposition (format 0.0.4) of `a`. 0 ok, -1 write error. */
int fleet_prom_write(struct fleet_agg *a, FILE *out);
/* prom.c: write a label value escaped (\\, \", \n) with invalid UTF-8 replaced by U+FFFD. */
void fleet_prom_escape(const char *v, size_t len, FILE *out);
/* prom.c: the nanoseconds as exact decimal seconds ("1.5", "0.000000001", "0"). */
void fleet_seconds(uint64_t ns, char *buf, size_t len);

/* utf8.c: copy src into dst (size bytes with the NUL), invalid UTF-8 bytes replaced by '?',
 * cut only between characters. */
void fleet_copy_name(char *dst, size_t size, const char *src);

/*
 * ledger.c: the counters of `serve` kept monotonic across deletions of traces and
 * restarts (see there). apply: fold this scan's session vectors (a->sess, taken)
 * in, retiring what sessions lost; expose: set every series' counters to retired +
 * current; save/load: the state file. All 0 ok, -1 memory (load: 1 no file yet,
 * -1 unusable, why says why).
 */
struct fleet_ledger {
	struct fleet_sess_ctr *sessions; /* sorted by path */
	size_t nsessions;
	struct fleet_sess_ctr *retired; /* per (node, agent); path "" */
	size_t nretired, cap_retired;
};
int fleet_ledger_apply(struct fleet_ledger *l, struct fleet_agg *a);
int fleet_ledger_expose(const struct fleet_ledger *l, struct fleet_agg *a);
int fleet_ledger_save(const struct fleet_ledger *l, const char *path);
int fleet_ledger_load(struct fleet_ledger *l, const char *path, char *why, size_t len);
void fleet_ledger_free(struct fleet_ledger *l);

/*
 * exporter.c: the Prometheus figures of the trace directory `dir`, kept monotonic in the
 * ledger file `state` (loaded now, saved after each scan), cost priced with `prices` (NULL:
 * the shipped table); `who` prefixes its log lines on stderr. write: scan, count, write the
 * exposition to out (with log, one line per scan); 0 ok, -1 on memory or a write error.
 */
struct fleet_exporter;
struct fleet_exporter *fleet_exporter_new(const char *dir, const char *state,
					  const struct xa_prices *prices, const char *who);
int fleet_exporter_write(struct fleet_exporter *fe, FILE *out, int log);
void fleet_exporter_free(struct fleet_exporter *fe);

/* serve.c: serve /metrics on `listen` (host:port, [v6]:port; port 0 picks a free one, logged
 * on stderr as "listening on HOST:PORT"), rescanning `dir` every
 * `interval` seconds, until SIGTERM or SIGINT, its counters kept in the ledger file `state`,
 * cost priced with `prices` (NULL: the shipped table). Returns 0 after a clean stop, -1 when it
 * cannot listen, -2 for an invalid address (each reported on stderr). */
int fleet_serve(const char *dir, const char *listen, unsigned interval, const char *state,
		const struct xa_prices *prices);

#endif /* XPERF_FLEET_H */
