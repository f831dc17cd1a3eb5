/* SPDX-License-Identifier: MIT */
/*
 * measure.h - the timed stage: per size, one warm-up run (not scored), then
 * `reps` measured runs; per size the median, mean and coefficient of
 * variation of wall time, the peak RSS and the per-counter medians, and
 * each run's own values. Timing stops at the first failing run (as the
 * original), which is recorded. A failing --attach command is counted and
 * its first reason kept; the run itself stays scored.
 */
#ifndef XPERF_RUBRIC_MEASURE_H
#define XPERF_RUBRIC_MEASURE_H

#include "rubric/rubric.h"

/*
 * Run the timed stage into m. Returns 0, 1 when a run failed (reason in
 * m->timing_error; earlier sizes keep their data), or 2 when the target
 * cannot be executed at all (err says why; nothing measured).
 */
int rb_measure(const struct rb_opts *o, struct rb_meas *m, char *err, size_t errlen);

/* Fill the statistics of z from its z->nruns wall times and the runs' counters. */
void rb_size_stats(struct rb_size *z, const struct rb_run *runs);

#endif /* XPERF_RUBRIC_MEASURE_H */
