/* SPDX-License-Identifier: MIT */
/*
 * intervals.h - sets of half-open nanosecond intervals [start, end), kept
 * sorted and disjoint after gp_ivs_norm. Used by the GPU attribution.
 */
#ifndef XPERF_GPU_INTERVALS_H
#define XPERF_GPU_INTERVALS_H

#include <stddef.h>
#include <stdint.h>

#include "gpu/attribute.h"

struct gp_ivs {
	struct gp_gpu_interval *v;
	size_t n, cap;
};

/* Append [s, e) (empty intervals are ignored). 0, or -1 when out of memory. */
int gp_ivs_add(struct gp_ivs *s, uint64_t start, uint64_t end);
/* Sort and merge overlapping or touching intervals. */
void gp_ivs_norm(struct gp_ivs *s);
/* out = a ∩ b, both normalised. 0 or -1. */
int gp_ivs_intersect(const struct gp_ivs *a, const struct gp_ivs *b, struct gp_ivs *out);
/* out = a \ b, both normalised. 0 or -1. */
int gp_ivs_subtract(const struct gp_ivs *a, const struct gp_ivs *b, struct gp_ivs *out);
/* Total length. */
uint64_t gp_ivs_len(const struct gp_ivs *s);
/* Length of s ∩ [start, end), s normalised. */
uint64_t gp_ivs_overlap(const struct gp_ivs *s, uint64_t start, uint64_t end);
void gp_ivs_free(struct gp_ivs *s);

#endif /* XPERF_GPU_INTERVALS_H */
