// SPDX-License-Identifier: MIT
/*
 * cuda_module.c - the cuda module of the capture core (module.h): the
 * zero-injection GPU fallback. Loads bpf/cuda.bpf.c with the core's shared
 * maps and gives each traced process that maps a CUDA runtime or driver
 * library uprobes of its own (cuda_probes.h): found at attach, exec and
 * fork, and from the map watch's XP_EV_MAP_EXEC records for libraries
 * mapped later; taken off at its exit. Turns its XP_EV_CUDA_CALL records
 * into JSON. The records reach the turns through the .xpgpu sink
 * (gpu/sink_gpu.c). Off with --no-cuda.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <bpf/libbpf.h>

#include "bpf/cuda.skel.h"
#include "gpu/cuda_uprobes.h"
#include "bpf/proc.h"
#include "bpf/tls.h"
#include "userspace/cuda_probes.h"
#include "userspace/module.h"

struct cuda_module {
	struct cuda_bpf *obj;
	struct xpc_cuda_probes *probes;
};

static void cuda_stop(void *state)
{
	struct cuda_module *m = state;

	if (!m)
		return;
	xpc_cuda_probes_free(m->probes);
	cuda_bpf__destroy(m->obj);
	free(m);
}

static int cuda_start(struct xpc *c, void **state)
{
	struct cuda_module *m;
	int err;

	if (xpc_options(c)->no_cuda)
		return -EOPNOTSUPP;
	m = calloc(1, sizeof(*m));
	if (!m)
		return xpc_set_error(c, -ENOMEM, "cuda: out of memory");
	m->obj = cuda_bpf__open();
	err = m->obj ? xpc_load_skeleton(c, m->obj->skeleton)
		     : xpc_set_error(c, -errno, "cuda: cannot open BPF object: %s",
				     strerror(errno));
	if (!err && xpc_cuda_probes_new(m->obj->obj, xpc_options(c)->verbose > 0, &m->probes))
		err = xpc_set_error(c, -ENOMEM, "cuda: out of memory");
	if (err) {
		cuda_stop(m);
		return err;
	}
	*state = m;
	return 0;
}

/* What a failed scan of a process says (xpc_scan_result). */
#define SCAN_FAILED "cuda: cannot probe the CUDA libraries"

static int cuda_on_process(struct xpc *c, void *state, __u32 tgid)
{
	struct cuda_module *m = state;

	return xpc_scan_result(c, xpc_cuda_probes_scan(m->probes, tgid), tgid, SCAN_FAILED);
}

static int cuda_on_record(struct xpc *c, void *state, const struct xk_hdr *rec)
{
	struct cuda_module *m = state;
	const struct xk_fork *f = (const void *)rec;

	switch (rec->type) {
	case XP_EV_MAP_EXEC:
		return xpc_scan_result(c, xpc_cuda_probes_on_map(m->probes, (const void *)rec),
				       rec->tgid, SCAN_FAILED);
	case XP_EV_FORK:
		if (f->flags & XP_FORK_THREAD)
			return 0;
		return xpc_scan_result(c, xpc_cuda_probes_on_fork(m->probes, rec->tgid, f->child_tgid),
				       f->child_tgid, SCAN_FAILED);
	case XP_EV_EXIT:
		xpc_cuda_probes_on_exit(m->probes, rec->tgid);
		return 0;
	default:
		return 0;
	}
}

static void cuda_stats_json(void *state, cJSON *o)
{
	const struct cuda_module *m = state;
	const struct xpc_cuda_stats *s = xpc_cuda_probes_stats(m->probes);

	cJSON_AddNumberToObject(o, "processes", (double)s->processes);
	cJSON_AddNumberToObject(o, "libraries", (double)s->libs);
	cJSON_AddNumberToObject(o, "probes", (double)s->probes);
	cJSON_AddNumberToObject(o, "map_records", (double)s->map_records);
	cJSON_AddNumberToObject(o, "rescans", (double)s->rescans);
	cJSON_AddNumberToObject(o, "attach_ms_max", s->attach_ns_max / 1e6);
	cJSON_AddNumberToObject(o, "exited", (double)s->exited);
}

static int cuda_to_json(const struct xk_hdr *rec, cJSON *o)
{
	const struct xk_cuda_call *call = (const struct xk_cuda_call *)rec;
	const char *fn;

	if (rec->type != XP_EV_CUDA_CALL)
		return -ENOENT;
	fn = gp_cuda_fn_name(call->fn);
	if (fn)
		cJSON_AddStringToObject(o, "fn", fn);
	else
		cJSON_AddNumberToObject(o, "fn", call->fn);
	cJSON_AddNumberToObject(o, "entry_ns", (double)call->entry_ns);
	cJSON_AddNumberToObject(o, "duration_ns", (double)(rec->ts_ns - call->entry_ns));
	cJSON_AddNumberToObject(o, "bytes", (double)call->bytes);
	cJSON_AddNumberToObject(o, "target", (double)call->target);
	cJSON_AddNumberToObject(o, "ret", call->ret);
	return 0;
}

static const __u32 cuda_min_size[XP_EV_TYPE_MAX] = {
	[XP_EV_CUDA_CALL] = sizeof(struct xk_cuda_call),
};

const struct xpc_module xpc_mod_cuda = {
	.name = "cuda",
	.start = cuda_start,
	.on_process = cuda_on_process,
	.on_record = cuda_on_record,
	.stats_json = cuda_stats_json,
	.to_json = cuda_to_json,
	.min_size = cuda_min_size,
	.stop = cuda_stop,
};
