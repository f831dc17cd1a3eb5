/* SPDX-License-Identifier: MIT */
/*
 * outcome.h - everything a rubric run produced, handed to the writers
 * (report, summary, findings, ledger line). Writers only read it.
 */
#ifndef XPERF_RUBRIC_OUTCOME_H
#define XPERF_RUBRIC_OUTCOME_H

#include "rubric/env.h"
#include "rubric/regress.h"
#include "rubric/rubric.h"

struct rb_outcome {
	const struct rb_opts *o;
	const struct rb_meas *m;
	struct rb_result r;
	struct rb_env env;
	struct rb_regressions base_regr;
	struct rb_ledger ledger;
	struct rb_regressions vs_last, vs_best;
	int have_pct; /* pooled wall-time percentiles (>= 2 samples) */
	double p50, p95, p99;
};

#endif /* XPERF_RUBRIC_OUTCOME_H */
