// SPDX-License-Identifier: MIT
/*
 * cuda_module.c - the cuda module of the capture core (module.h): the
 * zero-injection GPU fallback. Loads bpf/cuda.bpf.c with the core's shared
 * maps, puts uprobes on the CUDA runtime and driver libraries of every
 * process that becomes traced (cuda_libs.h: at attach and after each exec)
 * and turns its XP_EV_CUDA_CALL records into JSON. The records reach the
 * turns through the .xpgpu sink (gpu/sink_gpu.c). Off with --no-cuda.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <bpf/libbpf.h>

#include "bpf/cuda.skel.h"
#include "gpu/cuda_uprobes.h"
#include "userspace/cuda_libs.h"
#include "userspace/module.h"

struct cuda_probes {
	struct cuda_bpf *obj;
	struct cuda_libset *libs;
	struct bpf_link **links;
	size_t nlinks, cap;
	bool verbose;
};

static void cuda_stop(void *state)
{
	struct cuda_probes *p = state;

	if (!p)
		return;
	xpc_destroy_links(p->links, p->nlinks);
	free(p->links);
	cuda_bpf__destroy(p->obj);
	cuda_libset_free(p->libs);
	free(p);
}

static int cuda_start(struct xpc *c, void **state)
{
	struct cuda_probes *p;
	int err;

	if (xpc_options(c)->no_cuda)
		return -EOPNOTSUPP;
	p = calloc(1, sizeof(*p));
	if (!p || !(p->libs = cuda_libset_new())) {
		free(p);
		return xpc_set_error(c, -ENOMEM, "cuda: out of memory");
	}
	p->verbose = xpc_options(c)->verbose > 0;
	p->obj = cuda_bpf__open();
	err = p->obj ? xpc_load_skeleton(c, p->obj->skeleton)
		     : xpc_set_error(c, -errno, "cuda: cannot open BPF object: %s",
				     strerror(errno));
	if (err) {
		cuda_stop(p);
		return err;
	}
	*state = p;
	return 0;
}

/* cuda_lib_cb: probe one library file, keep its links. */
static int attach_lib(void *ctx, const char *path)
{
	struct cuda_probes *p = ctx;
	int n;

	if (p->nlinks + 2 * XP_CUDA_FN_COUNT > p->cap) {
		size_t cap = p->cap * 2 + 4 * XP_CUDA_FN_COUNT;
		struct bpf_link **grown = realloc(p->links, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		p->links = grown;
		p->cap = cap;
	}
	n = xp_cuda_attach_lib(p->obj->obj, path, p->links + p->nlinks);
	p->nlinks += n;
	if (p->verbose)
		fprintf(stderr, "xperf-bpf: cuda: %d probes on %s\n", n, path);
	return 0;
}

static int cuda_on_process(struct xpc *c, void *state, __u32 tgid)
{
	struct cuda_probes *p = state;
	int n = cuda_libs_scan_pid(p->libs, tgid, attach_lib, p);

	/* A process gone before we looked: nothing to attach, not an error. */
	if (n == -ENOENT || n == -ESRCH)
		return 0;
	if (n < 0)
		return xpc_set_error(c, n, "cuda: cannot probe the CUDA libraries of %u: %s", tgid,
				     strerror(-n));
	return 0;
}

static int cuda_to_json(const struct xp_hdr *rec, cJSON *o)
{
	const struct xp_cuda_call *call = (const struct xp_cuda_call *)rec;
	const char *fn;

	if (rec->type != XP_EV_CUDA_CALL)
		return -ENOENT;
	fn = xp_cuda_fn_name(call->fn);
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

static __u32 cuda_min_size(__u32 type)
{
	return type == XP_EV_CUDA_CALL ? sizeof(struct xp_cuda_call) : 0;
}

const struct xpc_module xpc_mod_cuda = {
	.name = "cuda",
	.start = cuda_start,
	.on_process = cuda_on_process,
	.to_json = cuda_to_json,
	.min_size = cuda_min_size,
	.stop = cuda_stop,
};
