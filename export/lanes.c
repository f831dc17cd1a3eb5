// SPDX-License-Identifier: MIT
/*
 * lanes.c - first-fit lanes of nested slices. Each lane keeps the stack of
 * slices still open at the last start placed. A slice fits a lane when,
 * after popping the slices that ended before it starts, it starts no
 * earlier than the top and ends no later (or the stack is empty). Slices
 * come sorted per turn but turns may interleave: the "no earlier" test keeps
 * the lanes nested in any order, at worst with more lanes.
 */
#include "export/lanes.h"

#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"

struct slice {
	uint64_t start, end;
};

struct lane {
	int64_t tid;
	struct slice *stack;
	size_t depth, cap;
};

struct track {
	int64_t pid, tid;
	struct lane *lanes;
	size_t nlanes, cap;
};

struct xe_lanes {
	struct track *tracks; /* sorted by (pid, tid) */
	size_t n, cap;
	int64_t next_synthetic;
};

struct xe_lanes *xe_lanes_new(void)
{
	struct xe_lanes *l = calloc(1, sizeof(*l));

	if (l)
		l->next_synthetic = XE_SYNTH_TID_BASE;
	return l;
}

void xe_lanes_free(struct xe_lanes *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++) {
		for (size_t k = 0; k < l->tracks[i].nlanes; k++)
			free(l->tracks[i].lanes[k].stack);
		free(l->tracks[i].lanes);
	}
	free(l->tracks);
	free(l);
}

/* The track (pid, tid), inserted in order when new; NULL on memory. */
static struct track *track_of(struct xe_lanes *l, int64_t pid, int64_t tid)
{
	size_t lo = 0, hi = l->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct track *t = &l->tracks[mid];

		if (t->pid < pid || (t->pid == pid && t->tid < tid))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < l->n && l->tracks[lo].pid == pid && l->tracks[lo].tid == tid)
		return &l->tracks[lo];
	if (xp_grow((void **)&l->tracks, &l->cap, l->n + 1, sizeof(*l->tracks)))
		return NULL;
	memmove(&l->tracks[lo + 1], &l->tracks[lo], (l->n - lo) * sizeof(*l->tracks));
	l->tracks[lo] = (struct track){ pid, tid, NULL, 0, 0 };
	l->n++;
	return &l->tracks[lo];
}

static int fits(struct lane *ln, uint64_t start, uint64_t end)
{
	while (ln->depth && ln->stack[ln->depth - 1].end <= start)
		ln->depth--;
	if (!ln->depth)
		return 1;
	return start >= ln->stack[ln->depth - 1].start && end <= ln->stack[ln->depth - 1].end;
}

static int push(struct lane *ln, uint64_t start, uint64_t end)
{
	if (xp_grow((void **)&ln->stack, &ln->cap, ln->depth + 1, sizeof(*ln->stack)))
		return -1;
	ln->stack[ln->depth++] = (struct slice){ start, end };
	return 0;
}

int xe_lanes_place(struct xe_lanes *l, int64_t pid, int64_t tid, uint64_t start, uint64_t end,
		   struct xe_place *out)
{
	struct track *t = track_of(l, pid, tid);
	size_t k = 0;

	if (!t)
		return -1;
	while (k < t->nlanes && !fits(&t->lanes[k], start, end))
		k++;
	out->is_new = k == t->nlanes;
	if (out->is_new) {
		if (xp_grow((void **)&t->lanes, &t->cap, k + 1, sizeof(*t->lanes)))
			return -1;
		t->lanes[k] = (struct lane){ k ? l->next_synthetic++ : tid, NULL, 0, 0 };
		t->nlanes++;
	}
	out->tid = t->lanes[k].tid;
	out->lane = (int)k;
	return push(&t->lanes[k], start, end);
}
