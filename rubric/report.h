/* SPDX-License-Identifier: MIT */
/* report.h - benchmark_report.md, the human report of a rubric run. */
#ifndef XPERF_RUBRIC_REPORT_H
#define XPERF_RUBRIC_REPORT_H

#include <stddef.h>

#include "rubric/outcome.h"

/* Render the report into a malloc'd buffer (*buf, *len); 0 or -1 (no memory). */
int rb_report_md(const struct rb_outcome *oc, char **buf, size_t *len);

#endif /* XPERF_RUBRIC_REPORT_H */
