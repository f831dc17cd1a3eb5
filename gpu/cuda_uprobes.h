/* SPDX-License-Identifier: MIT */
/*
 * cuda_uprobes.h - the uprobe fallback as a library, for xperf-cuda-probe
 * and for xperf-bpf (which loads bpf/cuda.bpf.c with its shared maps):
 * which function lives in which library, attaching the probes, and turning
 * a ring-buffer XP_EV_CUDA_CALL record into a GPU record.
 */
#ifndef XPERF_GPU_CUDA_UPROBES_H
#define XPERF_GPU_CUDA_UPROBES_H

#include <stddef.h>

#include "gpu/gpu_records.h"

struct bpf_object;
struct bpf_link;

enum xp_cuda_lib {
	XP_CUDA_LIB_CUDART, /* libcudart.so: cudaLaunchKernel, cudaMemcpy*, cuda*Synchronize */
	XP_CUDA_LIB_CUDA,   /* libcuda.so.1: cuLaunchKernel(Ex) */
	XP_CUDA_LIB_COUNT
};

/* Symbol probed for enum xp_cuda_fn `fn`; NULL when out of range. */
const char *xp_cuda_fn_name(unsigned fn);

/*
 * One XP_EV_CUDA_CALL ring record (len bytes) as a `launch` or `sync` GPU
 * record: start = entry, end = return. 0, or -1 when data is not one.
 */
int xp_cuda_call_to_rec(const void *data, size_t len, struct xp_gpu_rec *out);

/*
 * Attach the entry and return programs of cuda.bpf.o (loaded in obj) to
 * every function whose library path libs[lib] is non-empty, for all
 * processes (the BPF side filters on the `traced` map). links must have room
 * for 2 * XP_CUDA_FN_COUNT; *n_links counts what was attached. A line on
 * stderr names each library absent and each function that could not be
 * probed. Returns how many functions have both probes.
 */
int xp_cuda_attach(struct bpf_object *obj, const char *const libs[XP_CUDA_LIB_COUNT],
		   struct bpf_link **links, int *n_links);

#endif /* XPERF_GPU_CUDA_UPROBES_H */
