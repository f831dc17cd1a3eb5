/* SPDX-License-Identifier: MIT */
/*
 * validate.h - the TurnTrace v1 validator (schema/README.md is the contract).
 *
 * A bounded, iterative scanner first checks the raw bytes (size cap, UTF-8,
 * JSON syntax, nesting cap) and records the line:col of every value; then
 * cJSON parses the text and the rules of turntrace.schema.json plus the rules
 * JSON Schema cannot express (ordered times, spans inside the turn, unique
 * ids, parents, stages and L3 ids known to theory, sched sums) are checked.
 * Every error names the file, the line:col of the offending value, its JSON
 * pointer (RFC 6901) and a one-line message. Nothing here prints or exits.
 */
#ifndef XPERF_SCHEMA_VALIDATE_H
#define XPERF_SCHEMA_VALIDATE_H

#include <stddef.h>

#include <cjson/cJSON.h>

#define XP_VALIDATE_MAX_BYTES (64u << 20) /* larger files are rejected, unread */
#define XP_VALIDATE_MAX_DEPTH 64          /* deeper nesting is rejected */
#define XP_VALIDATE_MAX_VALUES (1u << 22) /* more JSON values are rejected (memory bound) */
#define XP_VALIDATE_MAX_ERRORS 100        /* reporting stops after this many per file */
#define XP_SCHED_TOLERANCE_NS 1000000     /* sched parts may exceed the span by this much */

struct sc_verror {
	const char *file;  /* as given by the caller ("<buffer>" when NULL) */
	int line, col;     /* 1-based; col counts bytes; 0:0 for I/O errors */
	char pointer[256]; /* JSON pointer of the offending value, "" for the root */
	char msg[256];     /* one line, no trailing newline */
};

/* Called once per error, in document order of discovery. */
typedef void (*sc_verror_fn)(const struct sc_verror *e, void *ctx);

/*
 * Validate `len` bytes of `buf` as one TurnTrace v1 file named `file` (used
 * only in error reports). `buf` need not be NUL-terminated. `cb` may be NULL.
 * Returns the number of errors (0 = valid), counting at most
 * XP_VALIDATE_MAX_ERRORS + 1 (the last one says reporting stopped).
 */
int sc_validate_buffer(const char *file, const char *buf, size_t len, sc_verror_fn cb, void *ctx);

/*
 * Validate the file at `path`. An I/O error (missing, unreadable, a
 * directory, over XP_VALIDATE_MAX_BYTES) is reported as one error at 0:0.
 */
int sc_validate_file(const char *path, sc_verror_fn cb, void *ctx);

/*
 * Read, validate and parse the file at `path`. Returns the cJSON document
 * (the caller frees it with cJSON_Delete) when it is valid, else NULL with
 * every error reported through `cb`. `*nerr` (when not NULL) gets the count.
 */
cJSON *sc_load_turn(const char *path, sc_verror_fn cb, void *ctx, int *nerr);

/* Same as sc_load_turn for a buffer already in memory. */
cJSON *sc_load_turn_buffer(const char *file, const char *buf, size_t len, sc_verror_fn cb,
			   void *ctx, int *nerr);

/*
 * Format `e` as "path:line:col: /json/pointer: message" into out (always
 * NUL-terminated; the root pointer is shown as "/"). Returns `out`.
 */
char *sc_verror_format(const struct sc_verror *e, char *out, size_t outlen);

#endif /* XPERF_SCHEMA_VALIDATE_H */
