/* SPDX-License-Identifier: MIT */
/*
 * top.h - `xperf top`: a live view of the agents being traced into a trace
 * directory (DIR/<session>/turn_*.json, as `xperf-bpf record`/`attach` write
 * them, and DIR/<node>/<session>/ as the node daemon does). sessions.c keeps one entry per session directory,
 * re-analysed (analyze/analyze.h) only when its turn files change, and tells
 * whether it is still recording (its .lock is held) and what the agent process
 * is doing now (/proc); frame.c draws one frame for a terminal of any size
 * (80x24 and up) in plain text with ANSI attributes.
 */
#ifndef XPERF_TOP_H
#define XPERF_TOP_H

#include <stddef.h>
#include <stdio.h>
#include <time.h>

#include "analyze/analyze.h"

#define TOP_NAME 64

struct top_session {
	char name[TOP_NAME];  /* the session directory's name */
	char node[TOP_NAME];  /* DIR/<node>/<session>: the node's; "" for DIR/<session> */
	char path[1024];      /* its identity */
	size_t nfiles;        /* turn files when it was analysed */
	struct timespec mtime;/* of the directory, then */
	int analysed;         /* live holds figures */
	struct xa_live live;
	int recording;        /* its .lock is held by a running recorder */
	char now[24];         /* what the agent does now: "tool sleep", "on CPU", "waiting", "ended" */
	int seen;             /* found in the last scan */
};

enum top_sort { TOP_SORT_COST, TOP_SORT_TURNS, TOP_SORT_WASTE, TOP_SORT_TTFT, TOP_SORT_NAME,
		TOP_SORT_COUNT };
extern const char *const top_sort_names[TOP_SORT_COUNT];

struct top {
	char dir[1024];
	const struct xa_prices *prices; /* NULL: the shipped table */
	struct top_session *s;
	size_t n, cap;
	enum top_sort sort;
	size_t selected;  /* index into s (after sorting) */
	int detail;       /* show the detail pane */
	char error[1100]; /* the last scan's problem, shown in the frame */
};

/* Rescan dir: new sessions, changed ones re-analysed, states refreshed, sorted. 0 ok, -1
 * when dir cannot be read (t->error says why). */
int top_scan(struct top *t);
void top_sort(struct top *t);
void top_free(struct top *t);

/* Draw one frame of cols x rows into out; ansi: with attributes (bold, reverse). */
void top_frame(const struct top *t, int cols, int rows, int ansi, FILE *out);

#endif /* XPERF_TOP_H */
