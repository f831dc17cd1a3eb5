// SPDX-License-Identifier: MIT
/*
 * normalize.c - exclusive attribution: turn the (possibly nested and
 * overlapping) spans of a turn into a timeline where every nanosecond of
 * [start_ns, end_ns) belongs to exactly one span, or to no span ("uncovered",
 * charged by categorize.c to theory's uncovered stage).
 *
 * Before flattening, fused time hidden inside model spans is made explicit:
 * the first xperf.ttft_ns of an LLM span becomes a `ttft` child, and stalls in
 * its xperf.token_times_ns (gap > ratio x median and >= min ms, theory's
 * rules) become `streaming_gap` children, unless the trace has such spans.
 *
 * Priority where spans overlap (the first rule that differs decides):
 *   1. waste (a waste mark covers the span or an ancestor)
 *   2. deeper in the parent tree (innermost)
 *   3. shorter (the more specific of two overlapping peers)
 *   4. domain: fused > intelligent > compute
 *   5. later start, then later in the file
 * A sweep over the sorted boundaries with a max-heap of open spans keyed by
 * that rank makes it O(n log n).
 */
#define _GNU_SOURCE /* qsort_r */
#include "analyze/model.h"

#include <stdlib.h>
#include <string.h>

#include "lib/cmp.h"
#include "lib/grow.h"

static const int domain_prio[XP_DOMAIN_COUNT] = {
	[XP_DOMAIN_COMPUTE] = 0, [XP_DOMAIN_INTELLIGENT] = 1, [XP_DOMAIN_FUSED] = 2,
};

/* The domain theory's stage map gives (domain.c corrects the spans after this stage). */
static int prio_of(const struct xa_span *s)
{
	return domain_prio[s->sp.st ? s->sp.st->domain : XP_DOMAIN_COMPUTE];
}

/* qsort_r comparator over span indexes: lower priority first. */
static int cmp_prio(const void *x, const void *y, void *base)
{
	const struct xa_span *sp = base;
	const struct xa_span *a = &sp[*(const int *)x], *b = &sp[*(const int *)y];
	uint64_t da = a->sp.end_ns - a->sp.start_ns, db = b->sp.end_ns - b->sp.start_ns;

	if (!a->sp.waste_l3 != !b->sp.waste_l3)
		return a->sp.waste_l3 ? 1 : -1;
	if (a->sp.depth != b->sp.depth)
		return a->sp.depth - b->sp.depth;
	if (da != db)
		return da > db ? -1 : 1;
	if (prio_of(a) != prio_of(b))
		return prio_of(a) - prio_of(b);
	if (a->sp.start_ns != b->sp.start_ns)
		return a->sp.start_ns < b->sp.start_ns ? -1 : 1;
	return *(const int *)x - *(const int *)y;
}

static int cmp_start(const void *x, const void *y, void *base)
{
	const struct xa_span *sp = base;
	const struct xa_span *a = &sp[*(const int *)x], *b = &sp[*(const int *)y];

	return a->sp.start_ns < b->sp.start_ns ? -1 : a->sp.start_ns > b->sp.start_ns;
}

/*
 * Where a carved stage may already be: the file's spans of that name (ix) and
 * the spans carved since (from index carved on). A large turn has few of them.
 */
struct carved_idx {
	int *ix;
	size_t n, carved;
};

static int has_stage_over(const struct xa_trace *tr, const struct carved_idx *c, const char *stage,
			  uint64_t a, uint64_t b)
{
	for (size_t k = 0; k < c->n + (tr->nspans - c->carved); k++) {
		const struct xa_span *s = &tr->spans[k < c->n ? (size_t)c->ix[k] : c->carved + k - c->n];

		if (!strcmp(s->sp.stage, stage) && s->sp.start_ns < b && s->sp.end_ns > a)
			return 1;
	}
	return 0;
}

/* stage: a literal, the carved span's stage name for good. */
static int add_child(struct xa_trace *tr, int parent, char *stage, uint64_t a, uint64_t b)
{
	struct xa_span *c;

	if (xp_grow((void **)&tr->spans, &tr->cap, tr->nspans + 1, sizeof(*tr->spans)))
		return -1;
	c = &tr->spans[tr->nspans++];
	memset(c, 0, sizeof(*c));
	c->sp.stage = stage;
	c->sp.st = th_stage_find(stage);
	c->domain = c->sp.domain = c->sp.st ? c->sp.st->domain : XP_DOMAIN_FUSED;
	c->sp.category = XP_CAT_SUPPLY;
	c->sp.start_ns = a;
	c->sp.end_ns = b;
	c->sp.parent_ix = parent;
	c->sp.depth = tr->spans[parent].sp.depth + 1;
	c->sp.id = -(int64_t)tr->nspans;
	c->synthetic = 1;
	c->sp.waste_l3 = tr->spans[parent].sp.waste_l3;
	return 0;
}

/* Stalls in the token stream of span i (theory's rule) become streaming_gap children. */
static int carve_gaps(struct xa_trace *tr, int i)
{
	const struct tt_span sp = tr->spans[i].sp; /* add_child may move tr->spans */
	uint64_t thr = th_stream_gap_threshold(sp.ex.token_ns, sp.ex.ntokens);
	int rc = 0;

	for (size_t k = 1; k < sp.ex.ntokens && !rc; k++) {
		uint64_t a = sp.ex.token_ns[k - 1], b = sp.ex.token_ns[k];

		if (b > a && b - a > thr && a >= sp.start_ns && b <= sp.end_ns)
			rc = add_child(tr, i, "streaming_gap", a, b);
	}
	return rc;
}

