/* SPDX-License-Identifier: MIT */
/* sched_procs_test.c - scheduler timelines and the process table. */
#include <string.h>

#include "assemble/procs.h"
#include "assemble/sched.h"
#include "lib/test_check.h"

static struct xt_event sched_ev(uint64_t t, uint32_t tid, enum xt_state st, enum xt_state prev,
				uint64_t prev_ns)
{
	struct xt_event ev = { .kind = XT_SCHED, .ts_ns = t, .tgid = tid, .tid = tid };

	ev.state = st;
	ev.prev_state = prev;
	ev.prev_ns = prev_ns;
	return ev;
}

static void test_sched(void)
{
	struct xt_sched *s = xt_sched_new(0);
	struct xt_event ev[] = {
		sched_ev(100, 7, XT_ST_ONCPU, XT_ST_BLOCKED, 50), /* blocked 50..100 */
		sched_ev(200, 7, XT_ST_BLOCKED, XT_ST_ONCPU, 100),
		sched_ev(300, 7, XT_ST_RUNQ, XT_ST_BLOCKED, 100),
		sched_ev(250, 7, XT_ST_ONCPU, XT_ST_RUNQ, 0), /* out of order: sorted in */
	};

	for (size_t i = 0; i < 4; i++)
		CHECK(xt_sched_add(s, &ev[i]) == 0);
	struct xt_sched_sum q;

	CHECK(xt_sched_query(s, 7, 0, 400, &q) == &q);

	/* blocked 50..100 and 200..250, on CPU 100..200 and 250..300, runq 300..400 */
	CHECK(q.blocked_ns == 100 && q.on_cpu_ns == 150 && q.runq_ns == 100);
	xt_sched_query(s, 7, 150, 260, &q);
	CHECK(q.on_cpu_ns == 60 && q.blocked_ns == 50 && q.runq_ns == 0);
	CHECK(xt_sched_next(s, 7, XT_ST_BLOCKED, 101, 0) == 200);
	CHECK(xt_sched_next(s, 7, XT_ST_BLOCKED, 201, 0) == 0);
	CHECK(xt_sched_next(s, 7, XT_ST_BLOCKED, 0, 60) == 0);   /* 50 ns blocks only */
	CHECK(xt_sched_next(s, 7, XT_ST_RUNQ, 0, 1000) == 300); /* last state: still in it */
	CHECK(xt_sched_wakeup(s, 7, 0, 240) == 100);
	CHECK(xt_sched_wakeup(s, 7, 0, 400) == 250); /* the last wakeup counts */
	CHECK(xt_sched_wakeup(s, 7, 101, 400) == 250);
	CHECK(xt_sched_wakeup(s, 7, 260, 400) == 0);
	CHECK(!xt_sched_known(s, 8) && !xt_sched_query(s, 8, 0, 100, &q) && q.on_cpu_ns == 0);
	xt_sched_prune(s, 260);
	xt_sched_query(s, 7, 0, 400, &q);
	CHECK(q.on_cpu_ns == 50 && q.runq_ns == 100); /* the state in force at 260 stays */
	/* thread 9 blocked since 500 is forgotten at 700; waking at 900 it brings the sleep back */
	struct xt_event sleep = sched_ev(500, 9, XT_ST_BLOCKED, XT_ST_ONCPU, 100);
	struct xt_event wake = sched_ev(900, 9, XT_ST_ONCPU, XT_ST_BLOCKED, 400);

	CHECK(xt_sched_add(s, &sleep) == 0);
	xt_sched_prune(s, 700);
	CHECK(!xt_sched_known(s, 9) && xt_sched_known(s, 7)); /* 7 waits in the run queue */
	CHECK(xt_sched_add(s, &wake) == 0);
	xt_sched_query(s, 9, 0, 1000, &q);
	CHECK(q.blocked_ns == 400 && q.on_cpu_ns == 100 && xt_sched_wakeup(s, 9, 0, 1000) == 900);
	xt_sched_free(s);
}

