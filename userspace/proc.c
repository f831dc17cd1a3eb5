// SPDX-License-Identifier: MIT
/*
 * proc.c - the proc module: loads bpf/proc.bpf.c (fork, exec, exit of the
 * traced tree) and turns its records into JSON fields.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/proc.skel.h"
#include "lib/json_out.h"
#include "lib/secrets.h"
#include "userspace/exec_decode.h"
#include "userspace/json.h"
#include "userspace/module.h"
#include "userspace/procfs.h"

const struct xpc_module xpc_mod_proc;

/* --capture-payloads: a command line's -d/--data bodies are kept (write_json has no state). */
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
	obj->rodata->exec_untraced = xpc_options(c)->discover_execs;
	err = xpc_load_skeleton(c, obj->skeleton);
	if (err) {
		proc_bpf__destroy(obj);
		return err;
	}
	*state = obj;
	return 0;
}

int xpc_discover_names(struct xpc *c, const char *const *names, unsigned int n)
{
	struct proc_bpf *obj = xpc_module_state(c, &xpc_mod_proc);
	int fd = obj ? bpf_map__fd(obj->maps.discover_comm) : -1;
	char key[XP_COMM_LEN], next[XP_COMM_LEN];
	__u8 one = 1;

	if (fd < 0)
		return xpc_set_error(c, -ENOENT, "proc: not running");
	/* Empty it first: a reload removes the names no longer wanted. */
	while (!bpf_map_get_next_key(fd, NULL, next))
		if (bpf_map_delete_elem(fd, next))
			break;
	for (unsigned int i = 0; i < n; i++) {
		if (strlen(names[i]) >= XP_COMM_LEN - 1)
			return xpc_set_error(c, -ENAMETOOLONG, "%s: longer than 14 bytes", names[i]);
		strncpy(key, names[i], sizeof(key));	/* NUL-padded */
		if (bpf_map_update_elem(fd, key, &one, BPF_ANY))
			return xpc_set_error(c, -errno, "proc: discover_comm: %s", strerror(errno));
	}
	return 0;
}

static void proc_stop(void *state)
{
	proc_bpf__destroy(state);
}

static const __u32 proc_min_size[XP_EV_TYPE_MAX] = {
	[XP_EV_FORK] = sizeof(struct xk_fork),
	[XP_EV_EXEC] = XPC_EXEC_FIXED + 1,
	[XP_EV_EXIT] = sizeof(struct xk_exit),
};

/* The argv array being written, and the element before (the redactor reads the option). */
struct args_json {
	struct xp_jout *out;
	char *prev;
};

/* One argv element through the redactor ("-H", "Authorization: Bearer sk-..."). */
static void add_arg(void *ctx, const char *arg, size_t len)
{
	struct args_json *a = ctx;
	char *s = strndup(arg, len), *clean = s ? xp_redact_arg(a->prev, s, keep_bodies) : NULL;

	/* out of memory: a marker, never the unredacted text */
	xp_jout_str(a->out, NULL, clean ? clean : XP_SECRET_REDACTED);
	free(clean);
	free(a->prev);
	a->prev = s;
}

static void exec_json(const struct xk_exec *e, struct xp_jout *j)
{
	char cwd[XP_CWD_MAX + XP_CWD_DEPTH + 2], cid[XPC_CONTAINER_ID_LEN];
	struct args_json args = { j, NULL };

	if (xpc_exec_check(e, e->hdr.size)) {
		xp_jout_bool(j, "malformed", true);
		return;
	}
	xp_jout_u64(j, "ppid", e->ppid);
	xp_jout_u64(j, "uid", e->uid);
	xp_jout_strn(j, "comm", e->comm, sizeof(e->comm));
	xp_jout_str(j, "filename", e->data);
	xp_jout_open(j, "argv", '[');
	xpc_exec_args(e, add_arg, &args);
	xp_jout_close(j, ']');
	free(args.prev);
	if (xpc_exec_cwd(e, cwd, sizeof(cwd)) >= 0)
		xp_jout_str(j, "cwd", cwd);
	xp_jout_u64(j, "cgroup_id", e->cgroup_id);
	xp_jout_strn(j, "cgroup", e->cgroup, sizeof(e->cgroup));
	if (xpc_parse_container_id(e->cgroup, strnlen(e->cgroup, sizeof(e->cgroup)), cid))
		xp_jout_str(j, "container_id", cid);
	xp_jout_bool(j, "args_truncated", e->flags & XP_EXEC_ARGS_TRUNC);
	xp_jout_bool(j, "cwd_truncated", e->flags & XP_EXEC_CWD_TRUNC);
	xp_jout_bool(j, "cwd_outside_root", e->flags & XP_EXEC_CWD_UNREACHABLE);
}

static void exit_json(const struct xk_exit *e, struct xp_jout *j)
{
	xp_jout_u64(j, "ppid", e->ppid);
	xp_jout_strn(j, "comm", e->comm, sizeof(e->comm));
	xp_jout_u64(j, "exit_code", (e->exit_code >> 8) & 0xff);
	xp_jout_u64(j, "signal", e->exit_code & 0x7f);
	xp_jout_bool(j, "core_dumped", e->exit_code & 0x80);
	xp_jout_u64(j, "duration_ns", e->hdr.ts_ns - e->hdr.start_ns);
	xp_jout_u64(j, "cpu_ns", e->cpu_ns);
	xp_jout_u64(j, "utime_ns", e->utime_ns);
	xp_jout_u64(j, "stime_ns", e->stime_ns);
	xp_jout_u64(j, "maxrss_kb", e->maxrss_kb);
}

static void fork_json(const struct xk_fork *e, struct xp_jout *j)
{
	xp_jout_u64(j, "child_tgid", e->child_tgid);
	xp_jout_u64(j, "child_tid", e->child_tid);
	xp_jout_u64(j, "child_start_ns", e->child_start_ns);
	xp_jout_bool(j, "thread", e->flags & XP_FORK_THREAD);
	xp_jout_u64(j, "depth", e->depth);
	xp_jout_strn(j, "comm", e->comm, sizeof(e->comm));
}

static int proc_write_json(const struct xk_hdr *rec, struct xp_jout *j)
{
	switch (rec->type) {
	case XP_EV_FORK:
		fork_json((const struct xk_fork *)rec, j);
		return 0;
	case XP_EV_EXEC:
		exec_json((const struct xk_exec *)rec, j);
		return 0;
	case XP_EV_EXIT:
		exit_json((const struct xk_exit *)rec, j);
		return 0;
	default:
		return -ENOENT;
	}
}

const struct xpc_module xpc_mod_proc = {
	.name = "proc",
	.start = proc_start,
	.write_json = proc_write_json,
	.min_size = proc_min_size,
	.stop = proc_stop,
};
