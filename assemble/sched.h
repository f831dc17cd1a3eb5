/* SPDX-License-Identifier: MIT */
/*
 * sched.h - per-thread scheduler timelines: the state each traced thread was
 * in, from XT_SCHED transitions, so that the on-CPU, run-queue and blocked
 * time of any thread over any interval can be read back. Time before a
 * thread's first known state is counted nowhere (never guessed).
 */
#ifndef XPERF_ASSEMBLE_SCHED_H
#define XPERF_ASSEMBLE_SCHED_H

#include <stddef.h>

#include "assemble/event.h"

struct xt_sched_sum {
	uint64_t on_cpu_ns, runq_ns, blocked_ns;
};

struct xt_sched;

/*
 * max_marks: transitions kept per thread, 0 for no bound (the daemon's
 * --max-sched-marks). A thread at the bound forgets its earliest quarter,
 * counted (xt_sched_evicted): time before its first kept transition is then
 * counted nowhere, as before any transition; the state in force is kept.
 */
struct xt_sched *xt_sched_new(size_t max_marks);
void xt_sched_free(struct xt_sched *s);
/* Records one transition; 0, or -1 on ENOMEM. */
int xt_sched_add(struct xt_sched *s, const struct xt_event *ev);
/* 1 when any transition was recorded for tid. */
int xt_sched_known(const struct xt_sched *s, uint32_t tid);
/* Time of tid in each state over [a, b), into *sum; sum, or NULL when tid is not known. */
const struct xt_sched_sum *xt_sched_query(const struct xt_sched *s, uint32_t tid, uint64_t a,
					  uint64_t b, struct xt_sched_sum *sum);
/*
 * First time at or after t when tid entered state st and stayed in it at
 * least min_ns (a state still in force at the end counts); 0 if none known.
 */
uint64_t xt_sched_next(const struct xt_sched *s, uint32_t tid, enum xt_state st, uint64_t t,
		       uint64_t min_ns);
/*
 * When data a read waited for arrived: the last time in [from, to] tid was
 * woken from BLOCKED (entered RUNQ or ONCPU right after it); 0 if it never
 * slept there. An event loop wakes for timers too; the data ends the last
 * sleep before the read. Unlike the read's return time, it excludes
 * run-queue delay.
 */
uint64_t xt_sched_wakeup(const struct xt_sched *s, uint32_t tid, uint64_t from, uint64_t to);
/* Transitions forgotten at max_marks so far (not those xt_sched_prune let go). */
uint64_t xt_sched_evicted(const struct xt_sched *s);
/*
 * Forgets transitions before t (keeping the state in force at t), and the
 * threads blocked since before t (their next transition restores the sleep).
 */
void xt_sched_prune(struct xt_sched *s, uint64_t t);

#endif /* XPERF_ASSEMBLE_SCHED_H */
