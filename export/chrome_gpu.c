// SPDX-License-Identifier: MIT
/*
 * chrome_gpu.c - a turn's GPU activity (its `gpu` section, gpu/turn_gpu.c)
 * on device tracks: GPU d is a process, each stream a thread for the work
 * the device did (kernels, copies, sets), and one "host calls" thread for
 * the calls the host made (launch, sync, overhead). A flow arrow goes from
 * each launch to the device work with the same correlation id.
 */
#include "export/chrome.h"

#include <stdlib.h>
#include <string.h>

#include "lib/json_int.h"

/* Activity kinds that are host calls, not device work. */
static const char *const host_kinds[] = { "launch", "sync", "overhead" };

struct act {
	const cJSON *item;
	const char *kind;
	uint64_t start, end;
	int64_t pid, corr, tid;
	int host;
};

/* A non-negative integer member of a validated activity; 0 when absent. */
static uint64_t u64_of(const cJSON *act, const char *key)
{
	uint64_t v;

	return xp_json_get_u64(cJSON_GetObjectItemCaseSensitive(act, key), &v) ? 0 : v;
}

static int by_time(const void *a, const void *b)
{
	const struct act *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->end < y->end) - (x->end > y->end);
}

/* Launches first, by correlation id: the flow sources. */
static int by_launch_corr(const void *a, const void *b)
{
	const struct act *x = *(const struct act *const *)a, *y = *(const struct act *const *)b;
	int lx = !strcmp(x->kind, "launch"), ly = !strcmp(y->kind, "launch");

	if (lx != ly)
		return ly - lx;
	return (x->corr > y->corr) - (x->corr < y->corr);
}

static int is_host(const char *kind)
{
	for (size_t i = 0; i < sizeof(host_kinds) / sizeof(host_kinds[0]); i++)
		if (!strcmp(kind, host_kinds[i]))
			return 1;
	return 0;
}

/* process_name of GPU pid, once per export. 0 ok, -1 memory. */
static int name_device(struct chrome *c, struct xe_out *o, int64_t pid)
{
	char name[48];
	int64_t *p;

	for (size_t i = 0; i < c->ngpu_named; i++)
		if (c->gpu_named[i] == pid)
			return 0;
	if (!(p = realloc(c->gpu_named, (c->ngpu_named + 1) * sizeof(*p))))
		return -1;
	c->gpu_named = p;
	p[c->ngpu_named++] = pid;
	snprintf(name, sizeof(name), "GPU %lld", (long long)(pid - XE_GPU_PID_BASE));
	xe_chrome_meta(o, "process_name", pid, 0, name);
	return 0;
}

static int put_activity(struct chrome *c, struct act *a, struct xe_out *o)
{
	const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(a->item, "name"));
	int64_t stream = (int64_t)u64_of(a->item, "stream");
	char track[48];
	cJSON *ev, *args;

	if (name_device(c, o, a->pid))
		return -1;
	snprintf(track, sizeof(track), a->host ? "host calls" : "stream %lld", (long long)stream);
	ev = xe_chrome_slice(c, o, a->pid, a->host ? XE_TID_GPU_HOST : stream, a->start, a->end,
			     track, "gpu", name ? name : a->kind, &a->tid);
	if (!ev)
		return -1;
	args = cJSON_Duplicate(a->item, 1);
	cJSON_DeleteItemFromObjectCaseSensitive(args, "start_ns");
	cJSON_DeleteItemFromObjectCaseSensitive(args, "end_ns");
	xp_json_add_u64(args, "dur_ns", a->end - a->start);
	cJSON_AddItemToObject(ev, "args", args);
	xe_put(o, ev);
	return 0;
}

static void put_flow_end(const struct chrome *c, struct xe_out *o, const char *ph, int64_t id,
			 const struct act *a)
{
	cJSON *ev = xe_chrome_event(ph, a->pid, a->tid, xe_chrome_us(c, a->start), "gpu", "launch");

	cJSON_AddNumberToObject(ev, "id", (double)id);
	if (!strcmp(ph, "f"))
		cJSON_AddStringToObject(ev, "bp", "e"); /* bind to the slice it lands in */
	xe_put(o, ev);
}

/* A flow from the launch of each device activity (same correlation id) to it. */
static int put_flows(struct chrome *c, struct act *a, size_t n, struct xe_out *o)
{
	struct act **ix = malloc((n ? n : 1) * sizeof(*ix));
	size_t nl = 0;

	if (!ix)
		return -1;
	for (size_t i = 0; i < n; i++)
		ix[i] = &a[i];
	qsort(ix, n, sizeof(*ix), by_launch_corr);
	while (nl < n && !strcmp(ix[nl]->kind, "launch"))
		nl++;
	for (size_t i = 0; i < n; i++) {
		struct act key = { .kind = "launch", .corr = a[i].corr }, *pk = &key, **hit;

		if (a[i].host || !a[i].corr)
			continue;
		hit = bsearch(&pk, ix, nl, sizeof(*ix), by_launch_corr);
		if (!hit)
			continue;
		put_flow_end(c, o, "s", ++c->flows, *hit);
		put_flow_end(c, o, "f", c->flows, &a[i]);
	}
	free(ix);
	return 0;
}

int xe_chrome_gpu(struct chrome *c, const struct xe_turn *t, struct xe_out *o)
{
	const cJSON *acts = cJSON_GetObjectItemCaseSensitive(t->turn->gpu, "activities"), *it;
	size_t n = 0;
	struct act *a = calloc((size_t)cJSON_GetArraySize(acts) + 1, sizeof(*a));
	int rc = 0;

	if (!a)
		return -1;
	cJSON_ArrayForEach(it, acts)
	{
		const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "kind"));

		a[n++] = (struct act){ .item = it,
				       .kind = kind,
				       .start = u64_of(it, "start_ns"),
				       .end = u64_of(it, "end_ns"),
				       .pid = XE_GPU_PID_BASE + (int64_t)u64_of(it, "device"),
				       .corr = (int64_t)u64_of(it, "correlation_id"),
				       .host = is_host(kind) };
	}
	qsort(a, n, sizeof(*a), by_time);
	for (size_t i = 0; !rc && i < n; i++)
		rc = put_activity(c, &a[i], o);
	if (!rc)
		rc = put_flows(c, a, n, o);
	free(a);
	return rc;
}
