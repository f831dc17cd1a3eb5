// SPDX-License-Identifier: MIT
/*
 * cupti_convert.c - read the fields xperf keeps from CUPTI activity records.
 *
 * Struct versions are chosen in cupti_convert.h. Only the stable prefix
 * fields are read (start, end, device, stream, correlation id, name, bytes),
 * which keep their meaning across versions.
 * API records are kept only for the calls that launch, copy or synchronise:
 * they carry the correlation id that links host time to device time.
 */
#include "gpu/cupti_convert.h"

#include <stdio.h>
#include <string.h>

#include "gpu/demangle.h"

struct api_name {
	CUpti_ActivityKind kind;
	CUpti_CallbackId cbid;
	const char *name;
};

#define RT(fn, ver)                                                                                \
	{                                                                                          \
		CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_##fn##_##ver, #fn            \
	}
#define DRV(fn, name)                                                                              \
	{                                                                                          \
		CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_##fn, name                     \
	}

/* The launch, copy and synchronisation calls whose API records are kept. */
static const struct api_name api_names[] = {
	RT(cudaLaunchKernel, v7000),
	RT(cudaLaunchKernel_ptsz, v7000),
#if CUPTI_API_VERSION >= 130000 /* what nvcc 13's <<<...>>> calls */
	RT(__cudaLaunchKernel, v13000),
	RT(__cudaLaunchKernel_ptsz, v13000),
#endif
	RT(cudaLaunchKernelExC, v11060),
	RT(cudaLaunchKernelExC_ptsz, v11060),
	RT(cudaGraphLaunch, v10000),
	RT(cudaGraphLaunch_ptsz, v10000),
	RT(cudaMemcpy, v3020),
	RT(cudaMemcpy2D, v3020),
	RT(cudaMemcpyAsync, v3020),
	RT(cudaMemcpyToSymbol, v3020),
	RT(cudaMemcpyFromSymbol, v3020),
	RT(cudaMemcpyPeer, v4000),
	RT(cudaMemcpyPeerAsync, v4000),
	RT(cudaMemset, v3020),
	RT(cudaMemsetAsync, v3020),
	RT(cudaStreamSynchronize, v3020),
	RT(cudaStreamSynchronize_ptsz, v7000),
	RT(cudaDeviceSynchronize, v3020),
	RT(cudaEventSynchronize, v3020),
	DRV(cuLaunchKernel, "cuLaunchKernel"),
	DRV(cuLaunchKernel_ptsz, "cuLaunchKernel_ptsz"),
	DRV(cuLaunchKernelEx, "cuLaunchKernelEx"),
	DRV(cuLaunchKernelEx_ptsz, "cuLaunchKernelEx_ptsz"),
	DRV(cuLaunchCooperativeKernel, "cuLaunchCooperativeKernel"),
	DRV(cuGraphLaunch, "cuGraphLaunch"),
	DRV(cuMemcpy, "cuMemcpy"),
	DRV(cuMemcpyAsync, "cuMemcpyAsync"),
	DRV(cuMemcpyHtoD_v2, "cuMemcpyHtoD"),
	DRV(cuMemcpyDtoH_v2, "cuMemcpyDtoH"),
	DRV(cuMemcpyHtoDAsync_v2, "cuMemcpyHtoDAsync"),
	DRV(cuMemcpyDtoHAsync_v2, "cuMemcpyDtoHAsync"),
	DRV(cuStreamSynchronize, "cuStreamSynchronize"),
	DRV(cuCtxSynchronize, "cuCtxSynchronize"),
};

/* Indexed by CUpti_ActivityMemcpyKind. */
static const char *const copy_names[] = {
	"Memcpy ?",    "Memcpy HtoD", "Memcpy DtoH", "Memcpy HtoA", "Memcpy AtoH", "Memcpy AtoA",
	"Memcpy AtoD", "Memcpy DtoA", "Memcpy DtoD", "Memcpy HtoH", "Memcpy PtoP",
};

