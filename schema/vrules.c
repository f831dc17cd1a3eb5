/* SPDX-License-Identifier: MIT */
/*
 * vrules.c - the TurnTrace rules JSON Schema cannot express (schema/README.md,
 * "Rules beyond JSON Schema"): ordered times, everything inside the turn,
 * unique span ids, parents that exist, contain their children and form no
 * cycle, stages and waste L3 ids known to theory, sched parts that fit the
 * span, token times inside their span.
 *
 * While the shape pass accepts values it hands them here (sc_vrules_feed),
 * and the few facts the rules need are kept with their positions: about a
 * hundred bytes a span, not the document. The rules run once it ended, in
 * the order they always reported: spans, then marks, then GPU activities.
 * O(n log n) in spans.
 */
#include "schema/vcheck.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "theory/theory.h"

struct span {
	long long id, parent, start, end; /* parent 0: none */
	struct sc_jpos id_p, parent_p, stage_p, start_p, end_p, sched_p;
	char *bad_stage;  /* a stage theory does not know, when not custom */
	int custom, has_sched;
	double sched_sum; /* three values near 2^63 would overflow a long long */
	size_t tok0, ntok;  /* its token times in r->tok */
	size_t index;       /* position in /spans */
	size_t up;          /* index of the parent span, or SIZE_MAX */
};

struct mark {
	int waste;
	long long t, span; /* span 0: none */
	struct sc_jpos pos, t_p, span_p, l3_p;
	int ttft, has_ttft_ns;
	char *bad_l3;            /* an L3 id theory does not know, or not a waste one */
	int l3_unknown;
	size_t index;
};

struct activity {
	long long start, end;
	struct sc_jpos start_p, end_p;
};

/* A counter both measured and listed unavailable: reported with its span. */
struct conflict {
	size_t span;
	int ctr;
	struct sc_jpos pos;
};

struct sc_vrules {
	long long start, end;
	struct sc_jpos end_p, start_p;
	struct span *spans;
	struct span **by_id;
	size_t n, scap;
	struct mark *marks;
	size_t nmarks, mcap, nfused, nwaste;
	struct activity *acts;
	size_t nacts, acap;
	long long *tok;
	struct sc_jpos *tok_p;
	size_t ntok, tcap, tpcap;
	struct conflict *conf;
	size_t nconf, ccap;
	/* the span, mark or activity being read, and its counters */
	enum sc_slot in;
	unsigned long long ctr_vals;
	struct { int ctr; struct sc_jpos pos; } why[64];
	int nwhy;
};

static int add(void **arr, size_t *cap, size_t n, size_t size)
{
	if (xp_grow(arr, cap, n + 1, size))
		return -1;
	memset((char *)*arr + n * size, 0, size);
	return 0;
}

static int counters_end(struct sc_vrules *r)
{
	for (int i = 0; i < r->nwhy; i++) {
		if (!(r->ctr_vals >> r->why[i].ctr & 1))
			continue;
		if (add((void **)&r->conf, &r->ccap, r->nconf, sizeof(*r->conf)))
			return -1;
		r->conf[r->nconf++] = (struct conflict){ r->n - 1, r->why[i].ctr, r->why[i].pos };
	}
	r->ctr_vals = 0;
	r->nwhy = 0;
	return 0;
}

static int counter_ix(const char *name)
{
	const struct th_counter_name *c = th_counter_name_find(name);

	return c ? (int)(c - th_counter_name_table) : 0;
}