/* Past max_marks a thread's earliest quarter goes, counted; other threads keep theirs. */
static void test_sched_bound(void)
{
	struct xt_sched *s = xt_sched_new(8);
	struct xt_event other = sched_ev(150, 9, XT_ST_ONCPU, XT_ST_UNKNOWN, 0);

	CHECK(xt_sched_add(s, &other) == 0);
	for (uint64_t i = 1; i <= 20; i++) { /* on CPU at odd hundreds, blocked at even ones */
		struct xt_event ev = sched_ev(100 * i, 7, i % 2 ? XT_ST_ONCPU : XT_ST_BLOCKED,
					      XT_ST_UNKNOWN, 0);

		CHECK(xt_sched_add(s, &ev) == 0);
	}
	/* the 9th, 12th, 15th and 18th transitions each found 8 kept: 3 went each time */
	CHECK(xt_sched_evicted(s) == 12);
	struct xt_sched_sum q;

	xt_sched_query(s, 7, 0, 2100, &q);

	/* 1300..2100 kept (8 transitions), nothing counted before the first kept one */
	CHECK(q.on_cpu_ns == 400 && q.blocked_ns == 400);
	CHECK(xt_sched_next(s, 7, XT_ST_ONCPU, 0, 0) == 1300);
	CHECK(xt_sched_wakeup(s, 7, 0, 1250) == 0);
	CHECK(xt_sched_query(s, 9, 0, 200, &q)->on_cpu_ns == 50);
	for (uint64_t i = 21; i <= 1000; i++) {
		struct xt_event ev = sched_ev(100 * i, 7, i % 2 ? XT_ST_ONCPU : XT_ST_BLOCKED,
					      XT_ST_UNKNOWN, 0);

		CHECK(xt_sched_add(s, &ev) == 0);
	}
	/* never more than 8 kept: the earliest kept of 1000 is at least the 993rd */
	CHECK(xt_sched_next(s, 7, XT_ST_ONCPU, 0, 0) >= 99300);
	uint64_t evicted = xt_sched_evicted(s);

	CHECK(evicted >= 992 && evicted <= 1000 - 6);
	xt_sched_prune(s, 100000); /* pruning is not eviction */
	CHECK(xt_sched_evicted(s) == evicted);
	xt_sched_free(s);
}

static void test_procs(void)
{
	struct xt_procs t = { 0 };
	const char argv1[] = "/bin/bash\0-c\0/usr/bin/uname -s | tr a-z A-Z";
	const char argv2[] = "/usr/bin/python3\0-c\0x";
	struct xt_event ev[] = {
		{ .kind = XT_FORK, .ts_ns = 10, .tgid = 1, .child = 2 },
		{ .kind = XT_FORK, .ts_ns = 11, .tgid = 1, .child = 9, .is_thread = 1 },
		{ .kind = XT_EXEC, .ts_ns = 12, .tgid = 2, .argv = argv1, .argv_len = sizeof(argv1) },
		{ .kind = XT_FORK, .ts_ns = 13, .tgid = 2, .child = 3 },
		{ .kind = XT_EXEC, .ts_ns = 14, .tgid = 3, .argv = argv2, .argv_len = sizeof(argv2) },
		{ .kind = XT_EXIT, .ts_ns = 30, .tgid = 3, .wait_status = 9 },
		{ .kind = XT_EXIT, .ts_ns = 20, .tgid = 2, .wait_status = 1 << 8 },
		{ .kind = XT_EXEC, .ts_ns = 15, .tgid = 2, .argv = argv2, .argv_len = sizeof(argv2) },
	};

	for (size_t i = 0; i < 5; i++)
		CHECK(xt_procs_event(&t, &ev[i]) == 0);
	CHECK(xt_procs_find(&t, 9) == NULL); /* threads are not processes */
	const struct xt_proc *p = xt_procs_find(&t, 2);

	CHECK(p && !strcmp(p->tool, "uname") && !strcmp(p->comm, "bash"));
	CHECK(p && !strcmp(p->cmdline, "/bin/bash -c /usr/bin/uname -s | tr a-z A-Z"));
	CHECK(!strcmp(xt_procs_find(&t, 3)->tool, "python3"));
	CHECK(xt_procs_descends(&t, 3, 1) && !xt_procs_descends(&t, 1, 3));
	CHECK(xt_procs_tree_end(&t, 2) == 0); /* nothing exited yet */
	CHECK(xt_procs_event(&t, &ev[5]) == 0 && xt_procs_event(&t, &ev[6]) == 0);
	CHECK(xt_procs_event(&t, &ev[7]) == 0); /* bash exec'd its command: the name stays */
	CHECK(!strcmp(xt_procs_find(&t, 2)->tool, "uname"));
	CHECK(xt_procs_tree_end(&t, 2) == 30); /* the grandchild outlived its parent */
	CHECK(xt_exit_code(xt_procs_find(&t, 2)->wait_status) == 1);
	CHECK(xt_exit_signal(xt_procs_find(&t, 3)->wait_status) == 9);
	xt_procs_free(&t);
}

