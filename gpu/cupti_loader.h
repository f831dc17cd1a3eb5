/* SPDX-License-Identifier: MIT */
/*
 * cupti_loader.h - libcupti opened at run time with dlopen, never linked: a
 * machine without CUPTI (or with another major version) keeps running the
 * host program; the collector just reports why it collects nothing.
 */
#ifndef XPERF_GPU_CUPTI_LOADER_H
#define XPERF_GPU_CUPTI_LOADER_H

#include <stddef.h>

#include <cupti.h>

/* The CUPTI entry points the collector calls, resolved with dlsym. */
struct gp_cupti_api {
	void *handle;
	CUptiResult (*Subscribe)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *);
	CUptiResult (*Unsubscribe)(CUpti_SubscriberHandle);
	CUptiResult (*GetVersion)(uint32_t *);
	CUptiResult (*GetResultString)(CUptiResult, const char **);
	/* NULL on CUPTI versions without it */
	CUptiResult (*ActivityRegisterTimestampCallback)(CUpti_TimestampCallbackFunc);
	CUptiResult (*ActivityRegisterCallbacks)(CUpti_BuffersCallbackRequestFunc,
						 CUpti_BuffersCallbackCompleteFunc);
	CUptiResult (*ActivityEnable)(CUpti_ActivityKind);
	CUptiResult (*ActivityFlushAll)(uint32_t);
	CUptiResult (*ActivityFlushPeriod)(uint32_t);
	CUptiResult (*ActivityGetNextRecord)(uint8_t *, size_t, CUpti_Activity **);
	CUptiResult (*ActivityGetNumDroppedRecords)(CUcontext, uint32_t, size_t *);
};

/*
 * Open libcupti: `path` when not NULL (e.g. $XPERF_CUPTI_LIB), else the
 * soname of this toolkit's major version, then the unversioned name, then
 * <cuda>/extras/CUPTI/lib64 and <cuda>/lib64. 0 on success; -1 with a
 * one-line reason in err (dlerror's text, or the missing symbol).
 */
int gp_cupti_load(struct gp_cupti_api *api, const char *path, char *err, size_t errlen);

/* CUPTI's name for a result code, or "CUPTI error N" when unavailable. */
const char *gp_cupti_strerror(const struct gp_cupti_api *api, CUptiResult rc, char *buf,
			      size_t len);

#endif /* XPERF_GPU_CUPTI_LOADER_H */
