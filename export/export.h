/* SPDX-License-Identifier: MIT */
/*
 * export.h - `xperf export`: TurnTrace files to the formats other tools read.
 *
 *   chrome  Chrome Trace Event Format (Perfetto UI, chrome://tracing)
 *   otlp    OTLP/JSON ExportTraceServiceRequest (POST to a collector's /v1/traces)
 *
 * Every input is validated by //schema:validate before anything is written;
 * the first invalid file stops the export (nothing is written). export/README.md
 * maps each TurnTrace field to its place in both formats.
 */
#ifndef XPERF_EXPORT_H
#define XPERF_EXPORT_H

#include <stdint.h>
#include <stdio.h>

enum xe_format { XE_CHROME, XE_OTLP };

struct xe_options {
	enum xe_format format;
	/* Added to CLOCK_MONOTONIC times to make Unix-epoch times, for files without a
	 * clock_anchor (written before it existed) or, when clock_offset_forced, for every
	 * file; otherwise each file's anchor dates it. xe_clock_offset_now() is this boot's. */
	int64_t clock_offset_ns;
	int clock_offset_forced;
};

/* Return codes (the CLI exit codes). */
#define XE_OK 0
#define XE_EFAIL 1    /* memory or write failure */
#define XE_EINVALID 2 /* an input is invalid: one line "path:line:col: ..." went to err */

/* 0 ok, -1 unknown ("chrome", "otlp"). */
int xe_parse_format(const char *s, enum xe_format *out);

/* CLOCK_REALTIME - CLOCK_MONOTONIC now: right for traces recorded since this boot. */
int64_t xe_clock_offset_now(void);

/*
 * Export the turns of `paths` (turn files, or session directories: their
 * turn_NNN.json in index order) to `out` in o->format. Errors go to err.
 */
int xe_export(char *const *paths, int npaths, const struct xe_options *o, FILE *out, FILE *err);

#endif /* XPERF_EXPORT_H */
