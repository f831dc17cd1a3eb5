// SPDX-License-Identifier: MIT
/*
 * proc.c - the proc module: loads bpf/proc.bpf.c (fork, exec, exit of the
 * traced tree) and turns its records into JSON fields.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <bpf/libbpf.h>

#include "bpf/proc.skel.h"
#include "lib/json_int.h"
#include "lib/secrets.h"
#include "userspace/exec_decode.h"
#include "userspace/json.h"
#include "userspace/module.h"
#include "userspace/procfs.h"

/* --capture-payloads: a command line's -d/--data bodies are kept (to_json has no state). */
static bool keep_bodies;

static int proc_start(struct xpc *c, void **state)
{
	struct proc_bpf *obj = proc_bpf__open();
	int err;

	keep_bodies = xpc_options(c)->capture_payloads;
	if (!obj)
		return xpc_set_error(c, -errno, "proc: cannot open BPF object: %s",
				     strerror(errno));
	/* initialize global data (options) */
	obj->rodata->fork_threads = !xpc_options(c)->no_thread_events;
	err = xpc_load_skeleton(c, obj->skeleton);
	if (err) {
		proc_bpf__destroy(obj);
		return err;
	}
	*state = obj;
	return 0;
}

static void proc_stop(void *state)
{
	proc_bpf__destroy(state);
}

static __u32 proc_min_size(__u32 type)
{
	switch (type) {
	case XP_EV_FORK:
		return sizeof(struct xp_fork);
	case XP_EV_EXEC:
		return XP_EXEC_FIXED + 1;
	case XP_EV_EXIT:
		return sizeof(struct xp_exit);
	default:
		return 0;
	}
}

/* The argv array being built, and the element before (the redactor reads the option). */
struct args_json {
	cJSON *argv;
	char *prev;
};

/* One argv element through the redactor ("-H", "Authorization: Bearer sk-..."). */
static void add_arg(void *ctx, const char *arg, size_t len)
{
	struct args_json *a = ctx;
	char *s = strndup(arg, len), *clean = s ? xp_redact_arg(a->prev, s, keep_bodies) : NULL;

	/* out of memory: a marker, never the unredacted text */
	cJSON_AddItemToArray(a->argv, cJSON_CreateString(clean ? clean : XP_SECRET_REDACTED));
	free(clean);
	free(a->prev);
	a->prev = s;
}

static int exec_json(const struct xp_exec *e, cJSON *o)
{
	char cwd[XP_CWD_MAX + XP_CWD_DEPTH + 2], cid[XP_CONTAINER_ID_LEN];
	struct args_json args = { NULL, NULL };

	if (xp_exec_check(e, e->hdr.size)) {
		cJSON_AddBoolToObject(o, "malformed", 1);
		return 0;
	}
	cJSON_AddNumberToObject(o, "ppid", e->ppid);
	cJSON_AddNumberToObject(o, "uid", e->uid);
	xpc_json_add_strn(o, "comm", e->comm, sizeof(e->comm));
	cJSON_AddStringToObject(o, "filename", e->data);
	args.argv = cJSON_AddArrayToObject(o, "argv");
	xp_exec_args(e, add_arg, &args);
	free(args.prev);
	if (xp_exec_cwd(e, cwd, sizeof(cwd)) >= 0)
		cJSON_AddStringToObject(o, "cwd", cwd);
	xp_json_add_u64(o, "cgroup_id", e->cgroup_id);
	xpc_json_add_strn(o, "cgroup", e->cgroup, sizeof(e->cgroup));
	if (xp_parse_container_id(e->cgroup, strnlen(e->cgroup, sizeof(e->cgroup)), cid))
		cJSON_AddStringToObject(o, "container_id", cid);
	cJSON_AddBoolToObject(o, "args_truncated", e->flags & XP_EXEC_ARGS_TRUNC);
	cJSON_AddBoolToObject(o, "cwd_truncated", e->flags & XP_EXEC_CWD_TRUNC);
	cJSON_AddBoolToObject(o, "cwd_outside_root", e->flags & XP_EXEC_CWD_UNREACHABLE);
	return 0;
}

static int exit_json(const struct xp_exit *e, cJSON *o)
{
	cJSON_AddNumberToObject(o, "ppid", e->ppid);
	xpc_json_add_strn(o, "comm", e->comm, sizeof(e->comm));
	cJSON_AddNumberToObject(o, "exit_code", (e->exit_code >> 8) & 0xff);
	cJSON_AddNumberToObject(o, "signal", e->exit_code & 0x7f);
	cJSON_AddBoolToObject(o, "core_dumped", e->exit_code & 0x80);
	xp_json_add_u64(o, "duration_ns", e->hdr.ts_ns - e->hdr.start_ns);
	xp_json_add_u64(o, "cpu_ns", e->cpu_ns);
	xp_json_add_u64(o, "utime_ns", e->utime_ns);
	xp_json_add_u64(o, "stime_ns", e->stime_ns);
	xp_json_add_u64(o, "maxrss_kb", e->maxrss_kb);
	return 0;
}

static int fork_json(const struct xp_fork *e, cJSON *o)
{
	cJSON_AddNumberToObject(o, "child_tgid", e->child_tgid);
	cJSON_AddNumberToObject(o, "child_tid", e->child_tid);
	xp_json_add_u64(o, "child_start_ns", e->child_start_ns);
	cJSON_AddBoolToObject(o, "thread", e->flags & XP_FORK_THREAD);
	cJSON_AddNumberToObject(o, "depth", e->depth);
	xpc_json_add_strn(o, "comm", e->comm, sizeof(e->comm));
	return 0;
}

static int proc_to_json(const struct xp_hdr *rec, cJSON *o)
{
	switch (rec->type) {
	case XP_EV_FORK:
		return fork_json((const struct xp_fork *)rec, o);
	case XP_EV_EXEC:
		return exec_json((const struct xp_exec *)rec, o);
	case XP_EV_EXIT:
		return exit_json((const struct xp_exit *)rec, o);
	default:
		return -ENOENT;
	}
}

const struct xpc_module xpc_mod_proc = {
	.name = "proc",
	.start = proc_start,
	.to_json = proc_to_json,
	.min_size = proc_min_size,
	.stop = proc_stop,
};
