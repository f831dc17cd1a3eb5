// SPDX-License-Identifier: MIT
/*
 * intervals.c - sorted disjoint interval sets: linear sweeps over two sorted
 * lists, binary search for a single range. O((n + m) log) overall.
 */
#include "gpu/intervals.h"

#include <stdlib.h>

#include "lib/grow.h"

int gp_ivs_add(struct gp_ivs *s, uint64_t start, uint64_t end)
{
	if (end <= start)
		return 0;
	if (xp_grow((void **)&s->v, &s->cap, s->n + 1, sizeof(*s->v)))
		return -1;
	s->v[s->n++] = (struct gp_gpu_interval){start, end};
	return 0;
}

static int by_start(const void *a, const void *b)
{
	const struct gp_gpu_interval *x = a, *y = b;

	return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
}

void gp_ivs_norm(struct gp_ivs *s)
{
	size_t out = 0;

	if (s->n < 2)
		return;
	qsort(s->v, s->n, sizeof(*s->v), by_start);
	for (size_t i = 1; i < s->n; i++) {
		if (s->v[i].start_ns <= s->v[out].end_ns) {
			if (s->v[i].end_ns > s->v[out].end_ns)
				s->v[out].end_ns = s->v[i].end_ns;
		} else {
			s->v[++out] = s->v[i];
		}
	}
	s->n = out + 1;
}

int gp_ivs_intersect(const struct gp_ivs *a, const struct gp_ivs *b, struct gp_ivs *out)
{
	size_t i = 0, j = 0;

	while (i < a->n && j < b->n) {
		uint64_t s =
			a->v[i].start_ns > b->v[j].start_ns ? a->v[i].start_ns : b->v[j].start_ns;
		uint64_t e = a->v[i].end_ns < b->v[j].end_ns ? a->v[i].end_ns : b->v[j].end_ns;

		if (s < e && gp_ivs_add(out, s, e))
			return -1;
		if (a->v[i].end_ns < b->v[j].end_ns)
			i++;
		else
			j++;
	}
	return 0;
}

int gp_ivs_subtract(const struct gp_ivs *a, const struct gp_ivs *b, struct gp_ivs *out)
{
	size_t j = 0;

	for (size_t i = 0; i < a->n; i++) {
		uint64_t cur = a->v[i].start_ns, end = a->v[i].end_ns;

		while (j < b->n && b->v[j].end_ns <= cur)
			j++;
		for (size_t k = j; k < b->n && b->v[k].start_ns < end; k++) {
			if (b->v[k].start_ns > cur && gp_ivs_add(out, cur, b->v[k].start_ns))
				return -1;
			if (b->v[k].end_ns > cur)
				cur = b->v[k].end_ns;
		}
		if (cur < end && gp_ivs_add(out, cur, end))
			return -1;
	}
	return 0;
}

uint64_t gp_ivs_len(const struct gp_ivs *s)
{
	uint64_t t = 0;

	for (size_t i = 0; i < s->n; i++)
		t += s->v[i].end_ns - s->v[i].start_ns;
	return t;
}

uint64_t gp_ivs_overlap(const struct gp_ivs *s, uint64_t start, uint64_t end)
{
	size_t lo = 0, hi = s->n;
	uint64_t t = 0;

	while (lo < hi) { /* first interval ending after start */
		size_t mid = lo + (hi - lo) / 2;

		if (s->v[mid].end_ns <= start)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < s->n && s->v[i].start_ns < end; i++) {
		uint64_t a = s->v[i].start_ns > start ? s->v[i].start_ns : start;
		uint64_t b = s->v[i].end_ns < end ? s->v[i].end_ns : end;

		if (a < b)
			t += b - a;
	}
	return t;
}

void gp_ivs_free(struct gp_ivs *s)
{
	free(s->v);
	*s = (struct gp_ivs){ 0 };
}
