// SPDX-License-Identifier: MIT
/*
 * gpu.c - GPU activity of a turn reduced to the few sums the intelligent-
 * domain L3 points need (HTA-style: busy time is the union of kernel and copy
 * intervals over all streams, gpu/intervals.h; idle is the phase minus busy).
 */
#include "analyze/model.h"

#include <stdlib.h>
#include <string.h>

#include "gpu/intervals.h"
#include "lib/json_int.h"

/* Length of the union of the intervals (gpu/intervals.h; s is normalized). */
static uint64_t union_len(struct gp_ivs *s)
{
	gp_ivs_norm(s);
	return gp_ivs_len(s);
}

int xa_gpu_stats(struct xa_trace *tr, const cJSON *gpu)
{
	const cJSON *acts = cJSON_GetObjectItemCaseSensitive(gpu, "activities");
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(gpu, "dropped_records");
	int n = cJSON_IsArray(acts) ? cJSON_GetArraySize(acts) : 0;
	struct gp_ivs busy = { 0 }, kern = { 0 };
	uint64_t lo = UINT64_MAX, hi = 0;
	const cJSON *a;

	if (!gpu)
		return 0;
	cJSON_ArrayForEach(a, acts) {
		const cJSON *k = cJSON_GetObjectItemCaseSensitive(a, "kind");
		int kind = th_gpu_kind_parse(cJSON_GetStringValue(k));
		uint64_t a0, b0;

		if (kind < 0 ||
		    xp_json_get_u64(cJSON_GetObjectItemCaseSensitive(a, "start_ns"), &a0) ||
		    xp_json_get_u64(cJSON_GetObjectItemCaseSensitive(a, "end_ns"), &b0) ||
		    b0 < a0 || b0 > XA_NS_MAX ||
		    (th_gpu_kind_on_device(kind) && gp_ivs_add(&busy, a0, b0)) ||
		    (kind == XP_GPU_KERNEL && gp_ivs_add(&kern, a0, b0)))
			goto fail;
		lo = a0 < lo ? a0 : lo;
		hi = b0 > hi ? b0 : hi;
		if (kind == XP_GPU_MEMCPY || kind == XP_GPU_MEMSET)
			tr->gpu.copy += b0 - a0;
		if (kind == XP_GPU_SYNC)
			tr->gpu.sync += b0 - a0;
		if (kind == XP_GPU_LAUNCH)
			tr->gpu.launch += b0 - a0;
	}
	tr->gpu.present = n > 0;
	tr->gpu.phase = n > 0 ? hi - lo : 0;
	tr->gpu.busy = union_len(&busy);
	tr->gpu.kernel = union_len(&kern);
	if (xp_json_get_u64(d, &tr->gpu.dropped))
		tr->gpu.dropped = 0;
	gp_ivs_free(&busy);
	gp_ivs_free(&kern);
	return 0;
fail:
	gp_ivs_free(&busy);
	gp_ivs_free(&kern);
	return -1;
}
