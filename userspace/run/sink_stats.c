// SPDX-License-Identifier: MIT
/*
 * sink_stats.c - `-o DIR`: DIR/<session>/capture.json, written atomically
 * (0600) at the end of the run: record and drop counts per type, each module's own
 * counters (e.g. libraries probed after exec), and the scheduler totals of
 * every traced thread (from XP_EV_THREAD_EXIT for threads that exited,
 * from the in-kernel map for those still alive).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "lib/atomic_file.h"
#include "lib/json_int.h"
#include "userspace/json.h"
#include "userspace/run/sink.h"

struct stats {
	const struct xpb_run *run;
	cJSON *threads;
};

static int stats_begin(const struct xpb_run *run, void **state)
{
	struct stats *s;

	if (!run->out_dir)
		return -EOPNOTSUPP;
	s = calloc(1, sizeof(*s));
	if (!s || !(s->threads = cJSON_CreateArray())) {
		free(s);
		return -ENOMEM;
	}
	s->run = run;
	*state = s;
	return 0;
}

static void add_thread(cJSON *arr, __u32 tid, const struct xk_sched_stats *st, bool exited)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return;
	cJSON_AddNumberToObject(o, "tid", tid);
	cJSON_AddNumberToObject(o, "tgid", st->tgid);
	xp_json_add_u64(o, "start_ns", st->start_ns);
	cJSON_AddBoolToObject(o, "exited", exited);
	xpc_sched_stats_json(st, o);
	cJSON_AddItemToArray(arr, o);
}

static int stats_event(void *state, const struct xk_hdr *rec)
{
	struct stats *s = state;

	if (rec->type == XP_EV_THREAD_EXIT)
		add_thread(s->threads, rec->tid, &((const struct xk_thread_exit *)rec)->stats,
			   true);
	return 0;
}

static int live_thread(void *ctx, __u32 tid, const struct xk_sched_stats *st)
{
	struct stats *s = ctx;

	if (!s->run->owns || s->run->owns(s->run, st->tgid))
		add_thread(s->threads, tid, st, false);
	return 0;
}

/* "bounds": the daemon's caps on the session's state and what they evicted. */
static void by_tier(cJSON *o, const char *key, const uint64_t v[2])
{
	cJSON *j = cJSON_AddObjectToObject(o, key);

	if (!j)
		return;
	xp_json_add_u64(j, "tls", v[0]);
	xp_json_add_u64(j, "socket", v[1]);
}

static void bounds_json(const struct xpb_bounds *b, cJSON *o)
{
	cJSON *j = cJSON_AddObjectToObject(o, "bounds");

	if (!j)
		return;
	cJSON_AddNumberToObject(j, "max_connections", b->max_connections);
	by_tier(j, "connections_peak", b->peak);
	by_tier(j, "connections_evicted", b->evicted);
	cJSON_AddNumberToObject(j, "max_processes", b->max_processes);
	xp_json_add_u64(j, "processes_evicted", b->processes_evicted);
	cJSON_AddNumberToObject(j, "max_sched_marks", b->max_sched_marks);
	xp_json_add_u64(j, "sched_marks_evicted", b->sched_marks_evicted);
}

static cJSON *summary(struct stats *s, struct xpc *c, const struct xpc_counts *counts)
{
	cJSON *o = cJSON_CreateObject(), *dq;

	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "abi_version", XP_ABI_VERSION);
	cJSON_AddNumberToObject(o, "root_pid", s->run->root);
	cJSON_AddItemToObject(o, "records", xpc_counts_json(counts->records));
	cJSON_AddItemToObject(o, "drops", xpc_counts_json(counts->drops));
	xp_json_add_u64(o, "dropped", xpc_counts_dropped(counts));
	xp_json_add_u64(o, "malformed", counts->malformed);
	dq = cJSON_AddObjectToObject(o, "data_quality");
	if (dq)
		xp_json_add_u64(dq, "turns_not_written",
				s->run->unwritten ? s->run->unwritten->turns : 0);
	cJSON_AddItemToObject(o, "modules", xpc_modules_json(c));
	if (s->run->bounds)
		bounds_json(s->run->bounds, o);
	xpc_thread_stats_each(c, live_thread, s);
	cJSON_AddItemToObject(o, "threads", s->threads);
	s->threads = NULL;
	return o;
}

static int stats_end(void *state, struct xpc *c, const struct xpc_counts *counts)
{
	struct stats *s = state;
	cJSON *o = c ? summary(s, c, counts) : NULL;
	char *text = o ? xp_json_print(o, 1) : NULL;
	char path[4096];
	int err = c ? -ENOMEM : 0;

	if (text) {
		snprintf(path, sizeof(path), "%s/%s/capture.json", s->run->out_dir,
			 s->run->session_id);
		err = xp_write_file_atomic(path, text, strlen(text));
		if (err)
			fprintf(stderr, "xperf-bpf: %s: %s\n", path, strerror(-err));
	}
	free(text);
	cJSON_Delete(o);
	cJSON_Delete(s->threads);
	free(s);
	return err;
}

const struct xpb_sink xpb_sink_stats = {
	.name = "stats",
	.begin = stats_begin,
	.on_event = stats_event,
	.end = stats_end,
};
