/* SPDX-License-Identifier: MIT */
/*
 * thread_test.c - several threads, each with its own nested spans, in one
 * turn: every span keeps its thread's id and its parent on that thread, none
 * is lost, and a span left by another thread is refused (XP_ETHREAD) and
 * stays open for its own thread. Threads that exit close their counters
 * (the process's open descriptors return to what they were). A turn ended
 * while three threads keep recording into it is still a valid file.
 * Detached spans may be left by any thread, but never before their children.
 */
#include <dirent.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sdk/testutil.h"
#include "sdk/xperf.h"

#define THREADS 4
#define PAIRS 200

static int turn;

struct handoff {
	int span;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int state; /* 0 waiting, 1 span entered, 2 foreign leave tried */
};

static void *worker(void *arg)
{
	int outer = xperf_enter(turn, "tool_compute", "worker");

	(void)arg;
	CHECK(outer > 0);
	for (int i = 0; i < PAIRS; i++) {
		int inner = xperf_enter(turn, "response_parse", NULL);

		CHECK(inner > 0);
		CHECK(xperf_leave(turn, inner) == 0);
	}
	CHECK(xperf_leave(turn, outer) == 0);
	return NULL;
}

/* Enters a span, lets main try to leave it, then leaves it itself. */
static void *owner(void *arg)
{
	struct handoff *h = arg;

	pthread_mutex_lock(&h->lock);
	h->span = xperf_enter(turn, "memory_ops", NULL);
	h->state = 1;
	pthread_cond_broadcast(&h->cond);
	while (h->state != 2)
		pthread_cond_wait(&h->cond, &h->lock);
	pthread_mutex_unlock(&h->lock);
	CHECK(xperf_leave(turn, h->span) == 0);
	return NULL;
}

/* Until the turn is gone: spans, tokens and marks as fast as possible. */
static void *racer(void *arg)
{
	int t = *(int *)arg, s;

	while ((s = xperf_enter_llm(t, NULL, NULL, 0)) > 0) {
		xperf_llm_token(t, s);
		xperf_mark_fused(t, "streaming_gap", NULL, 0);
		if (xperf_leave(t, s) == XP_ENOTURN)
			break;
	}
	CHECK(s == XP_ENOTURN || s > 0);
	return NULL;
}

/*
 * end_turn while three threads keep recording into the turn: whatever they
 * got in before it ended lies inside the turn's extent, open spans are
 * closed, and the file is valid.
 */
static void racing_end(void)
{
	char path[PATH_MAX];
	struct timespec nap = { 0, 20000000 };
	pthread_t t[3];
	int turn2 = xperf_start_turn();
	cJSON *doc;

	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, racer, &turn2);
	nanosleep(&nap, NULL);
	CHECK(xperf_end_turn(turn2) == 0);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	tu_turn_path(path, sizeof(path), turn2);
	doc = tu_load(path);
	CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "spans")) > 3);
	cJSON_Delete(doc);
}

struct hop {
	int turn, parent, child, llm;
};

/* Enters two detached spans under the main thread's detached parent. */
static void *hop_worker(void *arg)
{
	struct hop *h = arg;

	h->child = xperf_enter_ex(h->turn, &(struct xperf_span_opts){
		.stage = "tool_call", .tool_name = "fetch", .detached = 1, .parent = h->parent });
	h->llm = xperf_enter_ex(h->turn, &(struct xperf_span_opts){
		.llm = 1, .detached = 1, .parent = h->parent });
	return NULL;
}

/*
 * Detached spans hop threads: entered on a worker, left (and streamed to)
 * on main; a parent cannot be left before its children; bad parents are
 * refused; only wall time is written for them.
 */
