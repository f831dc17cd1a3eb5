/* SPDX-License-Identifier: MIT */
/*
 * summary.h - benchmark_summary.json and the ledger line, built with cJSON.
 * docs/rubric.md lists every key; the original's keys keep their names and
 * meaning, added keys are marked there.
 */
#ifndef XPERF_RUBRIC_SUMMARY_H
#define XPERF_RUBRIC_SUMMARY_H

#include <cjson/cJSON.h>

#include "rubric/outcome.h"

/* The summary document (the caller frees it with cJSON_Delete). */
cJSON *rb_summary_json(const struct rb_outcome *oc);
/*
 * The ledger line for this run, keys sorted, no newline (malloc'd; NULL on
 * allocation failure): dimensions, rubric_total, tier, timestamp_utc,
 * wall_time_mean, wall_time_p50.
 */
char *rb_ledger_line(const struct rb_outcome *oc);

#endif /* XPERF_RUBRIC_SUMMARY_H */
