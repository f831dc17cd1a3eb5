/* SPDX-License-Identifier: MIT */
#include "lib/grow.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

int xp_buf_append(char **buf, size_t *len, size_t *cap, const void *d, size_t n)
{
	if (xp_grow((void **)buf, cap, *len + n + 1, 1))
		return -1;
	memcpy(*buf + *len, d, n);
	*len += n;
	(*buf)[*len] = '\0';
	return 0;
}