/* A value of a span. */
static int span_value(struct sc_vrules *r, const struct sc_vval *val)
{
	struct span *s = &r->spans[r->n - 1];
	const struct sc_jev *ev = val->ev;

	switch (val->slot) {
	case SC_SPAN_ID:
		s->id = sc_vint(ev), s->id_p = ev->pos;
		break;
	case SC_SPAN_PARENT:
		s->parent = ev->type == SC_J_NULL ? 0 : sc_vint(ev), s->parent_p = ev->pos;
		break;
	case SC_SPAN_STAGE:
		s->stage_p = ev->pos;
		free(s->bad_stage);
		s->bad_stage = NULL;
		if (ev->str && !th_stage_find(ev->str) && !(s->bad_stage = strdup(ev->str)))
			return -1;
		break;
	case SC_SPAN_CUSTOM:
		s->custom = ev->type == SC_J_TRUE;
		break;
	case SC_SPAN_START:
		s->start = sc_vint(ev), s->start_p = ev->pos;
		break;
	case SC_SPAN_END:
		s->end = sc_vint(ev), s->end_p = ev->pos;
		break;
	case SC_SCHED:
		if (ev->type == SC_J_OBJECT)
			s->has_sched = 1, s->sched_p = ev->pos;
		break;
	case SC_SCHED_ON_CPU:
	case SC_SCHED_RUNQ:
	case SC_SCHED_BLOCKED:
		s->sched_sum += (double)sc_vint(ev);
		break;
	case SC_COUNTERS:
		return ev->type == SC_J_END ? counters_end(r) : 0;
	case SC_CTR_VALUE:
		r->ctr_vals |= 1ull << counter_ix(ev->key);
		break;
	case SC_CTR_WHY:
		if (r->nwhy < 64)
			r->why[r->nwhy].ctr = counter_ix(ev->key), r->why[r->nwhy++].pos = ev->pos;
		break;
	case SC_TOKEN_TIMES:
		if (ev->type == SC_J_ARRAY)
			s->tok0 = r->ntok, s->ntok = 0;
		break;
	case SC_TOKEN_TIME:
		if (xp_grow((void **)&r->tok, &r->tcap, r->ntok + 1, sizeof(*r->tok)) ||
		    xp_grow((void **)&r->tok_p, &r->tpcap, r->ntok + 1, sizeof(*r->tok_p)))
			return -1;
		r->tok[r->ntok] = sc_vint(ev), r->tok_p[r->ntok++] = ev->pos;
		s->ntok++;
		break;
	default:
		break;
	}
	return 0;
}

/* A value of a fused or waste mark. */
static int mark_value(struct sc_vrules *r, const struct sc_vval *val)
{
	struct mark *m = &r->marks[r->nmarks - 1];
	const struct sc_jev *ev = val->ev;
	const struct th_l3 *p;
	const struct th_l2 *l2;

	switch (val->slot) {
	case SC_MARK_KIND:
		m->ttft = !m->waste && !strcmp(ev->str, "ttft");
		break;
	case SC_MARK_T:
		m->t = sc_vint(ev), m->t_p = ev->pos;
		break;
	case SC_MARK_SPAN:
		m->span = ev->type == SC_J_NULL ? 0 : sc_vint(ev), m->span_p = ev->pos;
		break;
	case SC_ATTR_TTFT_NS:
		m->has_ttft_ns = val->tree == SC_MARK_ATTRS;
		break;
	case SC_MARK_L3:
		p = th_l3_find(ev->str);
		l2 = p ? th_l2_find(p->l2_id) : NULL;
		m->l3_p = ev->pos;
		m->l3_unknown = !p;
		free(m->bad_l3);
		m->bad_l3 = NULL;
		if ((!l2 || l2->category != XP_CAT_WASTE) && !(m->bad_l3 = strdup(ev->str)))
			return -1;
		break;
	default:
		break;
	}
	return 0;
}

/* A container of the list `slot` opened: a new span, mark or activity. */
static int item_begin(struct sc_vrules *r, enum sc_slot slot, struct sc_jpos pos)
{
	struct mark *m;

	r->in = slot;
	if (slot == SC_SPAN) {
		if (add((void **)&r->spans, &r->scap, r->n, sizeof(*r->spans)))
			return -1;
		r->spans[r->n].index = r->n;
		r->spans[r->n].up = SIZE_MAX;
		r->n++;
		return 0;
	}
	if (slot == SC_GPU_ACTIVITY) {
		r->nacts++;
		return add((void **)&r->acts, &r->acap, r->nacts - 1, sizeof(*r->acts));
	}
	if (add((void **)&r->marks, &r->mcap, r->nmarks, sizeof(*r->marks)))
		return -1;
	m = &r->marks[r->nmarks++];
	m->waste = slot == SC_WASTE;
	m->pos = pos;
	m->index = m->waste ? r->nwaste++ : r->nfused++;
	return 0;
}

