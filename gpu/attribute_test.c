// SPDX-License-Identifier: MIT
/*
 * attribute_test.c - GPU time attribution on synthetic timelines whose
 * answers are worked out by hand (exact nanoseconds), plus the interval set
 * operations underneath and the L3 ids against the theory tables.
 */
#include "gpu/attribute.h"

#include <stdio.h>
#include <string.h>

#include "gpu/intervals.h"
#include "lib/test_check.h"
#include "theory/theory.h"

#define REC(k, nm, s, e, c)                                                                        \
	{                                                                                          \
		.kind = XP_GPU_##k, .name = nm, .start_ns = s, .end_ns = e, .correlation_id = c    \
	}

/* A record on stream st (device 0). */
#define SREC(k, nm, s, e, c, st)                                                                  \
	{                                                                                          \
		.kind = XP_GPU_##k, .name = nm, .start_ns = s, .end_ns = e, .correlation_id = c,   \
		.stream = st                                                                       \
	}

static void expect(const struct gp_gpu_breakdown *b, const uint64_t want[XP_GPU_SHARE_COUNT],
		   uint64_t window, const char *what)
{
	uint64_t sum = 0;

	for (int s = 0; s < XP_GPU_SHARE_COUNT; s++) {
		CHECK(b->ns[s] == want[s], "%s: %s = %llu, want %llu", what,
		      gp_gpu_share_name((enum gp_gpu_share)s), (unsigned long long)b->ns[s],
		      (unsigned long long)want[s]);
		sum += b->ns[s];
	}
	CHECK(b->window_ns == window && sum == window, "%s: window %llu, sum %llu", what,
	      (unsigned long long)b->window_ns, (unsigned long long)sum);
}

/*
 * One window [0, 1000):
 *   launch(1) [0,10)  kernel gemm(1) [20,300)      gap [0,20): launch overhead 20
 *   launch(2) [290,300) memcpy(2) [310,400)        gap [300,310): launch overhead 10
 *   sync [400,450)  launch(3) [500,510) gemm(3) [530,600)
 *                                                  gap [400,530): sync 50, host 50, launch 30
 *   launch(4) [550,560) softmax(4) [600,700)       back to back: no gap
 *   launch(5) [610,615) memset(5) [650,720)        non-compute only [700,720)
 *   nothing after 720                              gap [720,1000): host wait 280
 */
static void test_single_stream(void)
{
	const struct gp_gpu_rec recs[] = {
		REC(MEMSET, "Memset", 650, 720, 5),
		REC(LAUNCH, "cudaLaunchKernel", 0, 10, 1),
		REC(KERNEL, "gemm", 20, 300, 1),
		REC(LAUNCH, "cudaMemcpyAsync", 290, 300, 2),
		REC(MEMCPY, "Memcpy HtoD", 310, 400, 2),
		REC(SYNC, "cudaDeviceSynchronize", 400, 450, 0),
		REC(LAUNCH, "cudaLaunchKernel", 500, 510, 3),
		REC(KERNEL, "gemm", 530, 600, 3),
		REC(LAUNCH, "cudaLaunchKernel", 550, 560, 4),
		REC(KERNEL, "softmax", 600, 700, 4),
		REC(LAUNCH, "cudaMemsetAsync", 610, 615, 5),
		REC(OVERHEAD, "overhead", 0, 1000, 0),
	};
	const struct gp_gpu_interval win = {0, 1000};
	const uint64_t want[XP_GPU_SHARE_COUNT] = {450, 110, 330, 60, 50, 0};
	struct gp_gpu_breakdown b;

	CHECK(gp_gpu_attribute(recs, sizeof(recs) / sizeof(recs[0]), &win, 1, &b) == 0, "rc");
	expect(&b, want, 1000, "single stream");
	CHECK(b.n_top == 2, "top %zu", b.n_top);
	CHECK(!strcmp(b.top[0].name, "gemm") && b.top[0].total_ns == 350 && b.top[0].count == 2,
	      "top0 %s %llu", b.top[0].name, (unsigned long long)b.top[0].total_ns);
	CHECK(!strcmp(b.top[1].name, "softmax") && b.top[1].total_ns == 100, "top1 %s",
	      b.top[1].name);
}

