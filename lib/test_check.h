/* SPDX-License-Identifier: MIT */
/*
 * test_check.h - the one assertion macro of xperf's C unit tests:
 * CHECK(cond) or CHECK(cond, "fmt", ...) prints file:line, the condition and
 * the detail when cond is false and counts the failure; a test's main
 * returns test_failures != 0. Unlike assert() it keeps going, so one run
 * lists every broken invariant. A test split over several files counts in
 * one variable: define TEST_FAILURES to its name before including this.
 * test_slurp reads a fixture whole.
 */
#ifndef XPERF_LIB_TEST_CHECK_H
#define XPERF_LIB_TEST_CHECK_H

#include <stdio.h>

#include "lib/in_file.h"

#ifndef TEST_FAILURES
static int test_failures;
#define TEST_FAILURES test_failures
#endif

#define CHECK(cond, ...)                                                                   \
	do {                                                                               \
		if (!(cond)) {                                                             \
			fprintf(stderr, "%s:%d: CHECK failed: %s ", __FILE__, __LINE__,    \
				#cond);                                                    \
			fprintf(stderr, "" __VA_ARGS__);                                   \
			fputc('\n', stderr);                                               \
			TEST_FAILURES++;                                                   \
		}                                                                          \
	} while (0)

/* The file at path, NUL-terminated (its length in *len), or NULL when unreadable. */
static inline char *test_slurp(const char *path, size_t *len)
{
	char *buf = NULL;

	return xp_in_read(path, (size_t)1 << 30, &buf, len) ? NULL : buf;
}

#endif /* XPERF_LIB_TEST_CHECK_H */
