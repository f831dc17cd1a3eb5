/* SPDX-License-Identifier: MIT */
/*
 * pipeline.h - one `xperf rubric` run: read the baseline, time the target,
 * run the Valgrind stages of the tier, score, compare with the baseline and
 * the ledger, write the outputs (atomically), append the ledger line.
 */
#ifndef XPERF_RUBRIC_PIPELINE_H
#define XPERF_RUBRIC_PIPELINE_H

#include "rubric/rubric.h"

/*
 * Returns the process exit code: 0 all stages ran; 1 a run or stage failed
 * (outputs are still written); 2 invalid input (unreadable baseline, target
 * cannot be executed: nothing written). Errors go to stderr as one line.
 */
int rb_pipeline(const struct rb_opts *o);

#endif /* XPERF_RUBRIC_PIPELINE_H */
