/* SPDX-License-Identifier: MIT */
/*
 * counters.h - perf_event counters for one thread or one child process.
 *
 * Shared by the SDK (per-span counters), the rubric scorer (per-run groups)
 * and the analyzer (kinds); each counter's TurnTrace name is theory's
 * th_counter_name_table[counter]. Hardware counters are opened when the
 * machine has a PMU; where it has none, each missing counter carries a reason
 * ("no hardware PMU: perf_event_open ENOENT") instead of a silent zero.
 * Values are scaled by time_enabled/time_running when the kernel multiplexed.
 */
#ifndef XPERF_LIB_COUNTERS_H
#define XPERF_LIB_COUNTERS_H

#include <stdint.h>
#include <sys/types.h>

enum xp_counter {
	XP_CTR_TASK_CLOCK,   /* ns, software */
	XP_CTR_CTX_SWITCHES, /* software */
	XP_CTR_MIGRATIONS,   /* software */
	XP_CTR_PAGE_FAULTS,  /* software */
	XP_CTR_MAJOR_FAULTS, /* software */
	XP_CTR_INSTRUCTIONS, /* hardware */
	XP_CTR_CYCLES,       /* hardware */
	XP_CTR_L1D_MISSES,   /* hardware cache: L1D read misses */
	XP_CTR_LLC_MISSES,   /* hardware cache: LL read misses */
	XP_CTR_BRANCH_MISSES,/* hardware */
	XP_CTR_BRANCHES,     /* hardware */
	XP_CTR_L1D_LOADS,    /* hardware cache: L1D reads (denominator of the L1D miss rate) */
	XP_CTR_LLC_LOADS,    /* hardware cache: LL reads (denominator of the LLC miss rate) */
	XP_CTR_COUNT
};

/* 1 when the counter needs a hardware PMU. */
int xp_counter_is_hw(enum xp_counter c);

struct xp_counter_set {
	int fd[XP_CTR_COUNT];              /* -1 when unavailable */
	char why[XP_CTR_COUNT][64];        /* reason when fd == -1 */
	int grouped;                       /* 1: one read(2) per group leader (PERF_FORMAT_GROUP) */
	int task_clock_from_group;         /* 1: task clock = the software group's time_running */
};

struct xp_counter_values {
	uint64_t mask;                     /* bit c set: value[c] is valid */
	double value[XP_CTR_COUNT];        /* scaled */
	char why[XP_CTR_COUNT][64];        /* reason for each invalid one */
};

/*
 * Open the counters for `pid` (0 = calling thread, with inherit off; a child's
 * pid with inherit on follows its descendants). `want` is a bit mask of
 * counters (1 << XP_CTR_*). Never fails as a whole: unavailable counters are
 * marked with their reason. Returns the number opened.
 */
int xp_counters_open(struct xp_counter_set *s, pid_t pid, int inherit, uint64_t want);
/* 1 when counter c is read by xp_counters_read (an fd of its own or derived). */
int xp_counter_opened(const struct xp_counter_set *s, enum xp_counter c);
/* Read all open counters into v (values scaled for multiplexing). */
void xp_counters_read(const struct xp_counter_set *s, struct xp_counter_values *v);
/* Close every open counter (members before leaders); all fds become -1. */
void xp_counters_close(struct xp_counter_set *s);

/*
 * Counters come in groups that the kernel schedules together, so that the
 * two halves of a ratio are measured over the same time even when the PMU
 * multiplexes: software {context switches, migrations, faults},
 * {instructions, cycles}, {L1D misses, L1D loads}, {LLC misses, LLC loads},
 * {branch misses, branches}. Groups are read with one read(2) each. The task
 * clock is the software group's time_running (the time its task ran), so it
 * costs no read of its own; it has its own event only when that group
 * cannot open.
 */

/*
 * Open the counters for a child that is stopped before execve(): inherit on,
 * counting starts at the child's exec (enable_on_exec), so its setup is not
 * counted. Read them after wait4() has reaped the child. Same return and
 * reasons as xp_counters_open.
 */
int xp_counters_open_child(struct xp_counter_set *s, pid_t pid, uint64_t want);

/*
 * Scale a raw count for multiplexing: raw * enabled / running. Returns 0, or
 * -1 when the counter was enabled but never ran (no estimate is possible).
 * A counter never enabled (both times 0) reads as its raw value.
 */
int xp_counter_scale(uint64_t raw, uint64_t enabled, uint64_t running, double *out);

/*
 * Decode one group read as the kernel lays it out for read_format
 * PERF_FORMAT_GROUP | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING:
 * { nr, time_enabled, time_running, value[nr] } (u64 words). members[i] is
 * the counter of value[i]. Each valid value is stored scaled in v; a member
 * that never ran gets a reason. Returns 0, or -1 when the buffer is short or
 * nr differs from nmembers (nothing stored).
 */
int xp_counters_decode_group(const uint64_t *buf, size_t nwords, const enum xp_counter *members,
			     size_t nmembers, struct xp_counter_values *v);

/*
 * num / den from two valid counters of v (IPC = instructions / cycles, miss
 * rates = misses / loads). Returns 0, or -1 when either is invalid or den is 0.
 */
int xp_counters_ratio(const struct xp_counter_values *v, enum xp_counter num,
		      enum xp_counter den, double *out);

#endif /* XPERF_LIB_COUNTERS_H */
