// SPDX-License-Identifier: MIT
/*
 * cuda_uprobes_test.c - ring records of bpf/cuda.bpf.c as GPU records: the
 * kind per function, times, bytes, and rejection of records that are not
 * complete XP_EV_CUDA_CALL records; which file names are CUDA libraries.
 */
#include "gpu/cuda_uprobes.h"

#include <linux/types.h>
#include <stdio.h>
#include <string.h>

#include "bpf/xperf.h"
#include "bpf/cuda.h"
#include "lib/test_check.h"

int main(void)
{
	struct xk_cuda_call c = {.hdr = {.type = XP_EV_CUDA_CALL,
					 .size = sizeof(c),
					 .ts_ns = 5000,
					 .tgid = 7,
					 .tid = 8},
				 .entry_ns = 1200,
				 .bytes = 2048,
				 .target = 1,
				 .fn = XP_CUDA_MEMCPY,
				 .ret = 35};
	struct gp_gpu_rec r;

	CHECK(gp_cuda_call_to_rec(&c, sizeof(c), &r) == 0, "memcpy");
	CHECK(r.kind == XP_GPU_LAUNCH && !strcmp(r.name, "cudaMemcpy") && r.start_ns == 1200 &&
		      r.end_ns == 5000 && r.bytes == 2048 && r.correlation_id == 0,
	      "memcpy fields %s", r.name);
	c.fn = XP_CUDA_DEVICE_SYNC;
	CHECK(gp_cuda_call_to_rec(&c, sizeof(c), &r) == 0 && r.kind == XP_GPU_SYNC &&
		      !strcmp(r.name, "cudaDeviceSynchronize"),
	      "sync");
	c.fn = XP_CUDA_CU_LAUNCH_KERNEL_EX;
	CHECK(gp_cuda_call_to_rec(&c, sizeof(c), &r) == 0 && !strcmp(r.name, "cuLaunchKernelEx"),
	      "driver launch");
	CHECK(gp_cuda_call_to_rec(&c, sizeof(c) - 1, &r) == -1, "short record");
	c.fn = XP_CUDA_FN_COUNT;
	CHECK(gp_cuda_call_to_rec(&c, sizeof(c), &r) == -1, "unknown function");
	c.fn = XP_CUDA_MEMCPY;
	c.hdr.type = XP_EV_GPU_FIRST + 1;
	CHECK(gp_cuda_call_to_rec(&c, sizeof(c), &r) == -1, "other type");
	c.hdr.type = XP_EV_CUDA_CALL;
	c.entry_ns = 6000;
	CHECK(gp_cuda_call_to_rec(&c, sizeof(c), &r) == -1, "return before entry");
	for (unsigned f = 0; f < XP_CUDA_FN_COUNT; f++)
		CHECK(gp_cuda_fn_name(f) != NULL, "name %u", f);
	CHECK(gp_cuda_fn_name(XP_CUDA_FN_COUNT) == NULL, "out of range");

	static const struct {
		const char *path;
		int lib;
	} names[] = {
		{"/usr/local/cuda/lib64/libcudart.so.13", XP_CUDA_LIB_CUDART},
		{"libcudart.so", XP_CUDA_LIB_CUDART},
		{"/site-packages/torch/lib/libcudart-9335f6a2.so.12", XP_CUDA_LIB_CUDART},
		{"/usr/lib/x86_64-linux-gnu/libcuda.so.1", XP_CUDA_LIB_CUDA},
		{"/usr/lib/x86_64-linux-gnu/libcuda.so.580.65.06", XP_CUDA_LIB_CUDA},
		{"/usr/local/cuda/lib64/libcudart_static.a", -1},
		{"/usr/lib/libcudadebugger.so.1", -1},
		{"/usr/lib/libcudnn.so.9", -1},
		{"/opt/libcudart.so.13/libssl.so.3", -1},
		{"libcudart", -1},
		{"", -1},
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		CHECK(gp_cuda_lib_of(names[i].path) == names[i].lib, "library of '%s'",
		      names[i].path);
	return test_failures != 0;
}
