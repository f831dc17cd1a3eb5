/* SPDX-License-Identifier: MIT */
/*
 * testutil.h - helpers for the SDK's tests: a fresh trace directory, loading
 * a written turn (every file is validated against the schema first), and
 * CHECK, which reports file:line and keeps going.
 */
#ifndef XPERF_SDK_TESTUTIL_H
#define XPERF_SDK_TESTUTIL_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

extern int tu_failures;
#define TEST_FAILURES tu_failures /* testutil.c counts its own too */
#include "lib/test_check.h"

/* A new empty directory under $TEST_TMPDIR (or /tmp) into buf. */
void tu_tmpdir(char *buf, size_t len, const char *tag);
/* Validates the file with schema/validate.h (errors count as failures), then parses it. */
cJSON *tu_load(const char *path);
/* "<session dir>/turn_NNN.json" of the current session. */
void tu_turn_path(char *buf, size_t len, int turn);
/* The first span of `doc` with this stage, or NULL. */
const cJSON *tu_span(const cJSON *doc, const char *stage);
/* Integer value at obj[key], or of obj itself when key is NULL (also for raw
 * integer literals); -1 when absent. */
int64_t tu_int(const cJSON *obj, const char *key);
/* 1 when doc's data_quality.warnings has an entry containing `needle`. */
int tu_has_warning(const cJSON *doc, const char *needle);
/* Number of directory entries other than . and .. whose name contains `needle`. */
int tu_count_entries(const char *dir, const char *needle);
/* 0 when no CHECK failed: prints a summary line. */
int tu_done(const char *name);

#endif /* XPERF_SDK_TESTUTIL_H */