int sc_vrules_feed(struct sc_vrules *r, const struct sc_vval *val)
{
	const struct sc_jev *ev = val->ev;
	struct activity *a = r->nacts ? &r->acts[r->nacts - 1] : NULL;

	switch (val->slot) {
	case SC_START:
		r->start = sc_vint(ev), r->start_p = ev->pos;
		return 0;
	case SC_END:
		r->end = sc_vint(ev), r->end_p = ev->pos;
		return 0;
	case SC_SPAN:
	case SC_FUSED:
	case SC_WASTE:
	case SC_GPU_ACTIVITY:
		if (ev->type == SC_J_END)
			r->in = SC_NONE;
		return ev->type == SC_J_END ? 0 : item_begin(r, val->slot, ev->pos);
	case SC_GPU_START:
		a->start = sc_vint(ev), a->start_p = ev->pos;
		return 0;
	case SC_GPU_END:
		a->end = sc_vint(ev), a->end_p = ev->pos;
		return 0;
	default:
		break;
	}
	if (r->in == SC_SPAN)
		return span_value(r, val);
	if (r->in == SC_FUSED || r->in == SC_WASTE)
		return mark_value(r, val);
	return 0;
}

/* Report at member `key` of the value whose pointer is the current one. */
#define ERR_AT(v, key, pos, ...)                                                           \
	do {                                                                               \
		size_t saved_ = sc_vctx_key((v), (key));                                   \
		sc_vctx_error((v), (pos), __VA_ARGS__);                                    \
		sc_vctx_up((v), saved_);                                                   \
	} while (0)

/* start_ns <= end_ns inside the turn. */
static void check_interval(struct sc_vctx *v, const struct sc_vrules *r, long long s,
			   struct sc_jpos sp, long long e, struct sc_jpos ep)
{
	if (e < s)
		ERR_AT(v, "end_ns", ep, "end_ns %lld is before start_ns %lld", e, s);
	else if (s < r->start)
		ERR_AT(v, "start_ns", sp, "start_ns %lld is before the turn's start_ns %lld", s,
		       r->start);
	else if (e > r->end)
		ERR_AT(v, "end_ns", ep, "end_ns %lld is after the turn's end_ns %lld", e, r->end);
}

static int by_id(const void *a, const void *b)
{
	const struct span *x = *(struct span *const *)a, *y = *(struct span *const *)b;

	return x->id < y->id ? -1 : x->id > y->id ? 1 : x->index < y->index ? -1 : 1;
}

static const struct span *find(const struct sc_vrules *r, long long id)
{
	size_t lo = 0, hi = r->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->by_id[mid]->id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->n && r->by_id[lo]->id == id ? r->by_id[lo] : NULL;
}

static void check_sched(struct sc_vctx *v, const struct span *s)
{
	if (s->has_sched && s->sched_sum > (double)(s->end - s->start) + XP_SCHED_TOLERANCE_NS)
		ERR_AT(v, "sched", s->sched_p,
		       "on_cpu_ns + runq_ns + blocked_ns = %.0f exceeds the span's %lld ns by more "
		       "than 1 ms", s->sched_sum, s->end - s->start);
}

/* The conflicts of span i; *next walks r->conf, which is in span order. */
static void check_counters(struct sc_vctx *v, const struct sc_vrules *r, size_t i, size_t *next)
{
	for (; *next < r->nconf && r->conf[*next].span == i; ++*next) {
		const char *name = th_counter_name_table[r->conf[*next].ctr].name;
		size_t saved = sc_vctx_key(v, "counters"), s2 = sc_vctx_key(v, "unavailable");

		ERR_AT(v, name, r->conf[*next].pos,
		       "counter \"%s\" is both in values and unavailable", name);
		sc_vctx_up(v, s2);
		sc_vctx_up(v, saved);
	}
}

