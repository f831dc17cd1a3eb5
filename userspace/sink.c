/* SPDX-License-Identifier: MIT */
/* sink.c - what every sink shares (sink.h). */
#include "userspace/sink.h"

#include <stdio.h>
#include <stdlib.h>

const char *xpb_gpu_dir(const char *out_dir, char *buf, size_t len)
{
	const char *env = getenv("XPERF_GPU_DIR");

	if (env && *env)
		snprintf(buf, len, "%s", env);
	else
		snprintf(buf, len, "%s/gpu", out_dir ? out_dir : XPB_TRACE_DIR_DEFAULT);
	return buf;
}