static int carve(struct xa_trace *tr)
{
	size_t n = tr->nspans;
	struct carved_idx c = { calloc(n + 1, sizeof(int)), 0, n };
	int rc = 0;

	if (!c.ix)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(tr->spans[i].sp.stage, "ttft") ||
		    !strcmp(tr->spans[i].sp.stage, "streaming_gap"))
			c.ix[c.n++] = (int)i;
	for (size_t i = 0; i < n && !rc; i++) {
		struct tt_span *sp = &tr->spans[i].sp;
		uint64_t ttft, dur, e;

		if (!sp->st || sp->st->domain != XP_DOMAIN_INTELLIGENT)
			continue;
		if (tt_ex_has(&sp->ex, TT_EX_TTFT_NS)) {
			ttft = sp->ex.num[TT_EX_TTFT_NS] > 0 ? (uint64_t)sp->ex.num[TT_EX_TTFT_NS]
							     : 0;
			dur = sp->end_ns - sp->start_ns;
			e = sp->start_ns + (ttft < dur ? ttft : dur);
			if (e > sp->start_ns && !has_stage_over(tr, &c, "ttft", sp->start_ns, e))
				rc = add_child(tr, (int)i, "ttft", sp->start_ns, e);
		}
		sp = &tr->spans[i].sp; /* add_child may have moved the array */
		if (!rc && sp->ex.ntokens &&
		    !has_stage_over(tr, &c, "streaming_gap", sp->start_ns, sp->end_ns))
			rc = carve_gaps(tr, (int)i);
	}
	free(c.ix);
	return rc;
}

/* Waste covers the descendants of a marked span. */
static void inherit_waste(struct xa_trace *tr)
{
	for (size_t i = 0; i < tr->nspans; i++)
		for (int p = tr->spans[i].sp.parent_ix; p >= 0 && !tr->spans[i].sp.waste_l3;
		     p = tr->spans[p].sp.parent_ix)
			tr->spans[i].sp.waste_l3 = tr->spans[p].sp.waste_l3;
}

struct heap {
	int *v;
	size_t n;
	const int *rank;
};

static void heap_push(struct heap *h, int x)
{
	size_t i = h->n++;

	for (; i && h->rank[h->v[(i - 1) / 2]] < h->rank[x]; i = (i - 1) / 2)
		h->v[i] = h->v[(i - 1) / 2];
	h->v[i] = x;
}

static void heap_pop(struct heap *h)
{
	int x = h->v[--h->n];
	size_t i = 0, c;

	while ((c = 2 * i + 1) < h->n) {
		if (c + 1 < h->n && h->rank[h->v[c + 1]] > h->rank[h->v[c]])
			c++;
		if (h->rank[h->v[c]] <= h->rank[x])
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	h->v[i] = x;
}

static void emit(struct xa_trace *tr, uint64_t a, uint64_t b, int span)
{
	struct xa_seg *last = tr->nsegs ? &tr->segs[tr->nsegs - 1] : NULL;

	if (a == b)
		return;
	if (span >= 0)
		tr->spans[span].excl += b - a;
	if (last && last->span == span && last->end == a) {
		last->end = b;
		return;
	}
	tr->segs[tr->nsegs++] = (struct xa_seg){ .start = a, .end = b, .span = span };
}

/* The sweep; bystart, rank, hv have n entries, bounds 2n + 2. */
static void sweep(struct xa_trace *tr, int *bystart, const int *rank, uint64_t *bounds, int *hv)
{
	size_t n = tr->nspans, nb = 0, next = 0;
	struct heap h = { hv, 0, rank };

	bounds[nb++] = tr->start;
	bounds[nb++] = tr->end;
	for (size_t i = 0; i < n; i++) {
		bounds[nb++] = tr->spans[i].sp.start_ns;
		bounds[nb++] = tr->spans[i].sp.end_ns;
	}
	qsort(bounds, nb, sizeof(*bounds), xp_cmp_u64);
	for (size_t k = 0; k + 1 < nb; k++) {
		uint64_t a = bounds[k], b = bounds[k + 1];

		if (a == b)
			continue;
		while (next < n && tr->spans[bystart[next]].sp.start_ns <= a)
			heap_push(&h, bystart[next++]);
		while (h.n && tr->spans[h.v[0]].sp.end_ns <= a)
			heap_pop(&h);
		emit(tr, a, b, h.n ? h.v[0] : -1);
	}
}

int xa_normalize(struct xa_trace *tr)
{
	int *order = NULL, *bystart = NULL, *rank = NULL, *hv = NULL;
	uint64_t *bounds = NULL;
	size_t n;
	int rc = -1;

	inherit_waste(tr);
	if (carve(tr))
		return -1;
	n = tr->nspans;
	order = calloc(n + 1, sizeof(int));
	bystart = calloc(n + 1, sizeof(int));
	rank = calloc(n + 1, sizeof(int));
	hv = calloc(n + 1, sizeof(int));
	bounds = calloc(2 * n + 2, sizeof(*bounds));
	free(tr->segs);
	tr->nsegs = 0;
	tr->segs = calloc(2 * n + 2, sizeof(*tr->segs));
	if (!order || !bystart || !rank || !hv || !bounds || !tr->segs)
		goto out;
	for (size_t i = 0; i < n; i++)
		order[i] = bystart[i] = (int)i;
	qsort_r(order, n, sizeof(int), cmp_prio, tr->spans);
	qsort_r(bystart, n, sizeof(int), cmp_start, tr->spans);
	for (size_t i = 0; i < n; i++)
		rank[order[i]] = (int)i;
	sweep(tr, bystart, rank, bounds, hv);
	rc = 0;
out:
	free(order);
	free(bystart);
	free(rank);
	free(hv);
	free(bounds);
	return rc;
}
