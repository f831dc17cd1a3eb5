/* SPDX-License-Identifier: MIT */
/* cuda_check.h - the GPU-machine check programs' one error rule: a failed CUDA call ends the program. */
#ifndef XPERF_GPU_CHECK_CUDA_CHECK_H
#define XPERF_GPU_CHECK_CUDA_CHECK_H

#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#define CHECK(x)                                                                           \
	do {                                                                               \
		cudaError_t e_ = (x);                                                      \
		if (e_ != cudaSuccess) {                                                   \
			fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, #x, \
				cudaGetErrorString(e_));                                   \
			exit(1);                                                           \
		}                                                                          \
	} while (0)

#endif
