// SPDX-License-Identifier: MIT
/*
 * gpu_json.c - build the TurnTrace `gpu` object with cJSON. Integers are
 * written as exact JSON integer literals (lib/json_int.h): nanosecond stamps
 * pass 2^53, where a double stops being exact, after 104 days of uptime.
 */
#include "gpu/gpu_json.h"

#include "lib/json_int.h"

static int add_num(cJSON *o, const char *key, uint64_t v)
{
	return xp_json_add_u64(o, key, v) != NULL;
}

cJSON *gp_gpu_activity_json(const struct gp_gpu_rec *rec)
{
	const char *kind = gp_gpu_kind_name(rec->kind);
	cJSON *o;

	if (!kind)
		return NULL;
	o = cJSON_CreateObject();
	if (o && cJSON_AddStringToObject(o, "kind", kind) &&
	    cJSON_AddStringToObject(o, "name", rec->name) &&
	    add_num(o, "start_ns", rec->start_ns) &&
	    add_num(o, "end_ns", rec->end_ns) && add_num(o, "device", rec->device) &&
	    add_num(o, "stream", rec->stream) &&
	    add_num(o, "correlation_id", rec->correlation_id) &&
	    add_num(o, "bytes", rec->bytes))
		return o;
	cJSON_Delete(o);
	return NULL;
}

cJSON *gp_gpu_json(const struct gp_gpu_rec *recs, size_t n, uint64_t dropped,
		   enum gp_gpu_source src)
{
	cJSON *gpu = cJSON_CreateObject();
	cJSON *acts = cJSON_AddArrayToObject(gpu, "activities");

	if (!acts)
		goto fail;
	for (size_t i = 0; i < n; i++) {
		cJSON *a = gp_gpu_activity_json(&recs[i]);

		if (!a)
			goto fail;
		cJSON_AddItemToArray(acts, a);
	}
	if (add_num(gpu, "dropped_records", dropped) &&
	    cJSON_AddStringToObject(gpu, "source", gp_gpu_source_name(src)))
		return gpu;
fail:
	cJSON_Delete(gpu);
	return NULL;
}
