/* SPDX-License-Identifier: MIT */
/* plural.h - "1 turn", "2 turns": the English plural suffix of a count. */
#ifndef XPERF_LIB_PLURAL_H
#define XPERF_LIB_PLURAL_H

/* "" for 1, "s" otherwise: printf("%u turn%s", n, xp_s(n)). */
static inline const char *xp_s(unsigned long long n)
{
	return n == 1 ? "" : "s";
}

#endif /* XPERF_LIB_PLURAL_H */
