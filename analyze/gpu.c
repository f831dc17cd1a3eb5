// SPDX-License-Identifier: MIT
/*
 * gpu.c - GPU activity of a turn reduced to the few sums the intelligent-
 * domain L3 points need (HTA-style: busy time is the union of kernel and copy
 * intervals over all streams, idle is the phase minus busy).
 */
#include "analyze/model.h"

#include <stdlib.h>
#include <string.h>

#include "lib/json_int.h"

struct ival {
	uint64_t a, b;
};

static int cmp_ival(const void *x, const void *y)
{
	const struct ival *p = x, *q = y;

	return p->a < q->a ? -1 : p->a > q->a;
}

/* Length of the union of n intervals (sorts v). */
static uint64_t union_len(struct ival *v, size_t n)
{
	uint64_t sum = 0, a = 0, b = 0;

	qsort(v, n, sizeof(*v), cmp_ival);
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || v[i].a > b) {
			sum += b - a;
			a = v[i].a;
			b = v[i].b;
		} else if (v[i].b > b) {
			b = v[i].b;
		}
	}
	return n ? sum + (b - a) : 0;
}

int xa_gpu_stats(struct xa_trace *tr, const cJSON *gpu)
{
	const cJSON *acts = cJSON_GetObjectItemCaseSensitive(gpu, "activities");
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(gpu, "dropped_records");
	int n = cJSON_IsArray(acts) ? cJSON_GetArraySize(acts) : 0;
	struct ival *busy, *kern;
	size_t nb = 0, nk = 0;
	uint64_t lo = UINT64_MAX, hi = 0;
	const cJSON *a;

	if (!gpu)
		return 0;
	busy = calloc((size_t)n + 1, sizeof(*busy));
	kern = calloc((size_t)n + 1, sizeof(*kern));
	if (!busy || !kern)
		goto fail;
	cJSON_ArrayForEach(a, acts) {
		const cJSON *k = cJSON_GetObjectItemCaseSensitive(a, "kind");
		int kind = xp_gpu_kind_parse(cJSON_GetStringValue(k));
		struct ival v;

		if (kind < 0 ||
		    xp_json_get_u64(cJSON_GetObjectItemCaseSensitive(a, "start_ns"), &v.a) ||
		    xp_json_get_u64(cJSON_GetObjectItemCaseSensitive(a, "end_ns"), &v.b) ||
		    v.b < v.a || v.b > XA_NS_MAX)
			goto fail;

		lo = v.a < lo ? v.a : lo;
		hi = v.b > hi ? v.b : hi;
		if (xp_gpu_kind_on_device(kind))
			busy[nb++] = v;
		if (kind == XP_GPU_KERNEL)
			kern[nk++] = v;
		if (kind == XP_GPU_MEMCPY || kind == XP_GPU_MEMSET)
			tr->gpu.copy += v.b - v.a;
		if (kind == XP_GPU_SYNC)
			tr->gpu.sync += v.b - v.a;
		if (kind == XP_GPU_LAUNCH)
			tr->gpu.launch += v.b - v.a;
	}
	tr->gpu.present = n > 0;
	tr->gpu.phase = n > 0 ? hi - lo : 0;
	tr->gpu.busy = union_len(busy, nb);
	tr->gpu.kernel = union_len(kern, nk);
	if (xp_json_get_u64(d, &tr->gpu.dropped))
		tr->gpu.dropped = 0;
	free(busy);
	free(kern);
	return 0;
fail:
	free(busy);
	free(kern);
	return -1;
}
