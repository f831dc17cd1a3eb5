// SPDX-License-Identifier: MIT
/*
 * chrome_gpu.c - a turn's GPU activity (its typed `gpu` section, core/turn.h)
 * on device tracks: GPU d is a process, each stream a
 * thread for the work the device did (kernels, copies, sets), and one "host calls" thread for
 * the calls the host made (launch, sync, overhead). A flow arrow goes from
 * each launch to the device work with the same correlation id.
 */
#include "export/chrome.h"

#include <stdlib.h>
#include <string.h>

#include "core/write.h"
#include "lib/grow.h"
#include "lib/json_int.h"

/* An activity as drawn: the core's typed one, its device's pid, the tid it landed on. */
struct act {
	const struct tt_gpu_act *a;
	int64_t pid, tid;
	int host; /* a host call (launch, sync, overhead), not device work */
};

static int by_time(const void *a, const void *b)
{
	const struct tt_gpu_act *x = ((const struct act *)a)->a, *y = ((const struct act *)b)->a;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return (x->end_ns < y->end_ns) - (x->end_ns > y->end_ns);
}

/* Launches first, by correlation id: the flow sources. */
static int by_launch_corr(const void *a, const void *b)
{
	const struct tt_gpu_act *x = (*(const struct act *const *)a)->a;
	const struct tt_gpu_act *y = (*(const struct act *const *)b)->a;
	int lx = x->kind == XP_GPU_LAUNCH, ly = y->kind == XP_GPU_LAUNCH;

	if (lx != ly)
		return ly - lx;
	return (x->correlation_id > y->correlation_id) - (x->correlation_id < y->correlation_id);
}

/* process_name of GPU pid, once per export. 0 ok, -1 memory. */
static int name_device(struct chrome *c, struct xe_out *o, int64_t pid)
{
	char name[48];

	for (size_t i = 0; i < c->ngpu_named; i++)
		if (c->gpu_named[i] == pid)
			return 0;
	if (xp_grow((void **)&c->gpu_named, &c->cap_gpu_named, c->ngpu_named + 1,
		    sizeof(*c->gpu_named)))
		return -1;
	c->gpu_named[c->ngpu_named++] = pid;
	snprintf(name, sizeof(name), "GPU %lld", (long long)(pid - XE_GPU_PID_BASE));
	xe_chrome_meta(o, "process_name", pid, 0, name);
	return 0;
}

static int put_activity(struct chrome *c, struct act *a, struct xe_out *o)
{
	const struct tt_gpu_act *g = a->a;
	int64_t stream = (int64_t)g->stream;
	char track[48];
	cJSON *ev, *args;

	if (name_device(c, o, a->pid))
		return -1;
	snprintf(track, sizeof(track), a->host ? "host calls" : "stream %lld", (long long)stream);
	ev = xe_chrome_slice(c, o, a->pid, a->host ? XE_TID_GPU_HOST : stream, g->start_ns,
			     g->end_ns, track, "gpu", g->name ? g->name : th_gpu_kind_names[g->kind],
			     &a->tid);
	if (!ev)
		return -1;
	args = tt_gpu_act_json(g); /* the activity as written, its times as ts and dur */
	cJSON_DeleteItemFromObjectCaseSensitive(args, "start_ns");
	cJSON_DeleteItemFromObjectCaseSensitive(args, "end_ns");
	xp_json_add_u64(args, "dur_ns", g->end_ns - g->start_ns);
	cJSON_AddItemToObject(ev, "args", args);
	xe_put(o, ev);
	return 0;
}

static void put_flow_end(const struct chrome *c, struct xe_out *o, const char *ph, int64_t id,
			 const struct act *a)
{
	cJSON *ev = xe_chrome_event(ph, a->pid, a->tid, xe_chrome_us(c, a->a->start_ns), "gpu",
				    "launch");

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
	while (nl < n && ix[nl]->a->kind == XP_GPU_LAUNCH)
		nl++;
	for (size_t i = 0; i < n; i++) {
		struct tt_gpu_act launch = { .kind = XP_GPU_LAUNCH,
					     .correlation_id = a[i].a->correlation_id };
		struct act key = { .a = &launch }, *pk = &key, **hit;

		if (a[i].host || !launch.correlation_id)
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
	size_t n = t->turn->gpu ? t->turn->gpu->nacts : 0;
	const struct tt_gpu_act *g = n ? t->turn->gpu->acts : NULL;
	struct act *a = calloc(n + 1, sizeof(*a));
	int rc = a ? 0 : -1;

	for (size_t i = 0; !rc && i < n; i++)
		a[i] = (struct act){ .a = &g[i],
				     .pid = XE_GPU_PID_BASE + (int64_t)g[i].device,
				     .host = !th_gpu_kind_on_device(g[i].kind) };
	if (!rc)
		qsort(a, n, sizeof(*a), by_time);
	for (size_t i = 0; !rc && i < n; i++)
		rc = put_activity(c, &a[i], o);
	if (!rc)
		rc = put_flows(c, a, n, o);
	free(a);
	return rc;
}
