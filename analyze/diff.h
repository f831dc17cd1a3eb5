/* SPDX-License-Identifier: MIT */
/*
 * diff.h - `xperf diff A B`: the change in time of every L1, L2 and L3 point
 * between two sessions (or two sets of sessions), with a seeded bootstrap
 * confidence interval over turns, and which points moved significantly
 * (diff.c; analyze/README.md, "Diff"). Rendered as text, JSON or HTML.
 */
#ifndef XPERF_ANALYZE_DIFF_H
#define XPERF_ANALYZE_DIFF_H

#include "analyze/analyze.h"

struct xa_diff_options {
	enum xa_format format;
	unsigned resamples; /* bootstrap resamples (2000) */
	uint64_t seed;      /* of the resampling generator (1): same seed, same report */
	double confidence;  /* of the interval (0.95) */
	double min_ms;      /* a significant change is at least this many ms per turn (1) ... */
	double min_rel;     /* ... and this share of A's mean turn time (0.02) */
};

void xa_diff_options_default(struct xa_diff_options *o);

/* One side: its turns as rows of ns (wall, then each point's). */
struct xa_diff_side {
	char path[512];
	double *rows;
	size_t n, cap;
	unsigned sessions, skipped;
	double wall_ms; /* mean turn time */
};

struct xa_diff_point {
	const char *id;  /* category key, L2 id or L3 id */
	int level;       /* 1, 2, 3 */
	double a_ms, b_ms, d_ms, ms_lo, ms_hi;               /* ms per turn, change, interval */
	double a_share, b_share, d_share, share_lo, share_hi; /* share of turn time */
	int significant;
};

struct xa_diff {
	struct xa_diff_options opt;
	struct xa_diff_side a, b;
	struct xa_diff_point *points; /* L1, L2, L3 in theory's order */
	size_t npoints;
};

/* Compare A with B. XA_OK, XA_EINVALID (a side has no valid turn), XA_EFAIL. */
int xa_diff_run(const char *a, const char *b, const struct xa_diff_options *o,
		struct xa_diff **out, FILE *err);
/* Render in d->opt.format. 0 ok, -1 on a write error. */
int xa_diff_render(const struct xa_diff *d, FILE *out);
void xa_diff_free(struct xa_diff *d);

#endif /* XPERF_ANALYZE_DIFF_H */
