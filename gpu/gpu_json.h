/* SPDX-License-Identifier: MIT */
/*
 * gpu_json.h - GPU records as TurnTrace's optional `gpu` object
 * (schema/README.md): {"activities": [...], "dropped_records": N, "source": S}.
 */
#ifndef XPERF_GPU_JSON_H
#define XPERF_GPU_JSON_H

#include <cjson/cJSON.h>

#include "gpu/gpu_records.h"

/* One activity object; NULL on allocation failure or an unknown kind. */
cJSON *gp_gpu_activity_json(const struct gp_gpu_rec *rec);

/*
 * The whole `gpu` object for recs[0..n) (in the given order); NULL on
 * allocation failure. The caller owns the result.
 */
cJSON *gp_gpu_json(const struct gp_gpu_rec *recs, size_t n, uint64_t dropped,
		   enum gp_gpu_source src);

#endif /* XPERF_GPU_JSON_H */
