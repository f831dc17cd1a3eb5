// SPDX-License-Identifier: MIT
/*
 * attribute.c - split a turn's GPU window into compute, non-compute and idle
 * by cause, and rank kernels by time.
 *
 * All devices and streams of the node are merged into one busy timeline
 * (the question is "was the GPU side doing anything for this turn"). An idle
 * gap [g0, g1) is explained by the first device activity that starts at or
 * after g1 and by its launch call L (same correlation id), as in HTA's idle
 * time analysis: [g0, L.start) the host had not asked yet (host wait, minus
 * the part the host spent inside a synchronisation call, which is sync),
 * [L.start, g1) the launch was in flight (launch overhead). A gap with no
 * later activity is host wait; one whose activity has no recorded launch is
 * "other". Shares map to theory L3 ids through a table.
 *
 * Each stream is then split the same way on its own: its activities make the
 * busy timeline, and only the sync calls that waited on it or on the whole
 * device explain its idle time (another thread's wait on another stream does
 * not).
 */
#include "gpu/attribute.h"

#include <stdlib.h>
#include <string.h>

#include "gpu/intervals.h"

static const struct {
	const char *name;
	const char *l3;
} shares[XP_GPU_SHARE_COUNT] = {
	[XP_GPU_COMPUTE] = {"compute", "intelligent.processing.gpu_kernel"},
	[XP_GPU_NONCOMPUTE] = {"noncompute", "intelligent.processing.gpu_memcpy"},
	[XP_GPU_IDLE_HOST_WAIT] = {"idle_host_wait", "intelligent.supply.gpu_host_wait"},
	[XP_GPU_IDLE_LAUNCH] = {"idle_launch_overhead", "intelligent.supply.gpu_launch_overhead"},
	[XP_GPU_IDLE_SYNC] = {"idle_sync", "intelligent.processing.gpu_sync"},
	/* unexplained idle: theory's gpu_idle stage charges it to host wait */
	[XP_GPU_IDLE_OTHER] = {"idle_other", "intelligent.supply.gpu_host_wait"},
};

const char *gp_gpu_share_name(enum gp_gpu_share s)
{
	return (unsigned)s < XP_GPU_SHARE_COUNT ? shares[s].name : NULL;
}

const char *gp_gpu_share_l3(enum gp_gpu_share s)
{
	return (unsigned)s < XP_GPU_SHARE_COUNT ? shares[s].l3 : NULL;
}

struct work {
	struct gp_ivs win, kern, copy, busy, sync, tmp;
	const struct gp_gpu_rec **dev;	  /* kernels, copies, memsets by start */
	const struct gp_gpu_rec **launch; /* launch calls by correlation id */
	size_t n_dev, n_launch;
	int borrowed; /* launch is the whole pass's */
};

/* Which records a pass looks at: all, or one stream's (the launch calls: all's). */
struct filter {
	const struct work *all; /* NULL: the whole pass */
	uint32_t device, stream;
};

static int dev_by_start(const void *a, const void *b)
{
	const struct gp_gpu_rec *x = *(const struct gp_gpu_rec *const *)a;
	const struct gp_gpu_rec *y = *(const struct gp_gpu_rec *const *)b;

	return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
}

static int launch_by_corr(const void *a, const void *b)
{
	const struct gp_gpu_rec *x = *(const struct gp_gpu_rec *const *)a;
	const struct gp_gpu_rec *y = *(const struct gp_gpu_rec *const *)b;

	return (x->correlation_id > y->correlation_id) - (x->correlation_id < y->correlation_id);
}

static int kept(const struct filter *f, const struct gp_gpu_rec *r)
{
	if (!f->all)
		return 1;
	if (th_gpu_kind_on_device(r->kind))
		return r->device == f->device && r->stream == f->stream;
	if (r->kind == XP_GPU_SYNC)
		return r->stream == f->stream || r->stream == XP_GPU_STREAM_ANY;
	return 1;
}

