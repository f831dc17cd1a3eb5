// SPDX-License-Identifier: MIT
/*
 * gpu.c - the turn's `gpu` section (turn.h): built by the GPU merge and the
 * reader, walked by the writer, the analyzer, the Chrome export and
 * `xperf gpu`.
 */
#include "core/turn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"

struct tt_gpu *tt_gpu_new(const char *source, uint64_t dropped)
{
	struct tt_gpu *g = calloc(1, sizeof(*g));

	if (g) {
		snprintf(g->source, sizeof(g->source), "%s", source);
		g->dropped = dropped;
	}
	return g;
}

struct tt_gpu_act *tt_gpu_add(struct tt_gpu *g, enum th_gpu_kind kind, uint64_t start_ns,
			      uint64_t end_ns)
{
	struct tt_gpu_act *a;

	if (xp_grow((void **)&g->acts, &g->cap, g->nacts + 1, sizeof(*a)))
		return NULL;
	a = &g->acts[g->nacts++];
	*a = (struct tt_gpu_act){ .kind = kind, .start_ns = start_ns, .end_ns = end_ns };
	return a;
}

void tt_gpu_free(struct tt_gpu *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->nacts; i++)
		free(g->acts[i].name);
	free(g->acts);
	free(g);
}
