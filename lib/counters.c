/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE /* strerrorname_np, gettid */
/*
 * counters.c - see counters.h.
 *
 * Software and hardware counters form two perf_event groups, so that one
 * read(2) on a group leader returns every member (a span boundary then costs
 * one syscall per group, not one per counter); with inherit on, the kernel
 * sums each member over the child's descendants. A group member's fd is kept in fd[] like any other; the leader is the first
 * open counter of its kind in enum order, and members come back in that order.
 */
#include "lib/counters.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

const char *const xp_counter_names[XP_CTR_COUNT] = {
	"task_clock_ns", "context_switches", "cpu_migrations", "page_faults", "major_faults",
	"instructions", "cycles", "l1d_misses", "llc_misses", "branch_misses",
	"branch_instructions",
};

#define CACHE(id, op, res) ((id) | ((op) << 8) | ((res) << 16))

/* perf_event type and config of each counter, indexed by enum xp_counter. */
static const struct {
	uint32_t type;
	uint64_t config;
} ctr_events[XP_CTR_COUNT] = {
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ PERF_TYPE_HW_CACHE, CACHE(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ,
				    PERF_COUNT_HW_CACHE_RESULT_MISS) },
	{ PERF_TYPE_HW_CACHE, CACHE(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_READ,
				    PERF_COUNT_HW_CACHE_RESULT_MISS) },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
};

#define READ_TIMES (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING)

int xp_counter_is_hw(enum xp_counter c)
{
	return ctr_events[c].type != PERF_TYPE_SOFTWARE;
}

static void set_reason(char why[64], const char *what, int err)
{
	snprintf(why, 64, "%s: perf_event_open %s", what, strerrorname_np(err) ?: "error");
}

static int open_one(enum xp_counter c, pid_t pid, int inherit, int group_fd)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = ctr_events[c].type;
	a.config = ctr_events[c].config;
	a.inherit = inherit ? 1 : 0;
	a.exclude_hv = 1;
	a.read_format = READ_TIMES | PERF_FORMAT_GROUP;
	return (int)syscall(SYS_perf_event_open, &a, pid, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
}

/* The leader of c's group: the first open counter of the same kind. */
static int leader_of(const struct xp_counter_set *s, enum xp_counter c)
{
	for (int i = 0; i < (int)c; i++)
		if (s->fd[i] >= 0 && xp_counter_is_hw(i) == xp_counter_is_hw(c))
			return s->fd[i];
	return -1;
}

int xp_counters_open(struct xp_counter_set *s, pid_t pid, int inherit, uint64_t want)
{
	int opened = 0;

	for (int c = 0; c < XP_CTR_COUNT; c++) {
		s->fd[c] = -1;
		s->why[c][0] = '\0';
		if (!(want & (1ull << c))) {
			snprintf(s->why[c], sizeof(s->why[c]), "not requested");
			continue;
		}
		s->fd[c] = open_one(c, pid, inherit, leader_of(s, c));
		if (s->fd[c] >= 0) {
			opened++;
			continue;
		}
		/* ENOENT/EOPNOTSUPP for a hardware event: the machine has no PMU. */
		if (xp_counter_is_hw(c) && (errno == ENOENT || errno == EOPNOTSUPP))
			set_reason(s->why[c], "no hardware PMU", errno);
		else
			set_reason(s->why[c], "unavailable", errno);
	}
	return opened;
}

static double scaled(uint64_t v, uint64_t enabled, uint64_t running)
{
	if (running == 0 || running >= enabled)
		return (double)v;
	return (double)v * ((double)enabled / (double)running);
}

static void mark_invalid(struct xp_counter_values *v, int c, const char *why)
{
	v->mask &= ~(1ull << c);
	v->value[c] = 0;
	snprintf(v->why[c], sizeof(v->why[c]), "%s", why);
}

/* One read(2) on a group leader; members follow in enum order. */
static void read_group(const struct xp_counter_set *s, int hw, struct xp_counter_values *v)
{
	uint64_t buf[3 + XP_CTR_COUNT];
	int leader = -1, n = 0;
	ssize_t r;

	for (int c = 0; c < XP_CTR_COUNT; c++)
		if (s->fd[c] >= 0 && xp_counter_is_hw(c) == hw && leader < 0)
			leader = s->fd[c];
	if (leader < 0)
		return;
	r = read(leader, buf, sizeof(buf));
	for (int c = 0; c < XP_CTR_COUNT; c++) {
		if (s->fd[c] < 0 || xp_counter_is_hw(c) != hw)
			continue;
		if (r < (ssize_t)(3 + n + 1) * 8 || (uint64_t)n >= buf[0]) {
			mark_invalid(v, c, "read failed");
			continue;
		}
		v->value[c] = scaled(buf[3 + n], buf[1], buf[2]);
		v->mask |= 1ull << c;
		n++;
	}
}

void xp_counters_read(const struct xp_counter_set *s, struct xp_counter_values *v)
{
	v->mask = 0;
	for (int c = 0; c < XP_CTR_COUNT; c++) {
		v->value[c] = 0;
		/* memcpy, not snprintf: this runs at every span boundary. */
		if (s->fd[c] < 0)
			memcpy(v->why[c], s->why[c], sizeof(v->why[c]));
	}
	read_group(s, 0, v);
	read_group(s, 1, v);
}

void xp_counters_diff(const struct xp_counter_values *a, const struct xp_counter_values *b,
		      struct xp_counter_values *d)
{
	d->mask = a->mask & b->mask;
	for (int c = 0; c < XP_CTR_COUNT; c++) {
		uint64_t bit = 1ull << c;

		d->value[c] = (d->mask & bit) ? b->value[c] - a->value[c] : 0;
		if (d->mask & bit)
			d->why[c][0] = '\0';
		else
			snprintf(d->why[c], sizeof(d->why[c]), "%s",
				 !(b->mask & bit) ? b->why[c] : a->why[c]);
	}
}

void xp_counters_close(struct xp_counter_set *s)
{
	for (int c = 0; c < XP_CTR_COUNT; c++) {
		if (s->fd[c] >= 0)
			close(s->fd[c]);
		s->fd[c] = -1;
	}
}
