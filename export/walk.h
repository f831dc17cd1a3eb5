/* SPDX-License-Identifier: MIT */
/*
 * walk.h - what the export formats share: the walk over loaded turns (walk.c),
 * the span table of a turn and the values both formats derive from a span
 * (span.c), and the event writer (emit.c).
 */
#ifndef XPERF_EXPORT_WALK_H
#define XPERF_EXPORT_WALK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "core/turn.h"
#include "export/export.h"
#include "lib/json_out.h"

/* One span of a turn, sorted by start, longer first (parents before children). */
struct xe_span {
	const struct tt_span *ts; /* as read (core/turn.h) */
	int parent_ix;            /* index in the sorted table, -1 for none */
};

/* One valid turn, as each format sees it. */
struct xe_turn {
	const struct tt_turn *turn; /* as read (core/read.h) */
	const char *path;
	int64_t offset;     /* Unix-epoch ns - CLOCK_MONOTONIC ns for this turn (walk.c) */
	const char *boot_id; /* the clock_anchor's boot id, NULL when the file gives none */
	int session;        /* 1-based, in order of first appearance */
	int first_of_session; /* the first turn of this session in the export */
	int session_changed;  /* not the session of the previous turn */
	struct xe_span *spans;
	size_t nspans;
	struct xe_id_ix *ids; /* span ids sorted, for xe_span_find */
};

/* The writer: events go out as compact JSON, one per line, each built in j and written to f. */
struct xe_out {
	FILE *f;
	struct xp_jout j; /* the item being written (emit.c); xp_jout_free after the export */
	size_t nitems; /* items written since xe_out_list_reset: separators */
	int failed;
};

/* A format: called once before the first turn, once per turn, once after the last. */
struct xe_format_ops {
	int (*begin)(void *st, struct xe_out *o);
	int (*turn)(void *st, const struct xe_turn *t, struct xe_out *o); /* XE_* */
	int (*end)(void *st, struct xe_out *o);
};

extern const struct xe_format_ops xe_chrome_ops, xe_otlp_ops;
void *xe_chrome_new(void);
void xe_chrome_free(void *st);
void *xe_otlp_new(void); /* freed with free() */

/*
 * walk.c: load, validate and hand every turn of paths to ops, each dated by
 * its clock anchor (see xe_options). XE_OK, XE_EINVALID, XE_EFAIL.
 */
int xe_walk(char *const *paths, int npaths, const struct xe_options *opt,
	    const struct xe_format_ops *ops, void *st, struct xe_out *o, FILE *err);

/* span.c: the span table of t->turn (sorted, parents resolved). 0 ok, -1 memory. */
int xe_spans_build(struct xe_turn *t);
void xe_spans_free(struct xe_turn *t);
/* Index of span `id` in the sorted table, -1 when absent. */
int xe_span_find(const struct xe_turn *t, int64_t id);
/* "stage" or "stage tool" (tool.name); the displayed name in both formats. */
void xe_span_name(const struct xe_span *s, char *out, size_t len);
/* L3 point the span's stage charges by default (theory's stage map); NULL for custom stages. */
static inline const char *xe_span_l3_home(const struct xe_span *s)
{
	return s->ts->st ? s->ts->st->l3_home : NULL;
}

/* emit.c: write item as the next element of the current list, and free it. */
void xe_put(struct xe_out *o, cJSON *item);
/* Write raw text; start a new list (the next xe_put writes no separator). */
void xe_puts(struct xe_out *o, const char *text);
void xe_out_list_reset(struct xe_out *o);
/* v as a plain integer literal (cJSON would print 1.79e+15). */
cJSON *xe_u64_raw(uint64_t v);

#endif /* XPERF_EXPORT_WALK_H */
