// SPDX-License-Identifier: MIT
/*
 * cuda_uprobes.c - the table of probed CUDA functions (data, indexed by
 * enum xk_cuda_fn), which library a file is, attachment by symbol name,
 * record conversion.
 */
#include "gpu/cuda_uprobes.h"

#include <errno.h>
#include <linux/types.h>
#include <stdio.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "bpf/xperf.h"
#include "bpf/cuda.h"
#include "bpf/uprobe_attach.h"

static const struct {
	const char *sym;
	enum gp_cuda_lib lib;
	enum th_gpu_kind kind;
} fns[XP_CUDA_FN_COUNT] = {
	[XP_CUDA_LAUNCH_KERNEL] = {"cudaLaunchKernel", XP_CUDA_LIB_CUDART, XP_GPU_LAUNCH},
	[XP_CUDA_MEMCPY] = {"cudaMemcpy", XP_CUDA_LIB_CUDART, XP_GPU_LAUNCH},
	[XP_CUDA_MEMCPY_ASYNC] = {"cudaMemcpyAsync", XP_CUDA_LIB_CUDART, XP_GPU_LAUNCH},
	[XP_CUDA_STREAM_SYNC] = {"cudaStreamSynchronize", XP_CUDA_LIB_CUDART, XP_GPU_SYNC},
	[XP_CUDA_DEVICE_SYNC] = {"cudaDeviceSynchronize", XP_CUDA_LIB_CUDART, XP_GPU_SYNC},
	[XP_CUDA_CU_LAUNCH_KERNEL] = {"cuLaunchKernel", XP_CUDA_LIB_CUDA, XP_GPU_LAUNCH},
	[XP_CUDA_CU_LAUNCH_KERNEL_EX] = {"cuLaunchKernelEx", XP_CUDA_LIB_CUDA, XP_GPU_LAUNCH},
};

const char *gp_cuda_fn_name(unsigned fn)
{
	return fn < XP_CUDA_FN_COUNT ? fns[fn].sym : NULL;
}

int gp_cuda_call_to_rec(const void *data, size_t len, struct gp_gpu_rec *out)
{
	const struct xk_cuda_call *c = data;

	if (len < sizeof(*c) || c->hdr.type != XP_EV_CUDA_CALL || c->fn >= XP_CUDA_FN_COUNT ||
	    c->hdr.ts_ns < c->entry_ns)
		return -1;
	*out = (struct gp_gpu_rec){ .kind = fns[c->fn].kind, .start_ns = c->entry_ns,
				    .end_ns = c->hdr.ts_ns, .bytes = c->bytes };
	snprintf(out->name, sizeof(out->name), "%s", fns[c->fn].sym);
	return 0;
}

int gp_cuda_lib_of(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	/* libcudart.so.13, or a wheel's renamed copy (libcudart-1a2b3c4d.so.12) */
	if (!strncmp(base, "libcudart", 9) && (base[9] == '.' || base[9] == '-') &&
	    strstr(base, ".so"))
		return XP_CUDA_LIB_CUDART;
	if (!strncmp(base, "libcuda.so", 10))
		return XP_CUDA_LIB_CUDA;
	return -1;
}

/* Entry and return probe of function f on path into links[0..1]; 0 or -errno. */
static int attach_fn(struct bpf_object *obj, int f, const char *path, int pid,
		     struct bpf_link *links[2])
{
	for (int ret = 0; ret < 2; ret++) {
		struct bpf_program *p;
		char name[64];

		snprintf(name, sizeof(name), "%s_%s", ret ? "exit" : "enter", fns[f].sym);
		p = bpf_object__find_program_by_name(obj, name);
		errno = ENOENT;
		links[ret] = p ? xk_uprobe_attach(p, pid, path, fns[f].sym, 0, ret, 0) : NULL;
		if (!links[ret]) {
			int err = -errno;

			if (ret)
				bpf_link__destroy(links[0]);
			return err;
		}
	}
	return 0;
}

int gp_cuda_attach_lib(struct bpf_object *obj, const char *path, int pid,
		       struct bpf_link *links[2 * XP_CUDA_FN_COUNT])
{
	int lib = gp_cuda_lib_of(path), n = 0;

	for (int f = 0; f < XP_CUDA_FN_COUNT; f++) {
		int err;

		if ((int)fns[f].lib != lib)
			continue;
		err = attach_fn(obj, f, path, pid, links + n);
		if (err)
			fprintf(stderr, "xperf-bpf: cuda: %s: cannot probe %s: %s\n", path,
				fns[f].sym, strerror(-err));
		else
			n += 2;
	}
	return n;
}
