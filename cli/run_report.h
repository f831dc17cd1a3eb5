/* SPDX-License-Identifier: MIT */
/*
 * run_report.h - what `xperf-bpf record/attach` print when they end: the turns
 * seen, the analyzer's short summary (L1 shares, top three bottlenecks with
 * their suggestions, data quality) and where the trace files and the HTML
 * report (written here, next to the turns) are.
 */
#ifndef XPERF_CLI_RUN_REPORT_H
#define XPERF_CLI_RUN_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "assemble/session.h"

/*
 * Analyses the session's directory, writes DIR/report.html (0600) and prints
 * the summary to out. dropped: kernel records lost; malformed: records the
 * adapter refused. 0, or -1 when the report could not be made.
 */
int cmd_run_report(FILE *out, const struct xt_session *s, uint64_t dropped, uint64_t malformed);
/* Writes the session's HTML report to path (atomic, 0600); 0 or -1 (message on err). */
int cmd_run_html(const char *session_dir, const char *path, FILE *err);

#endif /* XPERF_CLI_RUN_REPORT_H */
