/* SPDX-License-Identifier: MIT */
/* testing.h - the CHECK macro and exit status shared by the rubric's unit tests. */
#ifndef XPERF_RUBRIC_TESTING_H
#define XPERF_RUBRIC_TESTING_H

#include <math.h>
#include <stdio.h>

static int t_failures;

#define CHECK(cond, ...)                                                         \
	do {                                                                     \
		if (!(cond)) {                                                   \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);     \
			fprintf(stderr, __VA_ARGS__);                            \
			fputc('\n', stderr);                                     \
			t_failures++;                                            \
		}                                                                \
	} while (0)

#define NEAR(a, b, eps) (fabs((double)(a) - (double)(b)) <= (eps))

static inline int t_done(const char *name)
{
	if (t_failures) {
		fprintf(stderr, "%s: %d check(s) failed\n", name, t_failures);
		return 1;
	}
	printf("%s: all checks passed\n", name);
	return 0;
}

#endif /* XPERF_RUBRIC_TESTING_H */
