// SPDX-License-Identifier: MIT
/*
 * turn_gpu_fuzz.c - turn files come from disk (possibly hand-edited or cut):
 * reading any bytes as a turn (core/read.c, which validates as it reads), merging
 * records into it and reading a breakdown back must never crash, whatever
 * the shape of spans and gpu.activities.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/read.h"
#include "gpu/turn_gpu.h"

/* Every nanosecond of the window lands in one share, as a whole and in each stream. */
static void check_sums(const struct gp_gpu_breakdown *b)
{
	for (size_t i = 0; i <= b->n_streams; i++) {
		const uint64_t *ns = i < b->n_streams ? b->streams[i].ns : b->ns;
		uint64_t sum = 0;

		for (int s = 0; s < XP_GPU_SHARE_COUNT; s++)
			sum += ns[s];
		if (sum != b->window_ns)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct gp_gpu_rec recs[3] = {
		{.kind = XP_GPU_LAUNCH, .start_ns = 10, .end_ns = 20, .correlation_id = 1},
		{.kind = XP_GPU_KERNEL, .start_ns = 30, .end_ns = 90, .correlation_id = 1},
		{.kind = XP_GPU_SYNC, .start_ns = 40, .end_ns = 95},
	};
	struct gp_gpu_set set = {.recs = recs, .n = 3};
	struct gp_gpu_breakdown b;
	char err[128];
	struct tt_turn *turn = tt_turn_load_buffer("<fuzz>", (const char *)data, size, NULL,
						    NULL, NULL);

	if (!turn)
		return 0;
	if (gp_gpu_turn_breakdown(turn, &b, err, sizeof(err)) == 0)
		check_sums(&b);
	if (gp_gpu_merge_turn(turn, &set) >= 0 &&
	    gp_gpu_turn_breakdown(turn, &b, err, sizeof(err)) == 0)
		check_sums(&b);
	tt_turn_free(turn);
	return 0;
}
