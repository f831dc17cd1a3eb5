// SPDX-License-Identifier: MIT
/*
 * sched.c - the sched module: loads bpf/sched.bpf.c (per-thread on-CPU,
 * run-queue and blocked time) and answers per-thread queries from its
 * in-kernel `tstats` map.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/sched.skel.h"
#include "lib/json_int.h"
#include "lib/json_out.h"
#include "userspace/json.h"
#include "userspace/module.h"

const struct xpc_module xpc_mod_sched;

static int sched_start(struct xpc *c, void **state)
{
	struct sched_bpf *obj = sched_bpf__open();
	int err;

	if (!obj)
		return xpc_set_error(c, -errno, "sched: cannot open BPF object: %s",
				     strerror(errno));
	/* initialize global data (options) */
	obj->rodata->sched_events = !xpc_options(c)->no_sched_events;
	err = xpc_load_skeleton(c, obj->skeleton);
	if (err) {
		sched_bpf__destroy(obj);
		return err;
	}
	*state = obj;
	return 0;
}

static void sched_stop(void *state)
{
	sched_bpf__destroy(state);
}

int xpc_thread_stats_each(struct xpc *c,
			  int (*fn)(void *ctx, __u32 tid, const struct xk_sched_stats *s),
			  void *ctx)
{
	struct sched_bpf *obj = xpc_module_state(c, &xpc_mod_sched);
	int fd = obj ? bpf_map__fd(obj->maps.tstats) : -1, ret;
	__u32 key, next, *prev = NULL;
	struct xk_sched_stats s;

	if (fd < 0)
		return xpc_set_error(c, -ENOENT, "scheduler tracing is not running");
	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &s))
			continue;	/* the thread exited meanwhile */
		ret = fn(ctx, key, &s);
		if (ret)
			return ret;
	}
	return 0;
}

static const __u32 sched_min_size[XP_EV_TYPE_MAX] = {
	[XP_EV_SCHED] = sizeof(struct xk_sched),
	[XP_EV_THREAD_EXIT] = sizeof(struct xk_thread_exit),
};

static const char *const state_names[XP_TS_MAX] = {
	[XP_TS_UNKNOWN] = "unknown",
	[XP_TS_ONCPU] = "oncpu",
	[XP_TS_RUNQ] = "runq",
	[XP_TS_BLOCKED] = "blocked",
};

static const char *state_name(unsigned int s)
{
	return s < XP_TS_MAX ? state_names[s] : "invalid";
}

/* The totals a thread's JSON shows (capture.json and XP_EV_THREAD_EXIT alike). */
#define STAT(f) { #f, offsetof(struct xk_sched_stats, f) }
static const struct {
	const char *name;
	size_t off;
} stat_fields[] = {
	STAT(oncpu_ns), STAT(runq_ns), STAT(blocked_ns), STAT(blocked_unint_ns),
	STAT(nr_voluntary), STAT(nr_involuntary), STAT(nr_wakeups),
};

static __u64 stat_value(const struct xk_sched_stats *s, size_t i)
{
	return *(const __u64 *)((const char *)s + stat_fields[i].off);
}

void xpc_sched_stats_json(const struct xk_sched_stats *s, cJSON *o)
{
	for (size_t i = 0; i < sizeof(stat_fields) / sizeof(stat_fields[0]); i++)
		xp_json_add_u64(o, stat_fields[i].name, stat_value(s, i));
}

static int sched_write_json(const struct xk_hdr *rec, struct xp_jout *j)
{
	const struct xk_sched *e = (const struct xk_sched *)rec;
	const struct xk_sched_stats *s = &((const struct xk_thread_exit *)rec)->stats;

	switch (rec->type) {
	case XP_EV_SCHED:
		xp_jout_str(j, "prev_state", state_name(e->prev_state));
		xp_jout_u64(j, "prev_ns", e->prev_ns);
		xp_jout_str(j, "state", state_name(e->state));
		xp_jout_bool(j, "uninterruptible", e->unint);
		return 0;
	case XP_EV_THREAD_EXIT:
		for (size_t i = 0; i < sizeof(stat_fields) / sizeof(stat_fields[0]); i++)
			xp_jout_u64(j, stat_fields[i].name, stat_value(s, i));
		return 0;
	default:
		return -ENOENT;
	}
}

const struct xpc_module xpc_mod_sched = {
	.name = "sched",
	.start = sched_start,
	.write_json = sched_write_json,
	.min_size = sched_min_size,
	.stop = sched_stop,
};