static void check_token_times(struct sc_vctx *v, const struct sc_vrules *r, const struct span *s)
{
	long long prev = s->start;
	size_t saved, s2;

	if (!s->ntok)
		return;
	saved = sc_vctx_key(v, "attributes");
	s2 = sc_vctx_key(v, "xperf.token_times_ns");
	for (size_t i = 0; i < s->ntok && v->nerr <= XP_VALIDATE_MAX_ERRORS; i++) {
		long long tt = r->tok[s->tok0 + i];
		size_t s3 = sc_vctx_index(v, i);

		if (tt < prev || tt > s->end)
			sc_vctx_error(v, r->tok_p[s->tok0 + i], tt > s->end || tt < s->start
				      ? "token time %lld is outside the span [%lld, %lld]"
				      : "token time %lld goes backwards", tt, s->start, s->end);
		sc_vctx_up(v, s3);
		if (tt > prev)
			prev = tt;
	}
	sc_vctx_up(v, s2);
	sc_vctx_up(v, saved);
}

static void check_stage(struct sc_vctx *v, const struct span *s)
{
	if (s->bad_stage && !s->custom)
		ERR_AT(v, "stage", s->stage_p,
		       "unknown stage \"%s\" (see `xperf theory`; set custom_stage for your own)",
		       s->bad_stage);
}

static void check_parent(struct sc_vctx *v, const struct sc_vrules *r, struct span *s)
{
	const struct span *p;

	if (!s->parent)
		return;
	p = find(r, s->parent);
	if (!p)
		ERR_AT(v, "parent", s->parent_p, "parent %lld is not a span of this turn",
		       s->parent);
	else if (p == s)
		ERR_AT(v, "parent", s->parent_p, "span %lld is its own parent", s->id);
	else if (p->start > s->start || p->end < s->end)
		ERR_AT(v, "parent", s->parent_p, "parent %lld [%lld, %lld] does not contain this "
		       "span [%lld, %lld]", p->id, p->start, p->end, s->start, s->end);
	else
		s->up = p->index;
}

/* Parent links that loop (possible only among equal intervals): walk each chain once. */
static void check_cycles(struct sc_vctx *v, struct sc_vrules *r)
{
	size_t *mark = calloc(r->n + 1, sizeof(*mark)); /* 0 new, k+1 on walk k, SIZE_MAX done */

	if (!mark)
		return;
	for (size_t i = 0; i < r->n; i++) {
		size_t j = i;

		while (j != SIZE_MAX && mark[j] == 0) {
			mark[j] = i + 1;
			j = r->spans[j].up;
		}
		if (j != SIZE_MAX && mark[j] == i + 1) {
			size_t saved = sc_vctx_index(v, j);

			ERR_AT(v, "parent", r->spans[j].parent_p,
			       "parent chain of span %lld is a cycle", r->spans[j].id);
			sc_vctx_up(v, saved);
		}
		for (j = i; j != SIZE_MAX && mark[j] == i + 1; j = r->spans[j].up)
			mark[j] = SIZE_MAX;
	}
	free(mark);
}

static void check_unique_ids(struct sc_vctx *v, const struct sc_vrules *r)
{
	for (size_t i = 1; i < r->n; i++) {
		const struct span *a = r->by_id[i - 1], *b = r->by_id[i];
		size_t saved;

		if (a->id != b->id)
			continue;
		saved = sc_vctx_index(v, b->index);
		ERR_AT(v, "id", b->id_p, "duplicate span id %lld (also /spans/%zu)", b->id,
		       a->index);
		sc_vctx_up(v, saved);
	}
}

