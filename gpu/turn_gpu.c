// SPDX-License-Identifier: MIT
/*
 * turn_gpu.c - merge GPU records into TurnTrace turns and read them back.
 *
 * A record belongs to a turn when it overlaps one of the turn's
 * intelligent-domain spans (the model's time); host launch and sync calls
 * follow the same rule, so attribution finds the launch of each kernel.
 */
#include "gpu/turn_gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/read.h"
#include "core/write.h"
#include "lib/atomic_file.h"

/*
 * The turn's intelligent-domain spans as intervals (caller frees *out).
 * Returns how many, or -1 on allocation failure.
 */
static int turn_windows(const struct tt_turn *turn, struct gp_gpu_interval **out)
{
	int n = 0;

	*out = calloc(turn->nspans + 1, sizeof(**out));
	if (!*out)
		return -1;
	for (size_t i = 0; i < turn->nspans; i++) {
		const struct tt_span *s = &turn->spans[i];

		if (s->domain == XP_DOMAIN_INTELLIGENT)
			(*out)[n++] = (struct gp_gpu_interval){ s->start_ns, s->end_ns };
	}
	return n;
}

static int overlaps(const struct gp_gpu_rec *r, const struct gp_gpu_interval *w, int n)
{
	for (int i = 0; i < n; i++)
		if (r->start_ns < w[i].end_ns && w[i].start_ns < r->end_ns)
			return 1;
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/*
 * Which records go into the turn: those overlapping a window, plus the
 * launch call of every selected device activity even when the call itself
 * came before the window (a kernel queued early). keep[i] is set.
 */
static int select_records(const struct gp_gpu_set *set, const struct gp_gpu_interval *win, int nwin,
			  char *keep)
{
	uint32_t *corr = malloc((set->n ? set->n : 1) * sizeof(*corr));
	size_t nc = 0;

	if (!corr)
		return -1;
	for (size_t i = 0; i < set->n; i++) {
		const struct gp_gpu_rec *r = &set->recs[i];

		keep[i] = (char)overlaps(r, win, nwin);
		if (keep[i] && r->kind != XP_GPU_LAUNCH && r->kind != XP_GPU_SYNC &&
		    r->correlation_id)
			corr[nc++] = r->correlation_id;
	}
	qsort(corr, nc, sizeof(*corr), cmp_u32);
	for (size_t i = 0; i < set->n; i++)
		if (!keep[i] && set->recs[i].kind == XP_GPU_LAUNCH && set->recs[i].correlation_id)
			keep[i] = bsearch(&set->recs[i].correlation_id, corr, nc, sizeof(*corr),
					  cmp_u32) != NULL;
	free(corr);
	return 0;
}

struct tt_gpu *gp_gpu_section(const struct gp_gpu_rec *recs, size_t n, uint64_t dropped,
			      enum gp_gpu_source src)
{
	struct tt_gpu *g = tt_gpu_new(gp_gpu_source_name(src), dropped);
	struct tt_gpu_act *a;

	for (size_t i = 0; g && i < n; i++) {
		const struct gp_gpu_rec *r = &recs[i];

		if (!gp_gpu_kind_name(r->kind) ||
		    !(a = tt_gpu_add(g, r->kind, r->start_ns, r->end_ns)) ||
		    !(a->name = strdup(r->name))) {
			tt_gpu_free(g);
			return NULL;
		}
		a->have = TT_GPU_ALL;
		a->device = r->device;
		a->stream = r->stream;
		a->correlation_id = r->correlation_id;
		a->bytes = r->bytes;
	}
	return g;
}

int gp_gpu_merge_turn(struct tt_turn *turn, const struct gp_gpu_set *set)
{
	uint64_t t0 = turn->start_ns, t1 = turn->end_ns;
	struct gp_gpu_interval *win;
	struct gp_gpu_rec *sel = NULL;
	int nwin = turn_windows(turn, &win);
	char *keep = NULL, line[512];
	size_t n = 0;

	tt_gpu_free(turn->gpu);
	turn->gpu = NULL;
	if (nwin <= 0) {
		free(win);
		return nwin;
	}
	sel = malloc((set->n ? set->n : 1) * sizeof(*sel));
	keep = malloc(set->n ? set->n : 1);
	if (!sel || !keep || select_records(set, win, nwin, keep))
		goto out;
	for (size_t i = 0; i < set->n; i++) {
		if (!keep[i])
			continue;
		sel[n] = set->recs[i];
		sel[n].start_ns = sel[n].start_ns < t0 ? t0 : sel[n].start_ns;
		sel[n].end_ns = sel[n].end_ns > t1 ? t1 : sel[n].end_ns;
		n++;
	}
	turn->gpu = gp_gpu_section(sel, n, set->dropped, set->source);
	/* the collectors' notices ("CUPTI held by another profiler") as data-quality warnings */
	for (size_t i = 0; turn->gpu && i < set->n_notices; i++) {
		snprintf(line, sizeof(line), "gpu: %s", set->notices[i]);
		tt_warn(turn, line);
	}
out:
	free(keep);
	free(sel);
	free(win);
	return turn->gpu ? (int)n : -1;
}

/* The section's activities -> records (*n); -1 with a message on the first malformed one. */
static int read_activities(const struct tt_gpu *g, struct gp_gpu_rec **recs, char *err,
			   size_t errlen)
{
	size_t i = 0;

	*recs = calloc(g->nacts + 1, sizeof(**recs));
	for (; *recs && i < g->nacts && g->acts[i].end_ns >= g->acts[i].start_ns; i++) {
		const struct tt_gpu_act *a = &g->acts[i];

		(*recs)[i] = (struct gp_gpu_rec){ a->kind, (uint32_t)a->device,
						  (uint32_t)a->stream, (uint32_t)a->correlation_id,
						  a->start_ns, a->end_ns, a->bytes, "" };
		snprintf((*recs)[i].name, sizeof((*recs)[i].name), "%s", a->name ? a->name : "?");
	}
	if (!*recs)
		snprintf(err, errlen, "out of memory");
	else if (i < g->nacts)
		snprintf(err, errlen, "/gpu/activities/%zu: end_ns before start_ns", i);
	return !*recs || i < g->nacts ? -1 : 0;
}

int gp_gpu_turn_breakdown(const struct tt_turn *turn, struct gp_gpu_breakdown *out, char *err,
			  size_t errlen)
{
	struct gp_gpu_interval *win = NULL;
	struct gp_gpu_rec *recs = NULL;
	int nwin, rc = -1;

	memset(out, 0, sizeof(*out));
	if (!turn->gpu)
		return 1;
	nwin = turn_windows(turn, &win);
	if (nwin < 0)
		snprintf(err, errlen, "out of memory");
	else if (!read_activities(turn->gpu, &recs, err, errlen)) {
		rc = gp_gpu_attribute(recs, turn->gpu->nacts, win, (size_t)nwin, out) ? -1 : 0;
		if (rc)
			snprintf(err, errlen, "out of memory");
	}
	free(recs);
	free(win);
	return rc;
}

int gp_gpu_merge_file(const char *path, const struct gp_gpu_set *set, sc_verror_fn cb, void *ctx,
		      char *err, size_t errlen)
{
	struct tt_turn *turn = tt_turn_load(path, cb, ctx, NULL);
	int n = turn ? gp_gpu_merge_turn(turn, set) : -1, wr = 0;

	if (!turn)
		snprintf(err, errlen, "%s: not a valid turn file", path);
	/* a directory without a record file leaves the turn file as it is */
	else if (n >= 0 && set->files > 0 && (wr = tt_turn_save(turn, path))) {
		snprintf(err, errlen, "%s: cannot write: %s", path, xp_out_strerror(wr));
		n = -2;
	}
	tt_turn_free(turn);
	return n;
}
