// SPDX-License-Identifier: MIT
/*
 * gpu_records_fuzz.c - .xpgpu files come from another process (possibly
 * killed mid-write): the parser must never crash, read out of bounds or
 * loop, whole or fed in two parts.
 */
#include <stdint.h>
#include <stdlib.h>

#include "gpu/gpu_records.h"

static void count(void *ctx, const struct gp_gpu_rec *rec)
{
	(void)rec;
	++*(size_t *)ctx;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n = 0, used = 0, used2 = 0;
	const struct gp_gpu_visitor v = {.record = count, .ctx = &n};
	char err[128];

	if (gp_gpu_parse(data, size, 0, &used, &v, err, sizeof(err)) == 0 && used > size)
		abort();
	if (size > 16 && gp_gpu_parse(data, size / 2, 0, &used, &v, err, sizeof(err)) == 0 &&
	    gp_gpu_parse(data + used, size - used, used, &used2, &v, err, sizeof(err)) == 0 &&
	    used + used2 > size)
		abort();
	return 0;
}