/* Sort the records f keeps into the interval sets and lookup arrays. */
static int build(struct work *w, const struct gp_gpu_rec *recs, size_t n,
		 const struct gp_gpu_interval *win, size_t nwin, const struct filter *f)
{
	w->dev = malloc((n ? n : 1) * sizeof(*w->dev));
	w->borrowed = f->all != NULL;
	w->launch = f->all ? f->all->launch : malloc((n ? n : 1) * sizeof(*w->launch));
	w->n_launch = f->all ? f->all->n_launch : 0;
	if (!w->dev || !w->launch)
		return -1;
	for (size_t i = 0; i < nwin; i++)
		if (gp_ivs_add(&w->win, win[i].start_ns, win[i].end_ns))
			return -1;
	for (size_t i = 0; i < n; i++) {
		const struct gp_gpu_rec *r = &recs[i];
		struct gp_ivs *set;

		if (!kept(f, r))
			continue;
		set = r->kind == XP_GPU_KERNEL		? &w->kern
		      : r->kind == XP_GPU_SYNC		? &w->sync
		      : th_gpu_kind_on_device(r->kind) ? &w->copy
						       : NULL;
		if (set && gp_ivs_add(set, r->start_ns, r->end_ns))
			return -1;
		if (th_gpu_kind_on_device(r->kind) && gp_ivs_add(&w->busy, r->start_ns, r->end_ns))
			return -1;
		if (th_gpu_kind_on_device(r->kind))
			w->dev[w->n_dev++] = r;
		else if (r->kind == XP_GPU_LAUNCH && r->correlation_id && !f->all)
			w->launch[w->n_launch++] = r;
	}
	gp_ivs_norm(&w->win);
	gp_ivs_norm(&w->kern);
	gp_ivs_norm(&w->copy);
	gp_ivs_norm(&w->busy);
	gp_ivs_norm(&w->sync);
	qsort(w->dev, w->n_dev, sizeof(*w->dev), dev_by_start);
	if (!f->all)
		qsort(w->launch, w->n_launch, sizeof(*w->launch), launch_by_corr);
	return 0;
}

