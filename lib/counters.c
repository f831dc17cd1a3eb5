/* SPDX-License-Identifier: MIT */
/*
 * counters.c - perf_event_open counters, opened in small groups.
 *
 * Each group is read with one read(2) on its leader (PERF_FORMAT_GROUP), so a
 * span boundary costs one syscall for the software counters and one per
 * hardware pair. task-clock cannot join the software group: on 6.x kernels a
 * task-clock leader silently stops its page-fault siblings from counting
 * (measured: 0 faults for 256 touched pages) and a task-clock member reads
 * about half the thread's CPU time (both live on other PMUs than the
 * software events). It needs no event of its own either: a per-task event
 * runs exactly while its task is on a CPU, so the software group's
 * time_running, which every group read returns, is the task clock (the
 * thread's CPU time, or its descendants' too with inherit). Only when that
 * group cannot open is task-clock opened alone. Kernels that refuse group
 * reads (EINVAL) get the same counters opened alone and read one by one. A
 * hardware counter that failed with ENOENT/EOPNOTSUPP/ENODEV (no PMU, or no
 * such event on this CPU) is remembered, so later opens (one per thread in
 * the SDK) skip the syscall.
 */
#define _GNU_SOURCE /* strerrorname_np */
#include "lib/counters.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CACHE_EV(id, res) ((id) | (PERF_COUNT_HW_CACHE_OP_READ << 8) | ((uint64_t)(res) << 16))

/* Event, and the group it is scheduled and read with, of each counter. */
static const struct {
	uint32_t type;
	uint64_t config;
	int group;
	int kernel_only; /* happens in the kernel: reads 0 when kernel counting is excluded */
} events[XP_CTR_COUNT] = {
	[XP_CTR_TASK_CLOCK] = { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0, 0 },
	[XP_CTR_CTX_SWITCHES] = { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 1, 1 },
	[XP_CTR_MIGRATIONS] = { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, 1, 1 },
	[XP_CTR_PAGE_FAULTS] = { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 1, 1 },
	[XP_CTR_MAJOR_FAULTS] = { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, 1, 1 },
	[XP_CTR_INSTRUCTIONS] = { PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 2, 0 },
	[XP_CTR_CYCLES] = { PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 2, 0 },
	[XP_CTR_L1D_MISSES] = { PERF_TYPE_HW_CACHE,
				CACHE_EV(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_RESULT_MISS),
				3, 0 },
	[XP_CTR_LLC_MISSES] = { PERF_TYPE_HW_CACHE,
				CACHE_EV(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_RESULT_MISS),
				4, 0 },
	[XP_CTR_BRANCH_MISSES] = { PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, 5, 0 },
	[XP_CTR_BRANCHES] = { PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 5, 0 },
	[XP_CTR_L1D_LOADS] = { PERF_TYPE_HW_CACHE,
			       CACHE_EV(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_RESULT_ACCESS),
			       3, 0 },
	[XP_CTR_LLC_LOADS] = { PERF_TYPE_HW_CACHE,
			       CACHE_EV(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_RESULT_ACCESS),
			       4, 0 },
};

#define NGROUPS 6
#define SW_GROUP 1 /* context switches, migrations, faults */
#define READ_TIMES (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING)

/* errno of a hardware counter that can never open on this machine, else 0. */
static _Atomic int hw_absent[XP_CTR_COUNT];

int xp_counter_is_hw(enum xp_counter c)
{
	return events[c].type != PERF_TYPE_SOFTWARE;
}

static int permanent_errno(int err)
{
	return err == ENOENT || err == EOPNOTSUPP || err == ENODEV;
}

/* The reason a counter is missing, in <= 63 characters. */
static void set_reason(char why[64], enum xp_counter c, int err)
{
	struct stat st;
	const char *what = "perf_event_open failed";

	if (permanent_errno(err) && xp_counter_is_hw(c))
		what = stat("/sys/bus/event_source/devices/cpu", &st)
			       ? "no hardware PMU"
			       : "event not supported by this CPU";
	else if (err == EACCES || err == EPERM)
		what = "not permitted (perf_event_paranoid)";
	snprintf(why, 64, "%s: perf_event_open %s", what, strerrorname_np(err) ?: "error");
}

