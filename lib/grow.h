/* SPDX-License-Identifier: MIT */
/*
 * grow.h - the growable array every module uses: an array *arr of *cap
 * elements of `size` bytes grows (doubling, at least 16) to hold `need`.
 */
#ifndef XPERF_LIB_GROW_H
#define XPERF_LIB_GROW_H

#include <stddef.h>

/* 0, or -1 on ENOMEM (the array is unchanged). */
int xp_grow(void **arr, size_t *cap, size_t need, size_t size);

/*
 * Text built piece by piece: d[0..n) appended to the *len bytes of *buf
 * (grown as above), a NUL kept after them. 0, or -1 on ENOMEM (unchanged).
 */
int xp_buf_append(char **buf, size_t *len, size_t *cap, const void *d, size_t n);

#endif /* XPERF_LIB_GROW_H */
