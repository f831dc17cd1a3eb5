// SPDX-License-Identifier: MIT
/*
 * turn_gpu_test.c - merging GPU records into a TurnTrace turn (selection by
 * intelligent spans, launch calls pulled in by correlation id, clipping to
 * the turn) and the breakdown read back from the merged turn, with answers
 * worked out by hand.
 */
#include "gpu/turn_gpu.h"
#include "lib/test_check.h"

#include <stdio.h>
#include <string.h>

/* A turn 1000..10000 ns: compute 1000..2000, intelligent 2000..6000 and 7000..8000. */
static struct tt_turn *sample_turn(void)
{
	struct tt_turn *t = tt_turn_new("gpu-test", 1, "ebpf", "plaintext");

	t->start_ns = 1000;
	t->end_ns = 10000;
	tt_span_add(t, 0, "tool_call", 1000, 2000, 0);
	tt_span_add(t, 0, "llm_inference", 2000, 6000, 0);
	tt_span_add(t, 0, "llm_inference", 7000, 8000, 0);
	tt_turn_categorize(t);
	return t;
}

#define REC(k, nm, s, e, c)                                                                        \
	{                                                                                          \
		.kind = XP_GPU_##k, .name = nm, .start_ns = s, .end_ns = e, .correlation_id = c    \
	}

static struct gp_gpu_rec recs[] = {
	REC(KERNEL, "early", 500, 1500, 4),		/* before the windows: out */
	REC(LAUNCH, "cudaLaunchKernel", 1500, 1510, 1), /* before, but launches k1: in */
	REC(KERNEL, "k1", 2100, 3000, 1),
	REC(LAUNCH, "cudaLaunchKernel", 5400, 5410, 2),
	REC(KERNEL, "k2", 5500, 6500, 2),
	REC(SYNC, "cudaStreamSynchronize", 6000, 6100, 0), /* between windows: out */
	REC(LAUNCH, "cudaLaunchKernel", 7800, 7810, 5),
	REC(KERNEL, "k5", 7900, 10500, 5), /* clipped to the turn's end */
	REC(LAUNCH, "cudaMemcpyAsync", 8900, 8910, 3),
	REC(MEMCPY, "Memcpy DtoH", 9000, 9500, 3), /* after the windows: out */
};

static void test_merge_and_breakdown(void)
{
	char *notices[] = {"CUPTI held by another profiler"};
	struct gp_gpu_set set = {.recs = recs,
				 .n = sizeof(recs) / sizeof(recs[0]),
				 .dropped = 4,
				 .notices = notices,
				 .n_notices = 1};
	struct tt_turn *turn = sample_turn();
	const struct tt_gpu *gpu;
	struct gp_gpu_breakdown b;
	char err[128] = "";
	const char *names[] = {"cudaLaunchKernel", "k1", "cudaLaunchKernel", "k2",
			       "cudaLaunchKernel", "k5"};

	CHECK(gp_gpu_merge_turn(turn, &set) == 6 && turn->gpu, "merged count");
	gpu = turn->gpu;
	CHECK(gpu->nacts == 6, "activities %zu", gpu->nacts);
	for (size_t i = 0; i < 6 && i < gpu->nacts; i++)
		CHECK(!strcmp(gpu->acts[i].name, names[i]) && gpu->acts[i].have == TT_GPU_ALL,
		      "activity %zu", i);
	CHECK(gpu->acts[5].end_ns == 10000, "clipped");
	CHECK(gpu->dropped == 4 && !strcmp(gpu->source, "cupti"), "dropped, source");
	CHECK(gp_gpu_merge_turn(turn, &set) == 6 && turn->gpu->nacts == 6, "re-merge replaces");
	CHECK(turn->quality.nwarnings == 1 &&
		      !strcmp(turn->quality.warnings[0], "gpu: CUPTI held by another profiler"),
	      "notice as a warning, once");

	/* windows 5000 ns: compute 900 + 500 + 100; launch 100 + 100 + 100; host 2400 + 800 */
	CHECK(gp_gpu_turn_breakdown(turn, &b, err, sizeof(err)) == 0, "%s", err);
	CHECK(b.window_ns == 5000 && b.ns[XP_GPU_COMPUTE] == 1500 &&
		      b.ns[XP_GPU_IDLE_LAUNCH] == 300 && b.ns[XP_GPU_IDLE_HOST_WAIT] == 3200 &&
		      b.ns[XP_GPU_IDLE_OTHER] == 0,
	      "compute %llu launch %llu host %llu", (unsigned long long)b.ns[XP_GPU_COMPUTE],
	      (unsigned long long)b.ns[XP_GPU_IDLE_LAUNCH],
	      (unsigned long long)b.ns[XP_GPU_IDLE_HOST_WAIT]);
	CHECK(b.n_top == 3 && !strcmp(b.top[0].name, "k1"), "top %s", b.top[0].name);
	tt_turn_free(turn);
}

static void test_edges(void)
{
	struct gp_gpu_set set = {.recs = recs, .n = 3};
	struct tt_turn *turn = tt_turn_new("gpu-test", 1, "ebpf", "plaintext");
	struct tt_turn *bad = tt_turn_new("gpu-test", 2, "ebpf", "plaintext");
	struct gp_gpu_breakdown b;
	struct gp_gpu_rec unknown = {.kind = XP_GPU_KIND_COUNT};
	char err[128] = "";

	CHECK(!gp_gpu_section(&unknown, 1, 0, XP_GPU_SRC_CUPTI), "a record of no kind: no section");
	turn->end_ns = 10;
	bad->gpu = tt_gpu_new("cupti", 0);
	tt_gpu_add(bad->gpu, XP_GPU_KERNEL, 1, 2);
	tt_gpu_add(bad->gpu, XP_GPU_KERNEL, 3, 2);
	CHECK(gp_gpu_merge_turn(turn, &set) == 0 && !turn->gpu,
	      "no intelligent span: no gpu object");
	CHECK(gp_gpu_turn_breakdown(turn, &b, err, sizeof(err)) == 1, "no gpu object");
	CHECK(gp_gpu_turn_breakdown(bad, &b, err, sizeof(err)) == -1 &&
		      !strcmp(err, "/gpu/activities/1: end_ns before start_ns"),
	      "backwards activity: '%s'", err);
	tt_turn_free(turn);
	tt_turn_free(bad);
}

int main(void)
{
	test_merge_and_breakdown();
	test_edges();
	return test_failures != 0;
}