/* One perf_event_open; returns the fd or -errno. */
static int open_event(enum xp_counter c, pid_t pid, int inherit, int on_exec, int group_fd,
		      int grouped)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = events[c].type;
	a.config = events[c].config;
	a.read_format = READ_TIMES | (grouped ? PERF_FORMAT_GROUP : 0);
	a.inherit = inherit ? 1 : 0;
	a.exclude_hv = 1;
	/* Only a leader carries the start condition; members follow it. */
	a.disabled = on_exec && group_fd < 0;
	a.enable_on_exec = on_exec && group_fd < 0;
	fd = (int)syscall(SYS_perf_event_open, &a, pid, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && (errno == EACCES || errno == EPERM) && !events[c].kernel_only) {
		/*
		 * perf_event_paranoid 2 still allows user-space-only counting;
		 * faults and switches would read a silent 0 that way, so they stay
		 * unavailable with their reason instead.
		 */
		a.exclude_kernel = 1;
		fd = (int)syscall(SYS_perf_event_open, &a, pid, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
	}
	return fd < 0 ? -errno : fd;
}

/* The counter whose fd leads group g (the first one opened), or -1. */
static int group_leader(const struct xp_counter_set *s, int g)
{
	for (int c = 0; c < XP_CTR_COUNT; c++)
		if (events[c].group == g && s->fd[c] >= 0)
			return c;
	return -1;
}

/* Open counter c alone or into its group: 1 opened, 0 not (reason set), -EINVAL: retry ungrouped. */
static int open_counter(struct xp_counter_set *s, enum xp_counter c, pid_t pid, int inherit,
			int on_exec)
{
	int absent = atomic_load_explicit(&hw_absent[c], memory_order_relaxed);

	if (absent) {
		set_reason(s->why[c], c, absent);
		return 0;
	}
	int l = s->grouped ? group_leader(s, events[c].group) : -1;
	int fd = open_event(c, pid, inherit, on_exec, l >= 0 ? s->fd[l] : -1, s->grouped);
	if (fd == -EINVAL && s->grouped && inherit)
		return -EINVAL; /* old kernels refuse inherit with PERF_FORMAT_GROUP */
	if (fd < 0) {
		if (permanent_errno(-fd) && xp_counter_is_hw(c))
			atomic_store_explicit(&hw_absent[c], -fd, memory_order_relaxed);
		set_reason(s->why[c], c, -fd);
		return 0;
	}
	s->fd[c] = fd;
	return 1;
}

static int open_all(struct xp_counter_set *s, pid_t pid, int inherit, int on_exec, uint64_t want,
		    int grouped)
{
	int n = 0, rc;

	s->grouped = grouped;
	s->task_clock_from_group = 0;
	for (int c = 0; c < XP_CTR_COUNT; c++) {
		s->fd[c] = -1;
		snprintf(s->why[c], 64, "%s", want & (1ull << c) ? "" : "not requested");
	}
	/* task-clock last: it opens only when the software group did not. */
	for (int i = 1; i <= XP_CTR_COUNT; i++) {
		enum xp_counter c = (enum xp_counter)(i % XP_CTR_COUNT);

		if (!(want & (1ull << c)))
			continue;
		if (c == XP_CTR_TASK_CLOCK && grouped && group_leader(s, SW_GROUP) >= 0) {
			s->task_clock_from_group = 1;
			n++;
			continue;
		}
		rc = open_counter(s, c, pid, inherit, on_exec);
		if (rc == -EINVAL) {
			xp_counters_close(s);
			return open_all(s, pid, inherit, on_exec, want, 0);
		}
		n += rc;
	}
	return n;
}

int xp_counters_open(struct xp_counter_set *s, pid_t pid, int inherit, uint64_t want)
{
	return open_all(s, pid, inherit, 0, want, 1);
}

int xp_counters_open_child(struct xp_counter_set *s, pid_t pid, uint64_t want)
{
	return open_all(s, pid, 1, 1, want, 1);
}

int xp_counter_scale(uint64_t raw, uint64_t enabled, uint64_t running, double *out)
{
	if (running == 0 && enabled != 0)
		return -1;
	if (running == 0 || running >= enabled)
		*out = (double)raw;
	else
		*out = (double)raw * ((double)enabled / (double)running);
	return 0;
}

