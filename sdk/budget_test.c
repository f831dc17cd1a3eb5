/* SPDX-License-Identifier: MIT */
/*
 * budget_test.c - counters never eat the host's file descriptors: with
 * RLIMIT_NOFILE at 256, at most 256 / (8 x 13) = 2 threads hold counters. A
 * third thread's span says why it has none; once a holder exits, its slot
 * goes to the next thread.
 */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "sdk/testutil.h"
#include "sdk/xperf.h"

static int turn;

/* One span on a thread of its own; returns its id. */
static void *one_span(void *arg)
{
	int *id = arg;

	*id = xperf_enter(turn, "tool_compute", NULL);
	CHECK(xperf_leave(turn, *id) == 0);
	return NULL;
}

/* Runs one_span on a new thread, which exits (releasing its counters). */
static int on_thread(void)
{
	pthread_t t;
	int id = 0;

	pthread_create(&t, NULL, one_span, &id);
	pthread_join(t, NULL);
	return id;
}

struct holder {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int state; /* 1: span done, counters held; 2: may exit */
};

static void *hold(void *arg)
{
	struct holder *h = arg;

	CHECK(xperf_leave(turn, xperf_enter(turn, "tool_compute", "holder")) == 0);
	pthread_mutex_lock(&h->lock);
	h->state = 1;
	pthread_cond_broadcast(&h->cond);
	while (h->state != 2)
		pthread_cond_wait(&h->cond, &h->lock);
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

static const char *task_clock_reason(const cJSON *doc, int id)
{
	const cJSON *s = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "spans"), id - 1);

	return cJSON_GetStringValue(cJSON_GetObjectItem(
		cJSON_GetObjectItem(cJSON_GetObjectItem(s, "counters"), "unavailable"),
		"task_clock_ns"));
}

int main(void)
{
	struct rlimit rl = { 256, 256 };
	struct holder h = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0 };
	char base[PATH_MAX], path[PATH_MAX];
	int refused, admitted;
	const char *why;
	pthread_t t;
	cJSON *doc;

	CHECK(setrlimit(RLIMIT_NOFILE, &rl) == 0);
	tu_tmpdir(base, sizeof(base), "budget");
	CHECK(xperf_init(&(struct xperf_agent_info){ "budget", NULL },
			 &(struct xperf_options){ .trace_dir = base }) == 0);
	turn = xperf_start_turn();
	CHECK(xperf_leave(turn, xperf_enter(turn, "orchestration", NULL)) == 0); /* slot 1 */
	pthread_create(&t, NULL, hold, &h);                                      /* slot 2 */
	pthread_mutex_lock(&h.lock);
	while (h.state != 1)
		pthread_cond_wait(&h.cond, &h.lock);
	pthread_mutex_unlock(&h.lock);
	refused = on_thread();
	pthread_mutex_lock(&h.lock);
	h.state = 2;
	pthread_cond_broadcast(&h.cond);
	pthread_mutex_unlock(&h.lock);
	pthread_join(t, NULL); /* the holder's slot is free again */
	admitted = on_thread();
	CHECK(xperf_end_turn(turn) == 0);
	tu_turn_path(path, sizeof(path), turn);
	doc = tu_load(path);
	why = task_clock_reason(doc, refused);
	CHECK(why && strstr(why, "2 threads already hold counters"));
	why = task_clock_reason(doc, admitted);
	CHECK(!why || !strstr(why, "already hold")); /* a value, or a reason of the kernel's */
	cJSON_Delete(doc);
	CHECK(xperf_shutdown() == 0);
	return tu_done("budget_test");
}
