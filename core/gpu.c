// SPDX-License-Identifier: MIT
/*
 * gpu.c - the turn's `gpu` section typed (turn.h): its activities as
 * struct tt_gpu_act, read from the object the reader or the GPU merge
 * stored, in one place for every reader of GPU activity.
 */
#include "core/turn.h"

#include <stdlib.h>

#include "lib/json_int.h"

/* A non-negative integer member (validated); 0 when absent. */
static uint64_t u64_of(const cJSON *o, const char *key)
{
	uint64_t v;

	return xp_json_get_u64(cJSON_GetObjectItemCaseSensitive(o, key), &v) ? 0 : v;
}

int tt_gpu_acts(const struct tt_turn *t, struct tt_gpu_act **out, size_t *n)
{
	const cJSON *acts = cJSON_GetObjectItemCaseSensitive(t->gpu, "activities"), *it;
	struct tt_gpu_act *a = calloc((size_t)cJSON_GetArraySize(acts) + 1, sizeof(*a));

	*out = a;
	*n = 0;
	if (!a)
		return -1;
	cJSON_ArrayForEach(it, acts) {
		int kind = th_gpu_kind_parse(
			cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "kind")));

		if (kind < 0)
			return -2;
		a[(*n)++] = (struct tt_gpu_act){
			.kind = (enum th_gpu_kind)kind,
			.name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "name")),
			.start_ns = u64_of(it, "start_ns"),
			.end_ns = u64_of(it, "end_ns"),
			.device = u64_of(it, "device"),
			.stream = u64_of(it, "stream"),
			.correlation_id = u64_of(it, "correlation_id"),
			.bytes = u64_of(it, "bytes"),
			.json = it,
		};
	}
	return 0;
}

uint64_t tt_gpu_dropped(const struct tt_turn *t)
{
	return u64_of(t->gpu, "dropped_records");
}
