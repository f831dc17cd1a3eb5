/* SPDX-License-Identifier: MIT */
/*
 * intervals.h - sets of half-open nanosecond intervals [start, end), kept
 * sorted and disjoint after xp_ivs_norm. Used by the GPU attribution.
 */
#ifndef XPERF_GPU_INTERVALS_H
#define XPERF_GPU_INTERVALS_H

#include <stddef.h>
#include <stdint.h>

#include "gpu/attribute.h"

struct xp_ivs {
	struct xp_gpu_interval *v;
	size_t n, cap;
};

/* Append [s, e) (empty intervals are ignored). 0, or -1 when out of memory. */
int xp_ivs_add(struct xp_ivs *s, uint64_t start, uint64_t end);
/* Sort and merge overlapping or touching intervals. */
void xp_ivs_norm(struct xp_ivs *s);
/* out = a ∩ b, both normalised. 0 or -1. */
int xp_ivs_intersect(const struct xp_ivs *a, const struct xp_ivs *b, struct xp_ivs *out);
/* out = a \ b, both normalised. 0 or -1. */
int xp_ivs_subtract(const struct xp_ivs *a, const struct xp_ivs *b, struct xp_ivs *out);
/* Total length. */
uint64_t xp_ivs_len(const struct xp_ivs *s);
/* Length of s ∩ [start, end), s normalised. */
uint64_t xp_ivs_overlap(const struct xp_ivs *s, uint64_t start, uint64_t end);
void xp_ivs_free(struct xp_ivs *s);

#endif /* XPERF_GPU_INTERVALS_H */