/*
 * Windows [100,200) + [150,250) (overlapping) + [400,500) = 250 ns.
 *   k1 [0,180) with its launch; k2 [450,1000) whose launch was not recorded.
 *   compute [100,180) + [450,500) = 130; idle [180,250) and [400,450) are
 *   followed by k2, which has no launch record: other 70 + 50.
 */
static void test_clipping_and_unknown_launch(void)
{
	const struct gp_gpu_rec recs[] = {
		REC(LAUNCH, "cuLaunchKernel", 0, 5, 9),
		REC(KERNEL, "k1", 0, 180, 9),
		REC(KERNEL, "k2", 450, 1000, 10),
	};
	const struct gp_gpu_interval win[] = {{400, 500}, {100, 200}, {150, 250}};
	const uint64_t want[XP_GPU_SHARE_COUNT] = {130, 0, 0, 0, 0, 120};
	struct gp_gpu_breakdown b;

	CHECK(gp_gpu_attribute(recs, 3, win, 3, &b) == 0, "rc");
	expect(&b, want, 250, "clipping");
	CHECK(b.n_top == 2 && !strcmp(b.top[0].name, "k1") && b.top[0].total_ns == 80 &&
		      b.top[1].total_ns == 50,
	      "top %s %llu", b.top[0].name, (unsigned long long)b.top[0].total_ns);
}

/*
 * Two streams overlap: a copy on stream 2 runs under kernels of stream 1
 * (counted as compute), then alone. Window [1000,2000).
 *   launch(1) [1000,1005) k [1010,1500)   copy(2) launch [1001,1002) [1200,1600)
 *   launch(3) [1700,1750) k [1800,2100)
 *   gaps: [1000,1010) launch 10; [1600,1800) host 100 + launch 100.
 */
static void test_overlap_streams(void)
{
	const struct gp_gpu_rec recs[] = {
		REC(LAUNCH, "cudaLaunchKernel", 1000, 1005, 1),
		REC(KERNEL, "a", 1010, 1500, 1),
		REC(LAUNCH, "cudaMemcpyAsync", 1001, 1002, 2),
		REC(MEMCPY, "Memcpy DtoH", 1200, 1600, 2),
		REC(LAUNCH, "cudaLaunchKernel", 1700, 1750, 3),
		REC(KERNEL, "b", 1800, 2100, 3),
	};
	const struct gp_gpu_interval win = {1000, 2000};
	const uint64_t want[XP_GPU_SHARE_COUNT] = {690, 100, 100, 110, 0, 0};
	struct gp_gpu_breakdown b;

	CHECK(gp_gpu_attribute(recs, 6, &win, 1, &b) == 0, "rc");
	expect(&b, want, 1000, "two streams");
}

/*
 * Each stream on its own, window [0,1000). Stream 1: k [10,300) and [620,1000)
 * (launches at 0 and 600). Stream 2: k [20,200) and [720,900) (launches at 5
 * and 700), idle after 900. A device-wide sync [200,500) and a sync on stream
 * 1 [320,350) (another thread's): the latter explains stream 1's idle only.
 *   stream 1: compute 670, launch 10 + 20, sync [300,500) 200, host 100.
 *   stream 2: compute 360, host 5 + 200 + 100, launch 15 + 20, sync 300.
 */
