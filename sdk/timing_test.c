/* SPDX-License-Identifier: MIT */
/*
 * timing_test.c - span measurements against ground truth on this machine:
 * a span around a known nanosleep lasts at least the sleep and is almost
 * all off-CPU (so a compute stage is Supply Bound); a span around a loop that
 * burns a known amount of thread CPU time has on_cpu_ns >= that amount and
 * <= its duration (Processing Bound unless the machine starved it), and the
 * task_clock_ns counter is the span's on_cpu_ns; every software
 * counter is read. Tagged
 * local (the sandbox's perf_event_paranoid rules refuse kernel-side
 * software counters) and exclusive (other tests would steal the CPU).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/counters.h"
#include "theory/theory.h"
#include "sdk/testutil.h"
#include "theory/theory.h"
#include "sdk/xperf.h"

#define SLEEP_NS 50000000ll /* 50 ms */
#define BURN_NS 50000000ll  /* 50 ms of CPU */

static int64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static volatile unsigned long sink;

static void burn(int64_t ns)
{
	int64_t end = thread_cpu_ns() + ns;

	while (thread_cpu_ns() < end)
		for (int i = 0; i < 1000; i++)
			sink += (unsigned long)i;
}

static const char *str(const cJSON *o, const char *key)
{
	return cJSON_GetStringValue(cJSON_GetObjectItem(o, key));
}

int main(void)
{
	char base[PATH_MAX], path[PATH_MAX];
	struct timespec nap = { 0, SLEEP_NS };
	const cJSON *sleep_span, *busy_span;
	int64_t dur, cpu, task;
	int turn, s;
	cJSON *doc;

	tu_tmpdir(base, sizeof(base), "timing");
	CHECK(xperf_init(&(struct xperf_agent_info){ "timing", NULL },
			 &(struct xperf_options){ .trace_dir = base }) == 0);
	turn = xperf_start_turn();
	s = xperf_enter(turn, "tool_call", "sleep");
	nanosleep(&nap, NULL);
	CHECK(xperf_leave(turn, s) == 0);
	s = xperf_enter(turn, "prompt_assembly", NULL);
	burn(BURN_NS);
	CHECK(xperf_leave(turn, s) == 0);
	CHECK(xperf_end_turn(turn) == 0);
	tu_turn_path(path, sizeof(path), turn);
	doc = tu_load(path);

	sleep_span = tu_span(doc, "tool_call");
	dur = tu_int(sleep_span, "end_ns") - tu_int(sleep_span, "start_ns");
	cpu = tu_int(cJSON_GetObjectItem(sleep_span, "sched"), "on_cpu_ns");
	printf("sleep span: dur %lld ns, on_cpu %lld ns\n", (long long)dur, (long long)cpu);
	CHECK(dur >= SLEEP_NS);
	CHECK(dur < SLEEP_NS + 250000000ll); /* catches double counting, not a loaded VM */
	CHECK(cpu >= 0 && cpu < 2000000);
	CHECK(strcmp(str(sleep_span, "category"), "supply") == 0);

	busy_span = tu_span(doc, "prompt_assembly");
	dur = tu_int(busy_span, "end_ns") - tu_int(busy_span, "start_ns");
	cpu = tu_int(cJSON_GetObjectItem(busy_span, "sched"), "on_cpu_ns");
	task = tu_int(cJSON_GetObjectItem(cJSON_GetObjectItem(busy_span, "counters"), "values"),
		      "task_clock_ns");
	printf("busy span: dur %lld ns, on_cpu %lld ns, task_clock %lld ns\n", (long long)dur,
	       (long long)cpu, (long long)task);
	/*
	 * With counters open the span's CPU time is its task clock (one read
	 * serves both). The burn loop counts CLOCK_THREAD_CPUTIME_ID, the
	 * scheduler's clock, which on a VM leaves out steal time that the task
	 * clock counts (measured here: 70 ms against 50 ms on a loaded host).
	 * The two clocks also close each preempted stretch at slightly different
	 * instants: at load average 4-10 on 2 cores the task clock read 20-350 us
	 * under the 50 ms burned, so 1% is allowed below it.
	 */
	CHECK(cpu >= BURN_NS - BURN_NS / 100);
	CHECK(cpu <= dur);
	CHECK(task == cpu);
	/*
	 * Processing when the thread got the CPU it asked for; on a machine so
	 * loaded that it ran under 30% of the time, waiting for a CPU is supply.
	 */
	CHECK(strcmp(str(busy_span, "category"),
		     (double)cpu >= th_rules.cpu_ratio_supply * (double)dur ? "processing"
									    : "supply") == 0);
	/* Outside a sandbox every software counter is read, never a reason. */
	for (int c = 0; c < XP_CTR_COUNT; c++)
		CHECK(xp_counter_is_hw(c) || tu_int(cJSON_GetObjectItem(cJSON_GetObjectItem(
				busy_span, "counters"), "values"), th_counter_name_table[c].name) >= 0);
	cJSON_Delete(doc);
	CHECK(xperf_shutdown() == 0);
	return tu_done("timing_test");
}
