// SPDX-License-Identifier: MIT
/*
 * gpu_json.c - build the TurnTrace `gpu` object with cJSON. Integers are
 * written as JSON numbers; nanosecond values stay exact below 2^53 ns
 * (104 days of uptime), which cJSON's double representation guarantees.
 */
#include "gpu/gpu_json.h"

static int add_num(cJSON *o, const char *key, double v)
{
	return cJSON_AddNumberToObject(o, key, v) != NULL;
}

cJSON *xp_gpu_activity_json(const struct xp_gpu_rec *rec)
{
	const char *kind = xp_gpu_kind_name(rec->kind);
	cJSON *o;

	if (!kind)
		return NULL;
	o = cJSON_CreateObject();
	if (o && cJSON_AddStringToObject(o, "kind", kind) &&
	    cJSON_AddStringToObject(o, "name", rec->name) &&
	    add_num(o, "start_ns", (double)rec->start_ns) &&
	    add_num(o, "end_ns", (double)rec->end_ns) && add_num(o, "device", rec->device) &&
	    add_num(o, "stream", rec->stream) &&
	    add_num(o, "correlation_id", rec->correlation_id) &&
	    add_num(o, "bytes", (double)rec->bytes))
		return o;
	cJSON_Delete(o);
	return NULL;
}

cJSON *xp_gpu_json(const struct xp_gpu_rec *recs, size_t n, uint64_t dropped,
		   enum xp_gpu_source src)
{
	cJSON *gpu = cJSON_CreateObject();
	cJSON *acts = cJSON_AddArrayToObject(gpu, "activities");

	if (!acts)
		goto fail;
	for (size_t i = 0; i < n; i++) {
		cJSON *a = xp_gpu_activity_json(&recs[i]);

		if (!a)
			goto fail;
		cJSON_AddItemToArray(acts, a);
	}
	if (add_num(gpu, "dropped_records", (double)dropped) &&
	    cJSON_AddStringToObject(gpu, "source", xp_gpu_source_name(src)))
		return gpu;
fail:
	cJSON_Delete(gpu);
	return NULL;
}
