/* SPDX-License-Identifier: MIT */
/*
 * chrome.h - the Chrome trace writer's state, shared by chrome.c (sessions,
 * threads, spans, marks, tokens) and chrome_gpu.c (GPU devices and streams).
 */
#ifndef XPERF_EXPORT_CHROME_H
#define XPERF_EXPORT_CHROME_H

#include "export/lanes.h"
#include "export/walk.h"

/* Tracks of xperf's own, below the overflow lanes' tids. */
#define XE_TID_TURNS (XE_SYNTH_TID_BASE - 1)    /* one slice per turn, in each session */
#define XE_TID_GPU_HOST (XE_SYNTH_TID_BASE - 2) /* launch, sync, overhead calls, per device */
/* GPU device d is process XE_GPU_PID_BASE + d; sessions are processes 1, 2, ... */
#define XE_GPU_PID_BASE (1 << 30)

struct chrome {
	struct xe_lanes *lanes;
	int64_t offset;       /* the current turn's: Unix-epoch ns - CLOCK_MONOTONIC ns */
	int64_t flows;        /* flow ids given so far */
	int64_t *gpu_named;   /* GPU pids whose process_name is written */
	size_t ngpu_named, cap_gpu_named;
};

/* A metadata event ("process_name", "thread_name") naming pid or (pid, tid). */
void xe_chrome_meta(struct xe_out *o, const char *what, int64_t pid, int64_t tid,
		    const char *name);
/* Place [start, end] on (pid, tid), naming the lane when new; the tid drawn on, -1 on memory. */
int64_t xe_chrome_place(struct chrome *c, struct xe_out *o, int64_t pid, int64_t tid,
			uint64_t start, uint64_t end, const char *track);
/*
 * A stamp of the current turn as whole microseconds of the wall clock (its clock
 * anchor's): viewers add ts + dur in floating point, which is exact for integers
 * up to 2^53 us (285 years) but not for microseconds with nanosecond decimals.
 */
uint64_t xe_chrome_us(const struct chrome *c, uint64_t ns);
/*
 * The slice [start, end] (ns of the current turn) on track (pid, tid), kept nested
 * by lanes.c (the lane named `track` when new): an "X" event in whole microseconds,
 * or, when both ends fall in one microsecond, an instant "i" on the same track (a
 * zero-length slice has no defined place in the stack). *drawn: the tid it is on.
 * NULL on memory.
 */
cJSON *xe_chrome_slice(struct chrome *c, struct xe_out *o, int64_t pid, int64_t tid,
		       uint64_t start, uint64_t end, const char *track, const char *cat,
		       const char *name, int64_t *drawn);
/* A new event of phase ph at (pid, tid, ts in microseconds), with cat and name. */
cJSON *xe_chrome_event(const char *ph, int64_t pid, int64_t tid, uint64_t ts_us, const char *cat,
		       const char *name);
/* chrome_gpu.c: the turn's gpu section on device tracks. 0 ok, -1 memory. */
int xe_chrome_gpu(struct chrome *c, const struct xe_turn *t, struct xe_out *o);

#endif /* XPERF_EXPORT_CHROME_H */
