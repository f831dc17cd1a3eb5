/* SPDX-License-Identifier: MIT */
/*
 * findings.h - shared-schema PERF findings for FAIL/WARN dimensions, one per
 * metric (the original's layout and ids: sha1("perf-benchmark|<root>|
 * <workload>|<metric>") first 16 hex digits), sorted by path then metric.
 */
#ifndef XPERF_RUBRIC_FINDINGS_H
#define XPERF_RUBRIC_FINDINGS_H

#include <cjson/cJSON.h>

#include "rubric/outcome.h"

/* The prescription of each dimension (the original's advice, verbatim). */
extern const char *const rb_prescriptions[D_COUNT];

/* The findings array (caller frees). root names the analysed tree. */
cJSON *rb_findings_json(const struct rb_result *r, const char *root);

/* 16 hex digits of SHA-1 over "perf-benchmark|root|<workload>|metric" into id[17]. */
void rb_finding_id(const char *root, const char *metric, char id[17]);

#endif /* XPERF_RUBRIC_FINDINGS_H */
