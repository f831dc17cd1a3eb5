/* SPDX-License-Identifier: MIT */
/*
 * test_check.h - gpu/'s C unit tests: lib/test_check.h's CHECK, and the
 * one-line verdict they print. Include once per test program.
 */
#ifndef XPERF_GPU_TEST_CHECK_H
#define XPERF_GPU_TEST_CHECK_H

#include <stdio.h>

#include "lib/test_check.h"

/* Print "<name>: ok|FAIL" and return the process exit status. */
static inline int test_result(const char *name)
{
	printf("%s: %s\n", name, test_failures ? "FAIL" : "ok");
	return test_failures ? 1 : 0;
}

#endif /* XPERF_GPU_TEST_CHECK_H */
