/* SPDX-License-Identifier: MIT */
#include "lib/grow.h"

#include <stdint.h>
#include <stdlib.h>

int xp_grow(void **arr, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 16;
	void *p;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	if (n > SIZE_MAX / size || !(p = realloc(*arr, n * size)))
		return -1;
	*arr = p;
	*cap = n;
	return 0;
}