static const struct gp_gpu_rec *next_activity(const struct work *w, uint64_t t)
{
	size_t lo = 0, hi = w->n_dev;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (w->dev[mid]->start_ns < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < w->n_dev ? w->dev[lo] : NULL;
}

static const struct gp_gpu_rec *launch_of(const struct work *w, const struct gp_gpu_rec *act)
{
	const struct gp_gpu_rec key = {.correlation_id = act->correlation_id}, *kp = &key;
	const struct gp_gpu_rec **hit;

	if (!act->correlation_id)
		return NULL;
	hit = bsearch(&kp, w->launch, w->n_launch, sizeof(*w->launch), launch_by_corr);
	return hit ? *hit : NULL;
}

/* Charge the idle gap [g0, g1) to its causes. */
static void classify_gap(const struct work *w, uint64_t g0, uint64_t g1, uint64_t *ns)
{
	const struct gp_gpu_rec *next = next_activity(w, g1), *l = next ? launch_of(w, next) : NULL;
	uint64_t p = g1, sync;

	if (l)
		p = l->start_ns < g0 ? g0 : l->start_ns > g1 ? g1 : l->start_ns;
	sync = gp_ivs_overlap(&w->sync, g0, p);
	ns[XP_GPU_IDLE_SYNC] += sync;
	ns[next && !l ? XP_GPU_IDLE_OTHER : XP_GPU_IDLE_HOST_WAIT] += p - g0 - sync;
	ns[XP_GPU_IDLE_LAUNCH] += g1 - p;
}

static int by_name(const void *a, const void *b)
{
	return strcmp((*(const struct gp_gpu_rec *const *)a)->name,
		      (*(const struct gp_gpu_rec *const *)b)->name);
}

static int by_total_desc(const void *a, const void *b)
{
	const struct gp_gpu_kernel_stat *x = a, *y = b;

	if (x->total_ns != y->total_ns)
		return x->total_ns < y->total_ns ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* Aggregate kernels overlapping the window by name; keep the top ones. */
static int top_kernels(const struct work *w, struct gp_gpu_breakdown *out)
{
	const struct gp_gpu_rec **k = malloc((w->n_dev ? w->n_dev : 1) * sizeof(*k));
	struct gp_gpu_kernel_stat *st = calloc(w->n_dev ? w->n_dev : 1, sizeof(*st));
	size_t nk = 0, ns = 0;

	if (!k || !st) {
		free(k);
		free(st);
		return -1;
	}
	for (size_t i = 0; i < w->n_dev; i++)
		if (w->dev[i]->kind == XP_GPU_KERNEL &&
		    gp_ivs_overlap(&w->win, w->dev[i]->start_ns, w->dev[i]->end_ns))
			k[nk++] = w->dev[i];
	qsort(k, nk, sizeof(*k), by_name);
	for (size_t i = 0; i < nk; i++) {
		if (!ns || strcmp(st[ns - 1].name, k[i]->name))
			memcpy(st[ns++].name, k[i]->name, sizeof(st->name));
		st[ns - 1].total_ns += gp_ivs_overlap(&w->win, k[i]->start_ns, k[i]->end_ns);
		st[ns - 1].count++;
	}
	qsort(st, ns, sizeof(*st), by_total_desc);
	out->n_top = ns < XP_GPU_TOP_KERNELS ? ns : XP_GPU_TOP_KERNELS;
	memcpy(out->top, st, out->n_top * sizeof(*st));
	free(k);
	free(st);
	return 0;
}

/* compute, non-compute (copies outside kernels) and the classified idle gaps. */
static int shares_of(struct work *w, uint64_t ns[XP_GPU_SHARE_COUNT])
{
	struct gp_ivs a = {0}, b = {0}, idle = {0};
	int rc = -1;

	if (gp_ivs_intersect(&w->kern, &w->win, &a) || gp_ivs_subtract(&w->copy, &w->kern, &b) ||
	    gp_ivs_intersect(&b, &w->win, &w->tmp) || gp_ivs_subtract(&w->win, &w->busy, &idle))
		goto out;
	ns[XP_GPU_COMPUTE] = gp_ivs_len(&a);
	ns[XP_GPU_NONCOMPUTE] = gp_ivs_len(&w->tmp);
	for (size_t i = 0; i < idle.n; i++)
		classify_gap(w, idle.v[i].start_ns, idle.v[i].end_ns, ns);
	rc = 0;
out:
	gp_ivs_free(&a);
	gp_ivs_free(&b);
	gp_ivs_free(&idle);
	return rc;
}

static void work_free(struct work *w)
{
	gp_ivs_free(&w->win);
	gp_ivs_free(&w->kern);
	gp_ivs_free(&w->copy);
	gp_ivs_free(&w->busy);
	gp_ivs_free(&w->sync);
	gp_ivs_free(&w->tmp);
	free(w->dev);
	if (!w->borrowed)
		free(w->launch);
}

static uint64_t busy_ns(const struct gp_gpu_stream_share *s)
{
	return s->ns[XP_GPU_COMPUTE] + s->ns[XP_GPU_NONCOMPUTE];
}

static int by_busy_desc(const void *a, const void *b)
{
	uint64_t x = busy_ns(a), y = busy_ns(b);

	return (x < y) - (x > y);
}

/* One stream's shares over the window, and its kernels in it. */
static int stream_pass(const struct work *all, const struct gp_gpu_rec *recs, size_t n,
		       const struct gp_gpu_interval *win, size_t nwin, struct gp_gpu_stream_share *s)
{
	struct filter f = {all, s->device, s->stream};
	struct work w = {0};
	int rc = build(&w, recs, n, win, nwin, &f) || shares_of(&w, s->ns);

	for (size_t i = 0; !rc && i < w.n_dev; i++)
		s->kernels += w.dev[i]->kind == XP_GPU_KERNEL &&
			      gp_ivs_overlap(&w.win, w.dev[i]->start_ns, w.dev[i]->end_ns);
	work_free(&w);
	return rc;
}

/* The streams with device work in the window (all->dev), each split on its own. */
static int per_stream(const struct work *all, const struct gp_gpu_rec *recs, size_t n,
		      const struct gp_gpu_interval *win, size_t nwin, struct gp_gpu_breakdown *out)
{
	struct gp_gpu_stream_share *v = calloc(all->n_dev ? all->n_dev : 1, sizeof(*v));
	size_t nv = 0, j;
	int rc = v ? 0 : -1;

	for (size_t i = 0; !rc && i < all->n_dev; i++) {
		const struct gp_gpu_rec *r = all->dev[i];

		if (!gp_ivs_overlap(&all->win, r->start_ns, r->end_ns))
			continue;
		for (j = 0; j < nv && (v[j].device != r->device || v[j].stream != r->stream); j++)
			;
		if (j == nv) {
			v[nv] = (struct gp_gpu_stream_share){.device = r->device, .stream = r->stream};
			rc = stream_pass(all, recs, n, win, nwin, &v[nv++]);
		}
	}
	if (!rc) {
		qsort(v, nv, sizeof(*v), by_busy_desc);
		out->n_streams = nv < XP_GPU_STREAMS_MAX ? nv : XP_GPU_STREAMS_MAX;
		out->streams_omitted = nv - out->n_streams;
		memcpy(out->streams, v, out->n_streams * sizeof(*v));
	}
	free(v);
	return rc;
}

int gp_gpu_attribute(const struct gp_gpu_rec *recs, size_t n, const struct gp_gpu_interval *win,
		     size_t nwin, struct gp_gpu_breakdown *out)
{
	struct filter all = {0};
	struct work w = {0};
	int rc;

	memset(out, 0, sizeof(*out));
	rc = build(&w, recs, n, win, nwin, &all) || shares_of(&w, out->ns) ||
	     top_kernels(&w, out) || per_stream(&w, recs, n, win, nwin, out);
	out->window_ns = gp_ivs_len(&w.win);
	if (rc)
		memset(out, 0, sizeof(*out));
	work_free(&w);
	return rc ? -1 : 0;
}
