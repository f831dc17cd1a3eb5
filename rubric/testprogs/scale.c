/* SPDX-License-Identifier: MIT */
/*
 * scale.c - a test workload whose cost is an exact function of its size:
 * `scale linear|nlogn|quadratic N` runs c*N, c*N*log2(N) or c*N*N steps of
 * a dependent LCG chain (no memory traffic, so the cost per step is flat).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t steps(const char *mode, uint64_t n)
{
	uint64_t lg = 0;

	for (uint64_t v = n; v > 1; v >>= 1)
		lg++;
	if (!strcmp(mode, "linear"))
		return 4400 * n;
	if (!strcmp(mode, "nlogn"))
		return 400 * n * lg;
	if (!strcmp(mode, "quadratic"))
		return 160 * n * n;
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t n = argc == 3 ? strtoull(argv[2], NULL, 10) : 0;
	uint64_t k = argc == 3 ? steps(argv[1], n) : 0, x = n;

	if (k == 0) {
		fprintf(stderr, "usage: scale linear|nlogn|quadratic N\n");
		return 2;
	}
	for (uint64_t i = 0; i < k; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x == 42; /* keeps the chain alive; exits 0 */
}
