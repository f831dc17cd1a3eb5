/* SPDX-License-Identifier: MIT */
/*
 * check.h - the assertion of the userspace unit tests: prints the failed
 * expression with its line and makes the test exit 1 at the end.
 */
#ifndef XPERF_USERSPACE_TESTING_CHECK_H
#define XPERF_USERSPACE_TESTING_CHECK_H

#include <stdio.h>

static int check_failures;

#define CHECK(cond)                                                               \
	do {                                                                      \
		if (!(cond)) {                                                    \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__,    \
				__LINE__, #cond);                                 \
			check_failures++;                                         \
		}                                                                 \
	} while (0)

#define CHECK_DONE() (check_failures ? 1 : 0)

#endif /* XPERF_USERSPACE_TESTING_CHECK_H */
