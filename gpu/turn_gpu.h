/* SPDX-License-Identifier: MIT */
/*
 * turn_gpu.h - GPU records <-> the turn's typed `gpu` section (core/turn.h),
 * for the turn assembler (merge), `xperf gpu` (breakdown of a written turn)
 * and xpgpu-dump.
 */
#ifndef XPERF_GPU_TURN_GPU_H
#define XPERF_GPU_TURN_GPU_H

#include <stddef.h>

#include "core/turn.h"
#include "gpu/attribute.h"
#include "gpu/gpu_records.h"
#include "schema/validate.h"

/*
 * recs[0..n) as a `gpu` section (every member given), with dropped and src;
 * NULL on ENOMEM or a record of no known kind. The caller frees it (tt_gpu_free).
 */
struct tt_gpu *gp_gpu_section(const struct gp_gpu_rec *recs, size_t n, uint64_t dropped,
			      enum gp_gpu_source src);

/*
 * Set the turn's `gpu` section (replacing one already there) to the records
 * of set that overlap an intelligent span of the turn, clipped to the turn's
 * [start_ns, end_ns] so the file stays valid, in start order; plus the set's
 * dropped count and source. The set's notices become data_quality.warnings
 * ("gpu: ...", once each). A turn without intelligent spans gets no `gpu`.
 * Returns the number of activities merged, or -1 on allocation failure.
 */
int gp_gpu_merge_turn(struct tt_turn *turn, const struct gp_gpu_set *set);

/*
 * Merge set into the turn file at path (validated first; rewritten
 * atomically, mode 0600, unless set came from no record file). Returns the number of activities merged; -1 when
 * the file is not a valid turn (each error also goes to cb), -2 when it
 * cannot be written; "path: why" in err.
 */
int gp_gpu_merge_file(const char *path, const struct gp_gpu_set *set, sc_verror_fn cb, void *ctx,
		      char *err, size_t errlen);

/*
 * Breakdown of a written turn: its gpu.activities attributed over its
 * intelligent spans. Returns 0; 1 when the turn has no `gpu` object (out
 * zeroed); -1 with "pointer: why" in err when an activity is malformed.
 */
int gp_gpu_turn_breakdown(const struct tt_turn *turn, struct gp_gpu_breakdown *out, char *err,
			  size_t errlen);

#endif /* XPERF_GPU_TURN_GPU_H */
