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

/* Length of the union of the intervals (gpu/intervals.h; s is normalized). */
static uint64_t union_len(struct gp_ivs *s)
{
	gp_ivs_norm(s);
	return gp_ivs_len(s);
}

int xa_gpu_stats(struct xa_trace *tr, const struct tt_turn *t)
{
	size_t n = t->gpu ? t->gpu->nacts : 0;
	struct gp_ivs busy = { 0 }, kern = { 0 };
	uint64_t lo = UINT64_MAX, hi = 0;
	int rc = 0;

	for (size_t i = 0; i < n; i++) {
		const struct tt_gpu_act *a = &t->gpu->acts[i];
		uint64_t a0 = a->start_ns, b0 = a->end_ns;

		if (b0 < a0 || b0 > XA_NS_MAX ||
		    (th_gpu_kind_on_device(a->kind) && gp_ivs_add(&busy, a0, b0)) ||
		    (a->kind == XP_GPU_KERNEL && gp_ivs_add(&kern, a0, b0))) {
			rc = -1;
			break;
		}
		lo = a0 < lo ? a0 : lo;
		hi = b0 > hi ? b0 : hi;
		if (a->kind == XP_GPU_MEMCPY || a->kind == XP_GPU_MEMSET)
			tr->gpu.copy += b0 - a0;
		if (a->kind == XP_GPU_SYNC)
			tr->gpu.sync += b0 - a0;
		if (a->kind == XP_GPU_LAUNCH)
			tr->gpu.launch += b0 - a0;
	}
	if (!rc) {
		tr->gpu.phase = n > 0 ? hi - lo : 0;
		tr->gpu.busy = union_len(&busy);
		tr->gpu.kernel = union_len(&kern);
	}
	gp_ivs_free(&busy);
	gp_ivs_free(&kern);
	return rc;
}
