/* SPDX-License-Identifier: MIT */
/*
 * attribute.h - where the GPU's time went during a turn's intelligent-domain
 * spans (pure; gpu/README.md has the formulas).
 *
 * The window is the union of the turn's intelligent spans. Every nanosecond
 * of it lands in exactly one share: compute (a kernel runs), non-compute (only
 * copies/memsets run; under a kernel they count as compute, as in HTA), or
 * idle, split by cause. Each share maps to one theory L3 point.
 */
#ifndef XPERF_GPU_ATTRIBUTE_H
#define XPERF_GPU_ATTRIBUTE_H

#include <stddef.h>
#include <stdint.h>

#include "gpu/gpu_records.h"

struct gp_gpu_interval {
	uint64_t start_ns, end_ns;
};

enum gp_gpu_share {
	XP_GPU_COMPUTE,	       /* kernels */
	XP_GPU_NONCOMPUTE,     /* copies and memsets not hidden under a kernel */
	XP_GPU_IDLE_HOST_WAIT, /* the host had not started the next launch call yet */
	XP_GPU_IDLE_LAUNCH,    /* the launch call had started; the work had not */
	XP_GPU_IDLE_SYNC,      /* the host was still inside a synchronisation call */
	XP_GPU_IDLE_OTHER,     /* idle before work whose launch call was not recorded */
	XP_GPU_SHARE_COUNT
};

#define XP_GPU_TOP_KERNELS 10
#define XP_GPU_STREAMS_MAX 16
/* A sync record's stream when it waited on no single stream (context or event sync). */
#define XP_GPU_STREAM_ANY UINT32_MAX

struct gp_gpu_kernel_stat {
	char name[XP_GPU_NAME_MAX];
	uint64_t total_ns; /* clipped to the window */
	uint32_t count;
};

/*
 * One stream's view of the same window: idle means "this stream ran
 * nothing", explained by the launch of this stream's next activity and by the
 * sync calls that waited on this stream or on the whole device.
 */
struct gp_gpu_stream_share {
	uint32_t device, stream;
	uint32_t kernels; /* kernels overlapping the window */
	uint64_t ns[XP_GPU_SHARE_COUNT];
};

struct gp_gpu_breakdown {
	uint64_t window_ns; /* sum of shares */
	uint64_t ns[XP_GPU_SHARE_COUNT];
	size_t n_top;
	struct gp_gpu_kernel_stat top[XP_GPU_TOP_KERNELS]; /* by total_ns, descending */
	size_t n_streams, streams_omitted; /* streams past XP_GPU_STREAMS_MAX: least busy */
	struct gp_gpu_stream_share streams[XP_GPU_STREAMS_MAX]; /* by busy time, descending */
};

/* "compute", "noncompute", "idle_host_wait", ... ; NULL when out of range. */
const char *gp_gpu_share_name(enum gp_gpu_share s);
/* The theory L3 id a share is charged to (ids from theory/theory_data.c). */
const char *gp_gpu_share_l3(enum gp_gpu_share s);

/*
 * Split the time of the windows win[0..nwin) (any order, may overlap) using
 * the activities recs[0..n) (any order, any kinds; launch records link idle
 * gaps to their cause by correlation id), as a whole and per stream.
 * Returns 0, or -1 on allocation failure (out zeroed).
 */
int gp_gpu_attribute(const struct gp_gpu_rec *recs, size_t n, const struct gp_gpu_interval *win,
		     size_t nwin, struct gp_gpu_breakdown *out);

#endif /* XPERF_GPU_ATTRIBUTE_H */
