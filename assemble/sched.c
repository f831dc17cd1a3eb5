/* SPDX-License-Identifier: MIT */
/*
 * sched.c - thread timelines as sorted arrays of (time, state entered).
 * A thread's last state lasts until a later transition says otherwise, so a
 * query past the last event counts the state the thread is still in.
 */
#include "assemble/sched.h"

#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"

struct mark {
	uint64_t t;
	enum xt_state st;
};

struct thread {
	uint32_t tid;
	struct mark *m;
	size_t n, cap;
};

struct xt_sched {
	struct thread *th;
	size_t n, cap;
	size_t max_marks; /* per thread, 0: no bound */
	uint64_t evicted;
};

struct xt_sched *xt_sched_new(size_t max_marks)
{
	struct xt_sched *s = calloc(1, sizeof(struct xt_sched));

	if (s)
		s->max_marks = max_marks;
	return s;
}

void xt_sched_free(struct xt_sched *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		free(s->th[i].m);
	free(s->th);
	free(s);
}

static struct thread *find(const struct xt_sched *s, uint32_t tid)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->th[i].tid == tid)
			return &s->th[i];
	return NULL;
}

/* Forgets th's first k transitions. */
static void forget(struct thread *th, size_t k)
{
	memmove(th->m, th->m + k, (th->n - k) * sizeof(*th->m));
	th->n -= k;
}

/* At the bound, the earliest quarter goes (at least one): amortized, not one per event. */
static void bound(struct xt_sched *s, struct thread *th)
{
	if (!s->max_marks || th->n < s->max_marks)
		return;
	size_t k = th->n - s->max_marks + 1 + s->max_marks / 4;

	forget(th, k);
	s->evicted += k;
}

static int push(struct xt_sched *s, struct thread *th, uint64_t t, enum xt_state st)
{
	bound(s, th);
	if (xp_grow((void **)&th->m, &th->cap, th->n + 1, sizeof(*th->m)))
		return -1;
	/* events from different CPUs may arrive slightly out of order */
	size_t i = th->n;

	while (i > 0 && th->m[i - 1].t > t) {
		th->m[i] = th->m[i - 1];
		i--;
	}
	th->m[i] = (struct mark){ t, st };
	th->n++;
	return 0;
}

int xt_sched_add(struct xt_sched *s, const struct xt_event *ev)
{
	struct thread *th = find(s, ev->tid);

	if (!th) {
		if (xp_grow((void **)&s->th, &s->cap, s->n + 1, sizeof(*s->th)))
			return -1;
		s->th[s->n] = (struct thread){ .tid = ev->tid };
		th = &s->th[s->n++];
		if (ev->prev_state != XT_ST_UNKNOWN && ev->prev_ns && ev->prev_ns <= ev->ts_ns &&
		    push(s, th, ev->ts_ns - ev->prev_ns, ev->prev_state))
			return -1;
	}
	return push(s, th, ev->ts_ns, ev->state);
}

int xt_sched_known(const struct xt_sched *s, uint32_t tid)
{
	return find(s, tid) != NULL;
}

const struct xt_sched_sum *xt_sched_query(const struct xt_sched *s, uint32_t tid, uint64_t a,
					  uint64_t b, struct xt_sched_sum *sum)
{
	const struct thread *th = find(s, tid);

	*sum = (struct xt_sched_sum){ 0, 0, 0 };
	for (size_t i = 0; th && i < th->n; i++) {
		uint64_t from = th->m[i].t > a ? th->m[i].t : a;
		uint64_t to = i + 1 < th->n && th->m[i + 1].t < b ? th->m[i + 1].t : b;

		if (to <= from)
			continue;
		if (th->m[i].st == XT_ST_ONCPU)
			sum->on_cpu_ns += to - from;
		else if (th->m[i].st == XT_ST_RUNQ)
			sum->runq_ns += to - from;
		else if (th->m[i].st == XT_ST_BLOCKED)
			sum->blocked_ns += to - from;
	}
	return th ? sum : NULL;
}

uint64_t xt_sched_next(const struct xt_sched *s, uint32_t tid, enum xt_state st, uint64_t t,
		       uint64_t min_ns)
{
	const struct thread *th = find(s, tid);

	for (size_t i = 0; th && i < th->n; i++) {
		if (th->m[i].t < t || th->m[i].st != st)
			continue;
		if (i + 1 == th->n || th->m[i + 1].t - th->m[i].t >= min_ns)
			return th->m[i].t;
	}
	return 0;
}

uint64_t xt_sched_wakeup(const struct xt_sched *s, uint32_t tid, uint64_t from, uint64_t to)
{
	const struct thread *th = find(s, tid);
	uint64_t t = 0;

	for (size_t i = 1; th && i < th->n && th->m[i].t <= to; i++)
		if (th->m[i].t >= from && th->m[i - 1].st == XT_ST_BLOCKED &&
		    th->m[i].st != XT_ST_BLOCKED)
			t = th->m[i].t;
	return t;
}

/*
 * A thread left blocked since before t is forgotten whole: its next
 * transition brings the sleep back (a new thread's first event carries the
 * state it leaves and since when), and one that exited (switched out for
 * good: blocked) has none. So the table holds the threads that ran since t.
 */
void xt_sched_prune(struct xt_sched *s, uint64_t t)
{
	size_t kept = 0;

	for (size_t i = 0; i < s->n; i++) {
		struct thread *th = &s->th[i];
		size_t k = 0;

		while (k + 1 < th->n && th->m[k + 1].t <= t)
			k++;
		forget(th, k);
		if (th->n == 1 && th->m[0].t <= t && th->m[0].st == XT_ST_BLOCKED)
			free(th->m);
		else
			s->th[kept++] = *th;
	}
	s->n = kept;
}

uint64_t xt_sched_evicted(const struct xt_sched *s)
{
	return s->evicted;
}