static void test_per_stream(void)
{
	const struct gp_gpu_rec recs[] = {
		SREC(LAUNCH, "cudaLaunchKernel", 0, 10, 1, 0),
		SREC(KERNEL, "a", 10, 300, 1, 1),
		SREC(LAUNCH, "cudaLaunchKernel", 600, 610, 2, 0),
		SREC(KERNEL, "a", 620, 1000, 2, 1),
		SREC(LAUNCH, "cudaLaunchKernel", 5, 8, 3, 0),
		SREC(KERNEL, "b", 20, 200, 3, 2),
		SREC(SYNC, "Context sync", 200, 500, 0, XP_GPU_STREAM_ANY),
		SREC(SYNC, "Stream sync", 320, 350, 0, 1),
		SREC(LAUNCH, "cudaLaunchKernel", 700, 710, 4, 0),
		SREC(KERNEL, "b", 720, 900, 4, 2),
	};
	const struct gp_gpu_interval win = {0, 1000};
	const uint64_t want[2][XP_GPU_SHARE_COUNT] = {{670, 0, 100, 30, 200, 0},
						      {360, 0, 305, 35, 300, 0}};
	struct gp_gpu_breakdown b;

	CHECK(gp_gpu_attribute(recs, sizeof(recs) / sizeof(recs[0]), &win, 1, &b) == 0, "rc");
	CHECK(b.n_streams == 2 && b.streams_omitted == 0, "%zu streams", b.n_streams);
	for (size_t i = 0; i < 2 && i < b.n_streams; i++) {
		CHECK(b.streams[i].stream == i + 1 && b.streams[i].kernels == 2, "stream %u: %u kernels",
		      b.streams[i].stream, b.streams[i].kernels);
		for (int s = 0; s < XP_GPU_SHARE_COUNT; s++)
			CHECK(b.streams[i].ns[s] == want[i][s], "stream %zu: %s = %llu, want %llu",
			      i + 1, gp_gpu_share_name((enum gp_gpu_share)s),
			      (unsigned long long)b.streams[i].ns[s],
			      (unsigned long long)want[i][s]);
	}
}

static void test_empty(void)
{
	const struct gp_gpu_interval win = {5, 105};
	const uint64_t host[XP_GPU_SHARE_COUNT] = {0, 0, 100, 0, 0, 0};
	const uint64_t none[XP_GPU_SHARE_COUNT] = {0};
	struct gp_gpu_breakdown b;

	CHECK(gp_gpu_attribute(NULL, 0, &win, 1, &b) == 0, "rc");
	expect(&b, host, 100, "no activity");
	CHECK(gp_gpu_attribute(NULL, 0, NULL, 0, &b) == 0, "rc");
	expect(&b, none, 0, "no window");
}

static void test_intervals(void)
{
	struct gp_ivs a = {0}, b = {0}, o = {0};

	gp_ivs_add(&a, 50, 60);
	gp_ivs_add(&a, 0, 10);
	gp_ivs_add(&a, 10, 20); /* touches: merged */
	gp_ivs_add(&a, 5, 5);	/* empty: ignored */
	gp_ivs_norm(&a);
	CHECK(a.n == 2 && a.v[0].end_ns == 20 && gp_ivs_len(&a) == 30, "norm n=%zu", a.n);
	gp_ivs_add(&b, 15, 55);
	gp_ivs_norm(&b);
	gp_ivs_intersect(&a, &b, &o);
	CHECK(o.n == 2 && gp_ivs_len(&o) == 10, "intersect %llu",
	      (unsigned long long)gp_ivs_len(&o));
	o.n = 0;
	gp_ivs_subtract(&a, &b, &o);
	CHECK(o.n == 2 && o.v[0].end_ns == 15 && o.v[1].start_ns == 55 && gp_ivs_len(&o) == 20,
	      "subtract");
	CHECK(gp_ivs_overlap(&a, 8, 52) == 14, "overlap %llu",
	      (unsigned long long)gp_ivs_overlap(&a, 8, 52));
	gp_ivs_free(&a);
	gp_ivs_free(&b);
	gp_ivs_free(&o);
}

static void test_l3_ids(void)
{
	for (int s = 0; s < XP_GPU_SHARE_COUNT; s++) {
		const struct th_l3 *l3 = th_l3_find(gp_gpu_share_l3((enum gp_gpu_share)s));

		CHECK(l3 && !strncmp(l3->l2_id, "intelligent.", 12), "share %d: %s not in theory",
		      s, gp_gpu_share_l3((enum gp_gpu_share)s));
	}
	CHECK(gp_gpu_share_l3(XP_GPU_SHARE_COUNT) == NULL, "out of range");
}

int main(void)
{
	test_single_stream();
	test_clipping_and_unknown_launch();
	test_overlap_streams();
	test_per_stream();
	test_empty();
	test_intervals();
	test_l3_ids();
	return test_failures != 0;
}
