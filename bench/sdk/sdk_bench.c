/* SPDX-License-Identifier: MIT */
/*
 * sdk_bench.c - what one xperf_enter/xperf_leave pair costs, side by side
 * with a bare pair of clock_gettime(CLOCK_MONOTONIC) calls in the same run.
 *
 * Configurations, measured round-robin in every repetition so that machine
 * noise hits all of them alike: the bare clock pair; the SDK with clocks only
 * (XPERF_NO_COUNTERS); with software counters (XPERF_NO_HW_COUNTERS); with
 * software and hardware counters (default; only where the PMU has them).
 * Prints one row per configuration: median ns per pair over the repetitions,
 * min and max, and the ratio of the medians to the bare pair. Then what
 * xperf_end_turn costs (building the JSON, the atomic write and its fsync)
 * for turns of 10, 100 and 1000 spans.
 *
 * usage: sdk_bench [pairs per repetition] [repetitions]
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "lib/counters.h"
#include "sdk/xperf.h"

enum { BARE, SYSCALL, CPU_CLOCK, SW_READ, CLOCKS, SOFTWARE, HARDWARE, NCONF };

/*
 * The indented rows are the floor: a bare syscall pair (what this machine
 * charges for entering the kernel at all), and what a boundary must call at
 * least (thread CPU clock without counters, one counter read with them).
 */
