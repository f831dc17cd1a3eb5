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

struct xp_rb_outcome {
	const struct xp_rb_opts *o;
	const struct xp_rb_meas *m;
	struct xp_rb_result r;
	struct xp_rb_env env;
	int have_baseline;
	struct xp_rb_regressions base_regr;
	int have_ledger;
	struct xp_rb_ledger ledger;
	struct xp_rb_regressions vs_last, vs_best;
	int have_pct; /* pooled wall-time percentiles (>= 2 samples) */
	double p50, p95, p99;
};

#endif /* XPERF_RUBRIC_OUTCOME_H */
