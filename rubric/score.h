/* SPDX-License-Identifier: MIT */
/*
 * score.h - the seven rubric dimensions, scored PASS 4 / WARN 2 / FAIL 0 or
 * N/A from the measurements. Pure functions of their inputs: the tests feed
 * them the research file's vectors.
 */
#ifndef XPERF_RUBRIC_SCORE_H
#define XPERF_RUBRIC_SCORE_H

#include "rubric/rubric.h"

/* The baseline facts scoring needs (Memory Profile compares peaks). */
struct xp_rb_base_mem {
	double peak_bytes; /* 0 when the baseline has none */
	char source[32];   /* "massif", "rusage" */
};

/* PASS if v <= b.pass, WARN if v <= b.warn, else FAIL. */
enum xp_rb_tierv xp_rb_grade(double v, struct xp_rb_bounds b);
/* 4, 2, 0 for PASS, WARN, FAIL; -1 otherwise. */
int xp_rb_points(enum xp_rb_tierv t);

/*
 * Score every dimension of `m` under `o` (sizes, expected complexity,
 * max-cv, valgrind size). `base` may be NULL. Fills r->dim, r->fit, total
 * and max_possible (N/A and N/A (noise) excluded from both).
 */
void xp_rb_score_all(const struct xp_rb_meas *m, const struct xp_rb_opts *o,
		     const struct xp_rb_base_mem *base, struct xp_rb_result *r);

/* The PASS bound of a dimension's main metric (findings' threshold). */
double xp_rb_pass_bound(int dim, const char *metric_key);
/* The PASS bound of an Algorithmic Scaling sub-check under `expected`. */
double xp_rb_sub_pass_bound(int sub, enum xp_rb_cx expected);

#endif /* XPERF_RUBRIC_SCORE_H */
