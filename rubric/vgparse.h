/* SPDX-License-Identifier: MIT */
/*
 * vgparse.h - parsers of Valgrind's raw output files (outside data):
 * cachegrind.out (events:, fl=/fn=, count lines, summary:), callgrind.out
 * (calls= lines) and massif.out (snapshot=, mem_heap_B=). The original
 * parsed cg_annotate/callgrind_annotate text, whose layout changed across
 * Valgrind versions; the raw formats are documented and stable.
 *
 * Each takes a buffer that need not be NUL-terminated, and a name used in
 * errors. On failure it returns -1 with `err` set to "<name>:<line>: <why>"
 * and leaves nothing allocated.
 */
#ifndef XPERF_RUBRIC_VGPARSE_H
#define XPERF_RUBRIC_VGPARSE_H

#include <stddef.h>

#include "rubric/rubric.h"

#define XP_VG_MAX_BYTES (256u << 20) /* larger files are refused */
#define XP_VG_MAX_FNS 50000	     /* distinct functions kept from cachegrind */

/* Per file:function self costs and the program totals from summary:. */
int rb_cg_parse(const char *name, const char *buf, size_t len, struct rb_cg_profile *out, char *err,
		size_t errlen);
void rb_cg_free(struct rb_cg_profile *p);
/*
 * Keep the rows whose source file starts with `prefix`, or has it right
 * after a '/' (debug info may hold absolute or build-relative paths): the
 * original's --source-prefix. Sums them into p->sel and sets p->filtered;
 * totals stay the program's.
 */
void rb_cg_filter(struct rb_cg_profile *p, const char *prefix);

/* Sum of calls= counts, and how many exceed n (0 when n <= 0). */
int rb_cl_parse(const char *name, const char *buf, size_t len, long n, struct rb_cl_profile *out,
		char *err, size_t errlen);

/* Peak of mem_heap_B, the number of snapshots and their strict interior local maxima. */
int rb_ms_parse(const char *name, const char *buf, size_t len, struct rb_ms_profile *out, char *err,
		size_t errlen);

#endif /* XPERF_RUBRIC_VGPARSE_H */
