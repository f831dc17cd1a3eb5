/* SPDX-License-Identifier: MIT */
/*
 * test_check.h - the assertion of gpu/'s C unit tests: a failed CHECK prints
 * file:line, the condition and a printf-style detail, and the test goes on
 * so one run reports every failure. Include once per test program.
 */
#ifndef XPERF_GPU_TEST_CHECK_H
#define XPERF_GPU_TEST_CHECK_H

#include <stdio.h>

static int failures;

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: FAIL %s: ", __FILE__, __LINE__, #cond);            \
			fprintf(stderr, __VA_ARGS__);                                              \
			fputc('\n', stderr);                                                       \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

/* Print "<name>: ok|FAIL" and return the process exit status. */
static inline int test_result(const char *name)
{
	printf("%s: %s\n", name, failures ? "FAIL" : "ok");
	return failures ? 1 : 0;
}

#endif /* XPERF_GPU_TEST_CHECK_H */