static void detached(void)
{
	char path[PATH_MAX];
	struct hop h = { .turn = xperf_start_turn() };
	pthread_t t;
	const cJSON *spans, *c, *p;
	cJSON *doc;

	h.parent = xperf_enter_ex(h.turn, &(struct xperf_span_opts){ .stage = "orchestration",
								      .detached = 1 });
	CHECK(xperf_enter_ex(h.turn, &(struct xperf_span_opts){ .stage = "x", .parent = 1 }) ==
	      XP_EINVAL);
	CHECK(xperf_enter_ex(h.turn, &(struct xperf_span_opts){ .stage = "x", .detached = 1,
								 .parent = 9 }) == XP_ENOSPAN);
	CHECK(xperf_enter_ex(h.turn, NULL) == XP_EINVAL);
	pthread_create(&t, NULL, hop_worker, &h);
	pthread_join(t, NULL);
	CHECK(h.parent == 1 && h.child == 2 && h.llm == 3);
	CHECK(xperf_leave(h.turn, h.parent) == XP_EORDER); /* children still open */
	CHECK(xperf_llm_token(h.turn, h.llm) == 0);       /* from another thread: fine */
	CHECK(xperf_leave_llm(h.turn, h.llm, NULL, 0) == 0);
	CHECK(xperf_leave(h.turn, h.child) == 0);
	CHECK(xperf_enter_ex(h.turn, &(struct xperf_span_opts){
		      .stage = "x", .detached = 1, .parent = h.child }) == XP_ECLOSED);
	CHECK(xperf_leave(h.turn, h.parent) == 0);
	CHECK(xperf_end_turn(h.turn) == 0);
	tu_turn_path(path, sizeof(path), h.turn);
	doc = tu_load(path);
	spans = cJSON_GetObjectItem(doc, "spans");
	c = cJSON_GetArrayItem(spans, 1);
	p = cJSON_GetArrayItem(spans, 0);
	CHECK(tu_int(c, "parent") == 1 && tu_int(cJSON_GetArrayItem(spans, 2), "parent") == 1);
	CHECK(!cJSON_GetObjectItem(c, "sched") && !cJSON_GetObjectItem(c, "counters"));
	/* no CPU time: the CPU-ratio rule cannot call it supply (theory/rules.c) */
	CHECK(strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(c, "category")), "processing") == 0);
	CHECK(tu_int(c, "tid") != getpid() && tu_int(p, "tid") == getpid());
	CHECK(!tu_has_warning(doc, "not left"));
	cJSON_Delete(doc);
}

static int open_fds(void)
{
	return tu_count_entries("/proc/self/fd", "");
}

static void foreign_leave(void)
{
	struct handoff h = { 0, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0 };
	pthread_t t;

	pthread_create(&t, NULL, owner, &h);
	pthread_mutex_lock(&h.lock);
	while (h.state != 1)
		pthread_cond_wait(&h.cond, &h.lock);
	CHECK(xperf_leave(turn, h.span) == XP_ETHREAD);
	h.state = 2;
	pthread_cond_broadcast(&h.cond);
	pthread_mutex_unlock(&h.lock);
	pthread_join(t, NULL);
}

/* Each inner span's parent is an outer span of the same thread. */
static void check_spans(const cJSON *doc, int main_span)
{
	const cJSON *spans = cJSON_GetObjectItem(doc, "spans"), *s;
	int inner = 0;

	CHECK(cJSON_GetArraySize(spans) == 1 + THREADS * (PAIRS + 1) + 1);
	cJSON_ArrayForEach(s, spans) {
		const char *stage = cJSON_GetStringValue(cJSON_GetObjectItem(s, "stage"));
		const cJSON *parent = cJSON_GetArrayItem(spans, (int)tu_int(s, "parent") - 1);

		if (strcmp(stage, "tool_compute") == 0 || strcmp(stage, "memory_ops") == 0) {
			CHECK(cJSON_IsNull(cJSON_GetObjectItem(s, "parent")));
			CHECK(tu_int(s, "tid") != getpid());
		}
		if (strcmp(stage, "response_parse") != 0)
			continue;
		inner++;
		CHECK(parent && tu_int(parent, "tid") == tu_int(s, "tid"));
		CHECK(parent && strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(parent, "stage")),
				       "tool_compute") == 0);
	}
	CHECK(inner == THREADS * PAIRS);
	CHECK(tu_int(cJSON_GetArrayItem(spans, main_span - 1), "tid") == getpid());
}

int main(void)
{
	char base[PATH_MAX], path[PATH_MAX];
	pthread_t t[THREADS];
	int fds, main_span;
	cJSON *doc;

	tu_tmpdir(base, sizeof(base), "threads");
	CHECK(xperf_init(&(struct xperf_agent_info){ "threads", NULL },
			 &(struct xperf_options){ .trace_dir = base }) == 0);
	turn = xperf_start_turn();
	main_span = xperf_enter(turn, "orchestration", NULL);
	fds = open_fds();
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	foreign_leave();
	CHECK(open_fds() == fds);
	CHECK(xperf_leave(turn, main_span) == 0);
	CHECK(xperf_end_turn(turn) == 0);
	tu_turn_path(path, sizeof(path), turn);
	doc = tu_load(path);
	check_spans(doc, main_span);
	CHECK(!tu_has_warning(doc, "not left") && !tu_has_warning(doc, "custom stage"));
	cJSON_Delete(doc);
	racing_end();
	detached();
	CHECK(xperf_shutdown() == 0);
	return tu_done("thread_test");
}
