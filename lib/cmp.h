/* SPDX-License-Identifier: MIT */
/* cmp.h - qsort comparators of plain numbers, ascending. */
#ifndef XPERF_LIB_CMP_H
#define XPERF_LIB_CMP_H

#include <stdint.h>

static inline int xp_cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

static inline int xp_cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

#endif /* XPERF_LIB_CMP_H */
