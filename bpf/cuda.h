/* SPDX-License-Identifier: MIT */
/*
 * cuda.h - records of cuda.bpf.c: CUDA runtime/driver calls seen by uprobes
 * (the zero-injection fallback when CUPTI is not in the process). One record
 * per completed call, emitted at its return, so blocking time is
 * hdr.ts_ns - entry_ns. Record type XP_EV_CUDA_CALL (the GPU block of xperf.h).
 */
#ifndef XPERF_BPF_CUDA_H
#define XPERF_BPF_CUDA_H

/* The probed functions; userspace attaches each by name (gpu/cuda_uprobes.c). */
enum xk_cuda_fn {
	XP_CUDA_LAUNCH_KERNEL,	     /* cudaLaunchKernel (libcudart) */
	XP_CUDA_MEMCPY,		     /* cudaMemcpy */
	XP_CUDA_MEMCPY_ASYNC,	     /* cudaMemcpyAsync */
	XP_CUDA_STREAM_SYNC,	     /* cudaStreamSynchronize */
	XP_CUDA_DEVICE_SYNC,	     /* cudaDeviceSynchronize */
	XP_CUDA_CU_LAUNCH_KERNEL,    /* cuLaunchKernel (libcuda) */
	XP_CUDA_CU_LAUNCH_KERNEL_EX, /* cuLaunchKernelEx (libcuda) */
	XP_CUDA_FN_COUNT
};

/* XP_EV_CUDA_CALL; hdr.ts_ns is the return time, hdr.tid the caller. */
struct xk_cuda_call {
	struct xk_hdr hdr;
	__u64 entry_ns; /* CLOCK_MONOTONIC at function entry */
	__u64 bytes;	/* memcpy: count argument; 0 otherwise */
	__u64 target;	/* launch: kernel function (host stub / CUfunction); memcpy: kind */
	__u32 fn;	/* enum xk_cuda_fn */
	__s32 ret;	/* cudaError_t / CUresult returned */
};

#endif /* XPERF_BPF_CUDA_H */
