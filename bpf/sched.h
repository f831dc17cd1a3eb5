/* SPDX-License-Identifier: MIT */
/*
 * sched.h - records and map values of sched.bpf.c: per-thread scheduler
 * time of the traced process tree, split into on-CPU, runnable-but-waiting
 * (run queue) and blocked.
 */
#ifndef XPERF_BPF_SCHED_H
#define XPERF_BPF_SCHED_H

/* Scheduler state of a thread, as sched.bpf.c tracks it. */
enum xk_thread_state {
	XP_TS_UNKNOWN = 0,	/* not seen since tracing began */
	XP_TS_ONCPU = 1,
	XP_TS_RUNQ = 2,		/* runnable, waiting for a CPU */
	XP_TS_BLOCKED = 3,	/* sleeping: interruptible or not */
	XP_TS_MAX = 4,
};

/*
 * Value of the `tstats` map (key: tid). Times are sums since the thread was
 * first seen; the time spent in `state` since `last_ts` is not yet added.
 */
struct xk_sched_stats {
	__u64 oncpu_ns;
	__u64 runq_ns;
	__u64 blocked_ns;
	__u64 blocked_unint_ns;	/* part of blocked_ns in TASK_UNINTERRUPTIBLE (I/O, locks) */
	__u64 nr_voluntary;	/* switched out to sleep */
	__u64 nr_involuntary;	/* preempted while runnable */
	__u64 nr_wakeups;
	__u64 last_ts;		/* when `state` was entered */
	__u64 start_ns;		/* process start time (identity of tgid) */
	__u32 tgid;
	__u16 state;		/* enum xk_thread_state */
	__u16 unint;		/* state is XP_TS_BLOCKED in TASK_UNINTERRUPTIBLE */
};

/*
 * XP_EV_SCHED (only when sched_events is on): thread hdr.tid left
 * prev_state after prev_ns and entered state at hdr.ts_ns. Integrating
 * these gives a thread's on-CPU / run-queue / blocked time in any interval.
 */
struct xk_sched {
	struct xk_hdr hdr;
	__u64 prev_ns;		/* time spent in prev_state; 0 if it was unknown */
	__u8 prev_state;	/* enum xk_thread_state */
	__u8 state;		/* enum xk_thread_state */
	__u8 unint;		/* blocked in TASK_UNINTERRUPTIBLE */
	__u8 pad[5];
};

/* XP_EV_THREAD_EXIT: final totals of thread hdr.tid (state time included). */
struct xk_thread_exit {
	struct xk_hdr hdr;
	struct xk_sched_stats stats;
};

#define XP_MAX_THREADS 16384	/* tstats entries: 96 bytes + overhead each, ~2.5 MiB */

#endif /* XPERF_BPF_SCHED_H */
