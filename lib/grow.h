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

#endif /* XPERF_LIB_GROW_H */
