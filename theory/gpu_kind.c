/* SPDX-License-Identifier: MIT */
/*
 * gpu_kind.c - the GPU record kinds (theory.h), alone in their file: the
 * CUPTI collector injected into a CUDA process links this and nothing else
 * of theory (gpu/gpu_check.sh builds it with plain cc).
 */
#include <string.h>

#include "theory/theory.h"

const char *const th_gpu_kind_names[XP_GPU_KIND_COUNT + 1] = {
	"kernel", "memcpy", "memset", "sync", "launch", "overhead", NULL,
};

int th_gpu_kind_parse(const char *name)
{
	for (int k = 0; name && k < XP_GPU_KIND_COUNT; k++)
		if (!strcmp(name, th_gpu_kind_names[k]))
			return k;
	return -1;
}

int th_gpu_kind_on_device(enum th_gpu_kind k)
{
	return k == XP_GPU_KERNEL || k == XP_GPU_MEMCPY || k == XP_GPU_MEMSET;
}