static const struct {
	const char *name;
	unsigned flags;
} confs[NCONF] = {
	[BARE] = { "bare clock_gettime pair", 0 },
	[SYSCALL] = { "  bare syscall pair", 0 },
	[CPU_CLOCK] = { "  thread CPU clock pair", 0 },
	[SW_READ] = { "  software counter reads", 0 },
	[CLOCKS] = { "xperf, clocks only", XPERF_NO_COUNTERS },
	[SOFTWARE] = { "xperf, software counters", XPERF_NO_HW_COUNTERS },
	[HARDWARE] = { "xperf, software + hardware", 0 },
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static volatile long sink;

/* A pair of clock_gettime calls on `clock`, as the bare baseline or the CPU-clock floor. */
static double clock_pair(int pairs, clockid_t clock)
{
	struct timespec a, b;
	double t0 = now_ns();

	for (int i = 0; i < pairs; i++) {
		clock_gettime(clock, &a);
		clock_gettime(clock, &b);
		sink += b.tv_nsec - a.tv_nsec;
	}
	return (now_ns() - t0) / pairs;
}

/* Two getppid(2) calls: the cheapest round trip into the kernel. */
static double syscall_pair(int pairs)
{
	double t0 = now_ns();

	for (int i = 0; i < pairs; i++) {
		sink += syscall(SYS_getppid);
		sink += syscall(SYS_getppid);
	}
	return (now_ns() - t0) / pairs;
}

static double sdk(int pairs, unsigned flags, const char *dir);

/* Two reads of the software counters, as a span's two boundaries do. */
static double sw_read(int pairs)
{
	static struct xp_counter_values a, b;
	struct xp_counter_set s;
	uint64_t sw = 0;
	double t0;

	for (int c = 0; c < XP_CTR_COUNT; c++)
		sw |= xp_counter_is_hw(c) ? 0 : 1ull << c;
	xp_counters_open(&s, 0, 0, sw);
	t0 = now_ns();
	for (int i = 0; i < pairs; i++) {
		xp_counters_read(&s, &a);
		xp_counters_read(&s, &b);
	}
	t0 = (now_ns() - t0) / pairs;
	xp_counters_close(&s);
	return t0;
}

static double run(int conf, int pairs, const char *dir)
{
	switch (conf) {
	case BARE:
		return clock_pair(pairs, CLOCK_MONOTONIC);
	case SYSCALL:
		return syscall_pair(pairs);
	case CPU_CLOCK:
		return clock_pair(pairs, CLOCK_THREAD_CPUTIME_ID);
	case SW_READ:
		return sw_read(pairs);
	default:
		return sdk(pairs, confs[conf].flags, dir);
	}
}

/* ns per pair in a fresh session; the turn's file is written outside the timing. */
static double sdk(int pairs, unsigned flags, const char *dir)
{
	struct xperf_options o = { .trace_dir = dir, .flags = flags };
	double t0, t;
	int turn;

	if (xperf_init(&(struct xperf_agent_info){ "sdk-bench", NULL }, &o) ||
	    (turn = xperf_start_turn()) < 0) {
		fprintf(stderr, "sdk_bench: xperf_init failed\n");
		exit(1);
	}
	xperf_leave(turn, xperf_enter(turn, "orchestration", NULL)); /* opens the counters */
	t0 = now_ns();
	for (int i = 0; i < pairs; i++)
		xperf_leave(turn, xperf_enter(turn, "prompt_assembly", NULL));
	t = (now_ns() - t0) / pairs;
	xperf_end_turn(turn);
	xperf_shutdown();
	return t;
}

/* ms for xperf_end_turn of a turn of `spans` spans: JSON, atomic write, fsync. */
static double end_turn_ms(int spans, const char *dir)
{
	struct xperf_options o = { .trace_dir = dir };
	double t0;
	int turn;

	xperf_init(&(struct xperf_agent_info){ "sdk-bench", NULL }, &o);
	turn = xperf_start_turn();
	for (int i = 0; i < spans; i++)
		xperf_leave(turn, xperf_enter(turn, "tool_call", "bash"));
	t0 = now_ns();
	xperf_end_turn(turn);
	t0 = (now_ns() - t0) / 1e6;
	xperf_shutdown();
	return t0;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int has_hw(void)
{
	struct xp_counter_set s;
	int n = xp_counters_open(&s, 0, 0, 1ull << XP_CTR_INSTRUCTIONS);

	xp_counters_close(&s);
	return n > 0;
}

int main(int argc, char **argv)
{
	int pairs = argc > 1 ? atoi(argv[1]) : 2000, reps = argc > 2 ? atoi(argv[2]) : 15;
	int nconf = has_hw() ? NCONF : HARDWARE;
	char dir[] = "/tmp/xperf-sdk-bench.XXXXXX";
	double *t[NCONF], med[NCONF];

	if (pairs < 1 || reps < 1 || reps > 1000 || !mkdtemp(dir)) {
		fprintf(stderr, "usage: sdk_bench [pairs >= 1] [1 <= repetitions <= 1000]\n");
		return 64;
	}
	for (int c = 0; c < NCONF; c++)
		t[c] = calloc((size_t)reps, sizeof(double));
	for (int r = 0; r < reps; r++)
		for (int c = 0; c < nconf; c++)
			t[c][r] = run(c, pairs, dir);
	printf("%d pairs x %d repetitions, round-robin\n", pairs, reps);
	printf("%-28s %10s %10s %10s %8s\n", "configuration", "median ns", "min", "max", "ratio");
	for (int c = 0; c < nconf; c++) {
		qsort(t[c], (size_t)reps, sizeof(double), cmp);
		med[c] = t[c][reps / 2];
		printf("%-28s %10.0f %10.0f %10.0f %7.1fx\n", confs[c].name, med[c], t[c][0],
		       t[c][reps - 1], med[c] / med[BARE]);
	}
	if (nconf == HARDWARE)
		printf("%-28s %10s\n", confs[HARDWARE].name, "not present (no hardware PMU)");
	printf("\n%-28s %10s %10s %10s\n", "xperf_end_turn", "median ms", "min", "max");
	for (int spans = 10; spans <= 1000; spans *= 10) {
		for (int r = 0; r < reps; r++)
			t[0][r] = end_turn_ms(spans, dir);
		qsort(t[0], (size_t)reps, sizeof(double), cmp);
		printf("%5d spans per turn %19.2f %10.2f %10.2f\n", spans, t[0][reps / 2],
		       t[0][0], t[0][reps - 1]);
	}
	for (int c = 0; c < NCONF; c++)
		free(t[c]);
	printf("traces in %s (delete at will)\n", dir);
	return 0;
}
