/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE /* strerrorname_np, gettid */
/*
 * probe.c - what a span boundary measures, on the calling thread: the
 * CLOCK_MONOTONIC time, the thread's CPU time and its perf_event counters
 * (the CPU time is the task clock the counter read returns anyway, so it
 * costs no syscall of its own; CLOCK_THREAD_CPUTIME_ID without counters).
 *
 * Each thread opens its counters once, on its first boundary after
 * xperf_init, and keeps them in thread-local storage; a pthread key closes
 * them when the thread exits. The reasons of counters that could not be
 * opened are interned once per thread, so a boundary copies no strings.
 * The number of threads holding counters is bounded (thread_budget).
 * The thread id is cached too (reset in a forked child).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "lib/clock_anchor.h"
#include "sdk/internal.h"

#define ALL_COUNTERS ((1ull << XP_CTR_COUNT) - 1)

struct sd_thread {
	unsigned gen; /* sd_generation() when opened; 0: never */
	int nopen;    /* counters open; 0: boundaries skip the read */
	int counted;  /* 1: holds one of the threads_counting slots */
	struct xp_counter_set set;
	uint8_t why[XP_CTR_COUNT];
};

static __thread struct sd_thread self;
static __thread pid_t self_tid;
static pthread_key_t exit_key;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int threads_counting; /* threads holding counter descriptors */

/* In a forked child only the forking thread is left, with a new tid. */
static void fork_child(void)
{
	self_tid = 0;
	self.counted = 0;
	__atomic_store_n(&threads_counting, 0, __ATOMIC_RELAXED);
}

/*
 * Each thread with counters holds up to XP_CTR_COUNT descriptors until it
 * exits; a pool of many threads must not eat the host's descriptors, so
 * at most an eighth of RLIMIT_NOFILE goes to counters (1..256 threads).
 */
static int thread_budget(void)
{
	struct rlimit rl;
	rlim_t n = 65536;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		n = rl.rlim_cur;
	n /= 8 * XP_CTR_COUNT;
	return n < 1 ? 1 : n > 256 ? 256 : (int)n;
}

/* Runs at thread exit, on the exiting thread: its TLS is still there. */
static void thread_exit(void *unused)
{
	(void)unused;
	sd_probe_release();
}

static void init_once(void)
{
	pthread_key_create(&exit_key, thread_exit);
	pthread_atfork(NULL, NULL, fork_child);
}

pid_t sd_tid(void)
{
	if (!self_tid)
		self_tid = gettid();
	return self_tid;
}

uint64_t sd_now_ns(void)
{
	return xp_now_ns(CLOCK_MONOTONIC);
}

static void open_counters(unsigned gen)
{
	uint64_t want = (sd_flags() & XPERF_NO_COUNTERS) ? 0 : ALL_COUNTERS;
	int budget = thread_budget(), over = 0;

	for (int c = 0; c < XP_CTR_COUNT; c++)
		if ((sd_flags() & XPERF_NO_HW_COUNTERS) && xp_counter_is_hw(c))
			want &= ~(1ull << c);

	pthread_once(&once, init_once);
	sd_probe_release();
	if (want && __atomic_add_fetch(&threads_counting, 1, __ATOMIC_RELAXED) > budget) {
		__atomic_sub_fetch(&threads_counting, 1, __ATOMIC_RELAXED);
		want = 0;
		over = 1;
	}
	self.counted = want != 0;
	self.nopen = xp_counters_open(&self.set, 0, 0, want);
	for (int c = 0; over && c < XP_CTR_COUNT; c++)
		snprintf(self.set.why[c], sizeof(self.set.why[c]),
			 "not opened: %d threads already hold counters", budget);
	for (int c = 0; c < XP_CTR_COUNT; c++)
		self.why[c] = xp_counter_opened(&self.set, c) ? XP_NO_REASON
							      : sd_reason_intern(self.set.why[c]);
	self.gen = gen;
	pthread_setspecific(exit_key, &self);
}

void sd_probe(struct sd_sample *s, int leaving)
{
	unsigned gen = sd_generation();

	if (self.gen != gen)
		open_counters(gen);
	s->tid = sd_tid();
	memcpy(s->why, self.why, sizeof(s->why));
	/*
	 * The wall clock outermost: the CPU time is read inside the counter
	 * read (the task clock) or after it, so the span's CPU interval lies
	 * inside its wall interval (on_cpu_ns <= duration), at the price of
	 * one counter read inside each span's wall time.
	 */
	if (!leaving)
		s->mono_ns = sd_now_ns();
	s->ctr.mask = 0;
	if (self.nopen)
		xp_counters_read(&self.set, &s->ctr);
	s->cpu_ns = s->ctr.mask & (1ull << XP_CTR_TASK_CLOCK)
			    ? (uint64_t)s->ctr.value[XP_CTR_TASK_CLOCK]
			    : xp_now_ns(CLOCK_THREAD_CPUTIME_ID);
	if (leaving)
		s->mono_ns = sd_now_ns();
}

void sd_probe_release(void)
{
	if (!self.gen)
		return;
	xp_counters_close(&self.set);
	if (self.counted)
		__atomic_sub_fetch(&threads_counting, 1, __ATOMIC_RELAXED);
	self.counted = 0;
	self.gen = 0;
}
