/* SPDX-License-Identifier: MIT */
/*
 * cuda_uprobes.h - the uprobe fallback's GPU-side knowledge, for the cuda
 * module of xperf-bpf (userspace/cuda_module.c, which loads bpf/cuda.bpf.c
 * with the core's shared maps) and its .xpgpu sink (gpu/sink_gpu.c): which
 * function lives in which library, attaching the probes to one library
 * file, and turning a ring-buffer XP_EV_CUDA_CALL record into a GPU record.
 */
#ifndef XPERF_GPU_CUDA_UPROBES_H
#define XPERF_GPU_CUDA_UPROBES_H

#include <linux/types.h>
#include <stddef.h>

#include "bpf/xperf.h"
#include "bpf/cuda.h"
#include "gpu/gpu_records.h"

struct bpf_object;
struct bpf_link;

enum gp_cuda_lib {
	XP_CUDA_LIB_CUDART, /* libcudart.so: cudaLaunchKernel, cudaMemcpy*, cuda*Synchronize */
	XP_CUDA_LIB_CUDA,   /* libcuda.so.1: cuLaunchKernel(Ex) */
};

/* Symbol probed for enum xk_cuda_fn `fn`; NULL when out of range. */
const char *gp_cuda_fn_name(unsigned fn);

/*
 * One XP_EV_CUDA_CALL ring record (len bytes) as a `launch` or `sync` GPU
 * record: start = entry, end = return. 0, or -1 when data is not one.
 */
int gp_cuda_call_to_rec(const void *data, size_t len, struct gp_gpu_rec *out);

/*
 * The CUDA library a file is, by its base name: XP_CUDA_LIB_CUDART for
 * libcudart.so* (and a wheel's renamed libcudart-HASH.so*), XP_CUDA_LIB_CUDA
 * for libcuda.so*, -1 for anything else (libcudart_static.a, libcudnn...).
 */
int gp_cuda_lib_of(const char *path);

/*
 * Attach the entry and return programs of cuda.bpf.o (loaded in obj) to
 * every function the library file at path defines (gp_cuda_lib_of), for
 * process pid only (the kernel plants breakpoints in that process alone;
 * -1: every process mapping the file, filtered in BPF). Fills links
 * and returns how many were made: both probes of a function or neither (an
 * entry without its return would leave calls open); a line on stderr names
 * each function that could not be probed.
 */
int gp_cuda_attach_lib(struct bpf_object *obj, const char *path, int pid,
		       struct bpf_link *links[2 * XP_CUDA_FN_COUNT]);

#endif /* XPERF_GPU_CUDA_UPROBES_H */