static void store(struct xp_counter_values *v, enum xp_counter c, uint64_t raw, uint64_t en,
		  uint64_t run)
{
	if (xp_counter_scale(raw, en, run, &v->value[c]) == 0) {
		v->mask |= 1ull << c;
		v->why[c][0] = '\0';
	} else {
		v->mask &= ~(1ull << c);
		snprintf(v->why[c], 64, "never scheduled: PMU busy (multiplexed out)");
	}
}

int xp_counters_decode_group(const uint64_t *buf, size_t nwords, const enum xp_counter *members,
			     size_t nmembers, struct xp_counter_values *v)
{
	if (nwords < 3 || buf[0] != nmembers || nwords < 3 + nmembers)
		return -1;
	for (size_t i = 0; i < nmembers; i++)
		store(v, members[i], buf[3 + i], buf[1], buf[2]);
	return 0;
}

static void mark_unread(struct xp_counter_values *v, enum xp_counter c, int err)
{
	v->mask &= ~(1ull << c);
	snprintf(v->why[c], 64, "read failed: %s", strerrorname_np(err) ?: "error");
}

/*
 * Read group g through its leader; members in enum order, as they were
 * opened. The software group's time_running is the task clock when
 * task_clock_from_group.
 */
static void read_group(const struct xp_counter_set *s, int g, struct xp_counter_values *v)
{
	enum xp_counter members[XP_CTR_COUNT];
	uint64_t buf[3 + XP_CTR_COUNT];
	size_t n = 0;
	int clock = g == SW_GROUP && s->task_clock_from_group;

	for (int c = 0; c < XP_CTR_COUNT; c++)
		if (events[c].group == g && s->fd[c] >= 0)
			members[n++] = (enum xp_counter)c;
	if (n == 0)
		return;
	ssize_t got = read(s->fd[members[0]], buf, sizeof(buf));
	if (got < 0 || xp_counters_decode_group(buf, (size_t)got / 8, members, n, v)) {
		int err = got < 0 ? errno : EIO;

		for (size_t i = 0; i < n; i++)
			mark_unread(v, members[i], err);
		if (clock)
			mark_unread(v, XP_CTR_TASK_CLOCK, err);
		return;
	}
	if (clock)
		store(v, XP_CTR_TASK_CLOCK, buf[2], 0, 0);
}

int xp_counter_opened(const struct xp_counter_set *s, enum xp_counter c)
{
	return s->fd[c] >= 0 || (c == XP_CTR_TASK_CLOCK && s->task_clock_from_group);
}

static void read_one(const struct xp_counter_set *s, enum xp_counter c, struct xp_counter_values *v)
{
	uint64_t buf[3];

	errno = 0;
	if (read(s->fd[c], buf, sizeof(buf)) != (ssize_t)sizeof(buf))
		mark_unread(v, c, errno ? errno : EIO);
	else
		store(v, c, buf[0], buf[1], buf[2]);
}

void xp_counters_read(const struct xp_counter_set *s, struct xp_counter_values *v)
{
	v->mask = 0;
	for (int c = 0; c < XP_CTR_COUNT; c++) {
		v->value[c] = 0;
		memcpy(v->why[c], s->why[c], sizeof(v->why[c]));
	}
	if (s->grouped) {
		for (int g = 0; g < NGROUPS; g++)
			read_group(s, g, v);
		return;
	}
	for (int c = 0; c < XP_CTR_COUNT; c++)
		if (s->fd[c] >= 0)
			read_one(s, (enum xp_counter)c, v);
}

int xp_counters_ratio(const struct xp_counter_values *v, enum xp_counter num, enum xp_counter den,
		      double *out)
{
	uint64_t need = (1ull << num) | (1ull << den);

	if ((v->mask & need) != need || v->value[den] == 0)
		return -1;
	*out = v->value[num] / v->value[den];
	return 0;
}

void xp_counters_close(struct xp_counter_set *s)
{
	/* Members first: closing a leader first would orphan them into solo events. */
	for (int c = XP_CTR_COUNT - 1; c >= 0; c--) {
		if (s->fd[c] >= 0)
			close(s->fd[c]);
		s->fd[c] = -1;
	}
	s->task_clock_from_group = 0;
}