static void check_spans(struct sc_vctx *v, struct sc_vrules *r)
{
	size_t base = sc_vctx_key(v, "spans"), next = 0;

	check_unique_ids(v, r);
	for (size_t i = 0; i < r->n && v->nerr <= XP_VALIDATE_MAX_ERRORS; i++) {
		struct span *s = &r->spans[i];
		size_t saved = sc_vctx_index(v, i);

		check_interval(v, r, s->start, s->start_p, s->end, s->end_p);
		check_parent(v, r, s);
		check_stage(v, s);
		check_sched(v, s);
		check_counters(v, r, i, &next);
		check_token_times(v, r, s);
		sc_vctx_up(v, saved);
	}
	check_cycles(v, r);
	sc_vctx_up(v, base);
}

/* A mark's time inside the turn, its span, when given, a span of the turn, its own rule. */
static void check_mark(struct sc_vctx *v, const struct sc_vrules *r, const struct mark *m)
{
	if (m->t < r->start || m->t > r->end)
		ERR_AT(v, "t_ns", m->t_p, "t_ns %lld is outside the turn [%lld, %lld]", m->t,
		       r->start, r->end);
	if (m->span && !find(r, m->span))
		ERR_AT(v, "span", m->span_p, "span %lld is not a span of this turn", m->span);
	if (m->ttft && !m->has_ttft_ns)
		sc_vctx_error(v, m->pos, "a ttft mark needs attributes.ttft_ns");
	if (m->bad_l3 && m->l3_unknown)
		ERR_AT(v, "l3", m->l3_p, "unknown L3 id \"%s\" (see `xperf theory`)", m->bad_l3);
	else if (m->bad_l3)
		ERR_AT(v, "l3", m->l3_p, "L3 \"%s\" is not under a waste L2", m->bad_l3);
}

static void check_marks(struct sc_vctx *v, const struct sc_vrules *r, int waste)
{
	size_t base = sc_vctx_key(v, waste ? "waste_marks" : "fused_marks");

	for (size_t i = 0; i < r->nmarks && v->nerr <= XP_VALIDATE_MAX_ERRORS; i++) {
		size_t saved;

		if (r->marks[i].waste != waste)
			continue;
		saved = sc_vctx_index(v, r->marks[i].index);
		check_mark(v, r, &r->marks[i]);
		sc_vctx_up(v, saved);
	}
	sc_vctx_up(v, base);
}

static void check_activities(struct sc_vctx *v, const struct sc_vrules *r)
{
	size_t base = sc_vctx_key(v, "gpu"), b2 = sc_vctx_key(v, "activities");

	for (size_t i = 0; i < r->nacts && v->nerr <= XP_VALIDATE_MAX_ERRORS; i++) {
		size_t saved = sc_vctx_index(v, i);

		check_interval(v, r, r->acts[i].start, r->acts[i].start_p, r->acts[i].end,
			       r->acts[i].end_p);
		sc_vctx_up(v, saved);
	}
	sc_vctx_up(v, b2);
	sc_vctx_up(v, base);
}

void sc_vrules_turn(struct sc_vctx *v, struct sc_vrules *r)
{
	if (r->end < r->start) {
		ERR_AT(v, "end_ns", r->end_p, "end_ns %lld is before start_ns %lld", r->end,
		       r->start);
		return; /* every containment check would fail too */
	}
	if (!(r->by_id = calloc(r->n + 1, sizeof(*r->by_id)))) {
		sc_vctx_error(v, r->start_p, "out of memory");
		return;
	}
	for (size_t i = 0; i < r->n; i++)
		r->by_id[i] = &r->spans[i];
	qsort(r->by_id, r->n, sizeof(*r->by_id), by_id);
	check_spans(v, r);
	check_marks(v, r, 0);
	check_marks(v, r, 1);
	check_activities(v, r);
}

struct sc_vrules *sc_vrules_new(void)
{
	return calloc(1, sizeof(struct sc_vrules));
}

void sc_vrules_free(struct sc_vrules *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++)
		free(r->spans[i].bad_stage);
	for (size_t i = 0; i < r->nmarks; i++)
		free(r->marks[i].bad_l3);
	free(r->spans);
	free(r->by_id);
	free(r->marks);
	free(r->acts);
	free(r->tok);
	free(r->tok_p);
	free(r->conf);
	free(r);
}