/* A key on a tool's command line never reaches the trace. */
static void test_cmdline_secret(void)
{
	struct xt_procs t = { 0 };
	const char argv[] = "curl\0-H\0Authorization: Bearer abc123\0--api-key\0"
			    "sk-0123456789abcdefghijklmn\0https://example.test/v1";
	struct xt_event ev[] = {
		{ .kind = XT_FORK, .ts_ns = 10, .tgid = 1, .child = 2 },
		{ .kind = XT_EXEC, .ts_ns = 12, .tgid = 2, .argv = argv, .argv_len = sizeof(argv) },
	};

	CHECK(xt_procs_event(&t, &ev[0]) == 0 && xt_procs_event(&t, &ev[1]) == 0);
	CHECK(!strcmp(xt_procs_find(&t, 2)->cmdline, "curl -H Authorization: Bearer [REDACTED] "
						      "--api-key [REDACTED] https://example.test/v1"));
	CHECK(!strcmp(xt_procs_find(&t, 2)->tool, "curl"));
	xt_procs_free(&t);
}

/*
 * At max the earliest exited quarter goes, counted; live processes and the
 * order (newest pid first) stay: the root lives, 11 children fork, all but
 * the last exit in an order of their own.
 */
static void test_procs_bound(void)
{
	struct xt_procs t = { 0 };
	struct xt_event ev = { .kind = XT_FORK, .ts_ns = 1, .tgid = 1, .child = 1 };
	static const uint64_t exit_at[] = { 90, 20, 80, 10, 70, 60, 50, 40, 30, 100 };

	t.max = 8;
	CHECK(xt_procs_event(&t, &ev) == 0); /* the root, alive to the end */
	for (uint32_t pid = 2; pid <= 12; pid++) {
		ev = (struct xt_event){ .kind = XT_FORK, .ts_ns = pid, .tgid = 1, .child = pid };
		CHECK(xt_procs_event(&t, &ev) == 0);
		if (pid - 2 < sizeof(exit_at) / sizeof(exit_at[0])) {
			ev = (struct xt_event){ .kind = XT_EXIT, .ts_ns = exit_at[pid - 2], .tgid = pid };
			CHECK(xt_procs_event(&t, &ev) == 0);
		}
	}
	/* forks 2..8 filled it (8 with the root); 9's fork evicted 5 and 3 (exits 10, 20), */
	/* 11's evicted 10 and 9 (30, 40): 6 and 7 (exits 60, 50) were not the earliest then */
	CHECK(t.evicted == 4 && t.n == 8);
	CHECK(!xt_procs_find(&t, 5) && !xt_procs_find(&t, 3) && !xt_procs_find(&t, 10) &&
	      !xt_procs_find(&t, 9));
	CHECK(xt_procs_find(&t, 1) && !xt_procs_find(&t, 1)->exited); /* live: kept */
	CHECK(xt_procs_find(&t, 12) && xt_procs_find(&t, 2) && xt_procs_find(&t, 11));
	for (size_t i = 1; i < t.n; i++)
		CHECK(t.p[i - 1].fork_ns < t.p[i].fork_ns); /* still in the order they came */
	xt_procs_free(&t);
}

int main(void)
{
	test_sched();
	test_sched_bound();
	test_procs();
	test_procs_bound();
	test_cmdline_secret();
	return test_failures != 0;
}
