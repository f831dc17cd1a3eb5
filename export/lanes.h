/* SPDX-License-Identifier: MIT */
/*
 * lanes.h - keep slices nested per track for the Chrome trace. Viewers draw
 * the complete events of one (pid, tid) as a stack, and two that overlap
 * without nesting break it (Perfetto moves them to an overflow track and
 * warns). A slice that does not nest on its track goes to the first overflow
 * lane of that track where it does; each lane is a synthetic tid.
 */
#ifndef XPERF_EXPORT_LANES_H
#define XPERF_EXPORT_LANES_H

#include <stdint.h>

/* Overflow lanes' tids count up from here: above any kernel pid (PID_MAX_LIMIT is 2^22),
 * below 2^31; the few below it name xperf's own tracks (chrome.h). */
#define XE_SYNTH_TID_BASE (1 << 30)

struct xe_lanes;

struct xe_place {
	int64_t tid; /* where to draw the slice */
	int lane;    /* 0: the track's own tid */
	int is_new;  /* first slice of this lane (of this track for lane 0): name it */
};

struct xe_lanes *xe_lanes_new(void);
void xe_lanes_free(struct xe_lanes *l);
/* Place [start, end] on track (pid, tid). 0 ok, -1 memory. */
int xe_lanes_place(struct xe_lanes *l, int64_t pid, int64_t tid, uint64_t start, uint64_t end,
		   struct xe_place *out);
#endif /* XPERF_EXPORT_LANES_H */