/* Indexed by CUpti_ActivitySynchronizationType. */
static const char *const sync_names[] = {
	"Sync ?",
	"cudaEventSynchronize",
	"cudaStreamWaitEvent",
	"cudaStreamSynchronize",
	"cudaDeviceSynchronize",
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* The runtime/driver API name xperf keeps for (kind, cbid); NULL when not kept. */
static const char *api_name_of(CUpti_ActivityKind kind, CUpti_CallbackId cbid)
{
	for (size_t i = 0; i < COUNT(api_names); i++)
		if (api_names[i].kind == kind && api_names[i].cbid == cbid)
			return api_names[i].name;
	return NULL;
}

static const char *pick(const char *const *names, size_t n, unsigned idx)
{
	return names[idx < n ? idx : 0];
}

static void set_common(struct gp_gpu_rec *o, enum th_gpu_kind kind, uint64_t start, uint64_t end,
		       uint32_t device, uint32_t stream, uint32_t corr)
{
	*o = (struct gp_gpu_rec){ .kind = kind, .device = device, .stream = stream,
				  .correlation_id = corr, .start_ns = start, .end_ns = end };
}

static void convert_overhead(const gp_overhead_t *r, struct gp_gpu_rec *o)
{
	set_common(o, XP_GPU_OVERHEAD, r->start, r->end, 0, 0, r->correlationId);
	snprintf(o->name, sizeof(o->name), "overhead 0x%x", (unsigned)r->overheadKind);
}

enum gp_cupti_conv gp_cupti_convert(const CUpti_Activity *rec, struct gp_gpu_rec *o)
{
	switch (rec->kind) {
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
		const gp_kernel_t *k = (const gp_kernel_t *)rec;

		set_common(o, XP_GPU_KERNEL, k->start, k->end, k->deviceId, k->streamId,
			   k->correlationId);
		gp_demangle(k->name, o->name, sizeof(o->name));
		break;
	}
	case CUPTI_ACTIVITY_KIND_MEMCPY: {
		const gp_memcpy_t *m = (const gp_memcpy_t *)rec;

		set_common(o, XP_GPU_MEMCPY, m->start, m->end, m->deviceId, m->streamId,
			   m->correlationId);
		o->bytes = m->bytes;
		strcpy(o->name, pick(copy_names, COUNT(copy_names), m->copyKind));
		break;
	}
	case CUPTI_ACTIVITY_KIND_MEMSET: {
		const gp_memset_t *m = (const gp_memset_t *)rec;

		set_common(o, XP_GPU_MEMSET, m->start, m->end, m->deviceId, m->streamId,
			   m->correlationId);
		o->bytes = m->bytes;
		strcpy(o->name, "Memset");
		break;
	}
	case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
		const gp_sync_t *s = (const gp_sync_t *)rec;

		set_common(o, XP_GPU_SYNC, s->start, s->end, 0, s->streamId, s->correlationId);
		strcpy(o->name, pick(sync_names, COUNT(sync_names), (unsigned)s->type));
		break;
	}
	case CUPTI_ACTIVITY_KIND_RUNTIME:
	case CUPTI_ACTIVITY_KIND_DRIVER: {
		const CUpti_ActivityAPI *a = (const CUpti_ActivityAPI *)rec;
		const char *name = api_name_of(rec->kind, a->cbid);

		if (!name)
			return XP_CONV_SKIP;
		set_common(o, XP_GPU_LAUNCH, a->start, a->end, 0, 0, a->correlationId);
		strcpy(o->name, name);
		break;
	}
	case CUPTI_ACTIVITY_KIND_OVERHEAD:
		convert_overhead((const gp_overhead_t *)rec, o);
		break;
	default:
		return XP_CONV_SKIP;
	}
	if (o->start_ns == 0 || o->end_ns < o->start_ns)
		return XP_CONV_INVALID;
	return XP_CONV_OK;
}
