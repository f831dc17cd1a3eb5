/* SPDX-License-Identifier: MIT */
/*
 * counters.h - perf_event counters for one thread or one child process.
 *
 * Shared by the SDK (per-span counters), the rubric scorer (per-run groups)
 * and the analyzer (names, kinds). Hardware counters are opened when the
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
	XP_CTR_COUNT
};

/* The TurnTrace name of each counter ("task_clock_ns", "instructions", ...). */
extern const char *const xp_counter_names[XP_CTR_COUNT];
/* 1 when the counter needs a hardware PMU. */
int xp_counter_is_hw(enum xp_counter c);

struct xp_counter_set {
	int fd[XP_CTR_COUNT];              /* -1 when unavailable */
	char why[XP_CTR_COUNT][64];        /* reason when fd == -1 */
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
/* Read all open counters into v (values scaled for multiplexing). */
void xp_counters_read(const struct xp_counter_set *s, struct xp_counter_values *v);
/* d = b - a, per counter; invalid when invalid in either. */
void xp_counters_diff(const struct xp_counter_values *a, const struct xp_counter_values *b,
		      struct xp_counter_values *d);
void xp_counters_close(struct xp_counter_set *s);

#endif /* XPERF_LIB_COUNTERS_H */
