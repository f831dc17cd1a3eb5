/* SPDX-License-Identifier: MIT */
/*
 * test_check.h - the one assertion macro of xperf's C unit tests: CHECK(cond,
 * fmt, ...) prints file:line and the message when cond is false and counts
 * the failure in `test_failures`; a test's main returns test_failures != 0.
 * Unlike assert() it keeps going, so one run lists every broken invariant.
 */
#ifndef XPERF_LIB_TEST_CHECK_H
#define XPERF_LIB_TEST_CHECK_H

#include <stdio.h>

static int test_failures;

#define CHECK(cond, ...)                                                                   \
	do {                                                                               \
		if (!(cond)) {                                                             \
			fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                     \
			fprintf(stderr, __VA_ARGS__);                                      \
			fputc('\n', stderr);                                               \
			test_failures++;                                                   \
		}                                                                          \
	} while (0)

#endif /* XPERF_LIB_TEST_CHECK_H */
