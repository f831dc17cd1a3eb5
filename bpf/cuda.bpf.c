// SPDX-License-Identifier: MIT
/*
 * cuda.bpf.c - uprobes on the CUDA runtime and driver launch, copy and
 * synchronisation calls: host-side launch counts and blocking time without
 * CUPTI (and without injecting anything into the process).
 *
 * Entry stores (time, arguments) per (thread, function) in `calls`; return
 * emits one struct xk_cuda_call. Keying by function as well as thread keeps
 * nested calls apart (cudaLaunchKernel calling cuLaunchKernel). Untraced
 * processes cost one hash lookup at entry and one at return.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "common.bpf.h"
#include "cuda.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

struct entry {
	__u64 ts;
	__u64 bytes;
	__u64 target;
};

/* Calls in progress: (tid << 8 | fn) -> entry. Threads blocked at once. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct entry);
} calls SEC(".maps");

static __always_inline __u64 call_key(__u32 fn)
{
	return (bpf_get_current_pid_tgid() & 0xffffffffull) << 8 | fn;
}

static __always_inline int on_entry(__u32 fn, __u64 bytes, __u64 target)
{
	struct entry e = {.bytes = bytes, .target = target};
	__u64 key;

	if (!xk_traced())
		return 0;
	key = call_key(fn);
	e.ts = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&calls, &key, &e, BPF_ANY))
		xk_count_drop(XP_EV_CUDA_CALL); /* `calls` full: this call will not be reported */
	return 0;
}

static __always_inline int on_return(__u32 fn, long ret)
{
	__u64 key = call_key(fn);
	struct entry *e = bpf_map_lookup_elem(&calls, &key);
	struct xk_cuda_call *rec;

	if (!e)
		return 0;
	rec = xk_reserve(XP_EV_CUDA_CALL, sizeof(*rec));
	if (rec) {
		xk_fill_hdr_cur(&rec->hdr, XP_EV_CUDA_CALL, sizeof(*rec));
		rec->entry_ns = e->ts;
		rec->bytes = e->bytes;
		rec->target = e->target;
		rec->fn = fn;
		rec->ret = (__s32)ret;
		xk_submit(rec);
	}
	bpf_map_delete_elem(&calls, &key);
	return 0;
}

#define RETURN_PROBE(name, fn)                                                                     \
	SEC("uretprobe")                                                                           \
	int BPF_KRETPROBE(exit_##name, long ret)                                                   \
	{                                                                                          \
		return on_return(fn, ret);                                                         \
	}

SEC("uprobe")
int BPF_KPROBE(enter_cudaLaunchKernel, const void *func)
{
	return on_entry(XP_CUDA_LAUNCH_KERNEL, 0, (__u64)func);
}
RETURN_PROBE(cudaLaunchKernel, XP_CUDA_LAUNCH_KERNEL)

SEC("uprobe")
int BPF_KPROBE(enter_cudaMemcpy, void *dst, const void *src, __u64 count, int kind)
{
	return on_entry(XP_CUDA_MEMCPY, count, kind);
}
RETURN_PROBE(cudaMemcpy, XP_CUDA_MEMCPY)

SEC("uprobe")
int BPF_KPROBE(enter_cudaMemcpyAsync, void *dst, const void *src, __u64 count, int kind)
{
	return on_entry(XP_CUDA_MEMCPY_ASYNC, count, kind);
}
RETURN_PROBE(cudaMemcpyAsync, XP_CUDA_MEMCPY_ASYNC)

SEC("uprobe")
int BPF_KPROBE(enter_cudaStreamSynchronize)
{
	return on_entry(XP_CUDA_STREAM_SYNC, 0, 0);
}
RETURN_PROBE(cudaStreamSynchronize, XP_CUDA_STREAM_SYNC)

SEC("uprobe")
int BPF_KPROBE(enter_cudaDeviceSynchronize)
{
	return on_entry(XP_CUDA_DEVICE_SYNC, 0, 0);
}
RETURN_PROBE(cudaDeviceSynchronize, XP_CUDA_DEVICE_SYNC)

SEC("uprobe")
int BPF_KPROBE(enter_cuLaunchKernel, void *f)
{
	return on_entry(XP_CUDA_CU_LAUNCH_KERNEL, 0, (__u64)f);
}
RETURN_PROBE(cuLaunchKernel, XP_CUDA_CU_LAUNCH_KERNEL)

SEC("uprobe")
int BPF_KPROBE(enter_cuLaunchKernelEx, const void *config, void *f)
{
	return on_entry(XP_CUDA_CU_LAUNCH_KERNEL_EX, 0, (__u64)f);
}
RETURN_PROBE(cuLaunchKernelEx, XP_CUDA_CU_LAUNCH_KERNEL_EX)
