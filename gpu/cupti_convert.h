/* SPDX-License-Identifier: MIT */
/*
 * cupti_convert.h - CUPTI activity records -> compact gp_gpu_rec (pure).
 *
 * The record struct of each kind is chosen at compile time from
 * CUPTI_API_VERSION (see cupti_convert.c), so the same source reads the
 * layout of the CUDA toolkit it is built against.
 */
#ifndef XPERF_GPU_CUPTI_CONVERT_H
#define XPERF_GPU_CUPTI_CONVERT_H

#include <cupti.h>

#include "gpu/gpu_records.h"

/*
 * Record structs of this toolkit: CUPTI_API_VERSION is xxyyzz from CUDA 13.0
 * on, a small integer before (19 = CUDA 12.0, 22 = 12.4, 26 = 12.8), and the
 * choice follows Kineto's DeviceProperties.h. Verified against 130001.
 */
#if CUPTI_API_VERSION >= 130100
typedef CUpti_ActivityKernel11 gp_kernel_t;
#elif CUPTI_API_VERSION >= 130000
typedef CUpti_ActivityKernel10 gp_kernel_t;
#elif CUPTI_API_VERSION >= 19
typedef CUpti_ActivityKernel9 gp_kernel_t;
#else
typedef CUpti_ActivityKernel4 gp_kernel_t;
#endif

#if CUPTI_API_VERSION >= 26
typedef CUpti_ActivityMemcpy6 gp_memcpy_t;
typedef CUpti_ActivitySynchronization2 gp_sync_t;
#elif CUPTI_API_VERSION >= 19
typedef CUpti_ActivityMemcpy5 gp_memcpy_t;
typedef CUpti_ActivitySynchronization gp_sync_t;
#else
typedef CUpti_ActivityMemcpy4 gp_memcpy_t;
typedef CUpti_ActivitySynchronization gp_sync_t;
#endif

#if CUPTI_API_VERSION >= 19
typedef CUpti_ActivityMemset4 gp_memset_t;
#else
typedef CUpti_ActivityMemset3 gp_memset_t;
#endif

#if CUPTI_API_VERSION >= 22
typedef CUpti_ActivityOverhead3 gp_overhead_t;
#else
typedef CUpti_ActivityOverhead gp_overhead_t;
#endif

enum gp_cupti_conv {
	XP_CONV_OK = 1,	      /* *out filled */
	XP_CONV_SKIP = 0,     /* a kind or API call xperf does not keep */
	XP_CONV_INVALID = -1, /* no timing (zero timestamps: CUPTI lacked device memory) */
};

/* Convert one record. Kernel names are demangled. */
enum gp_cupti_conv gp_cupti_convert(const CUpti_Activity *rec, struct gp_gpu_rec *out);

#endif /* XPERF_GPU_CUPTI_CONVERT_H */
