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
struct rb_base_mem {
	double peak_bytes; /* 0 when the baseline has none */
	char source[32];   /* "massif", "rusage" */
};

/*
 * Score every dimension of `m` under `o` (sizes, expected complexity,
 * max-cv, valgrind size). `base` may be NULL. Fills r->dim, r->fit, total
 * and max_possible (N/A and N/A (noise) excluded from both).
 */
void rb_score_all(const struct rb_meas *m, const struct rb_opts *o,
		     const struct rb_base_mem *base, struct rb_result *r);

#endif /* XPERF_RUBRIC_SCORE_H */
