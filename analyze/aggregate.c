// SPDX-License-Identifier: MIT
/*
 * aggregate.c - a session as the sum of its turns, in constant memory:
 * time-weighted totals (ns sums, so shares are weighted by turn time), in how
 * many turns each L3 point fired, its worst value over the turns that measured
 * it (in the direction it fires) and that turn, running least-squares
 * sums for the trends (TTFT drift and input-token growth over the turn index),
 * the slowest turns, and a per-turn row spilled to an unlinked temp file.
 */
#include "analyze/model.h"

#include <string.h>

double xa_slope(const struct xa_fit *f)
{
	double den = f->n * f->sxx - f->sx * f->sx;

	return f->n >= 2 && den != 0 ? (f->n * f->sxy - f->sx * f->sy) / den : 0;
}

static void add_point(struct xa_fit *f, double x, double y)
{
	f->n += 1;
	f->sx += x;
	f->sy += y;
	f->sxx += x * x;
	f->sxy += x * y;
}

static void sum_l3(struct xa_l3 *dst, const struct xa_l3 *src)
{
	if (src->nspans)
		dst->var_have = dst->nspans ? dst->var_have & src->var_have : src->var_have;
	dst->var_unavail |= src->var_unavail;
	dst->nspans += src->nspans;
	dst->ns += src->ns;
	dst->base_ns += src->base_ns;
	dst->saved_ns += src->saved_ns;
	for (int v = 0; v < XA_NVAR; v++)
		dst->var[v] += src->var[v];
	if (!dst->why[0] && src->why[0])
		memcpy(dst->why, src->why, sizeof(dst->why));
}

static void keep_slow(struct xa_session *s, const struct xa_row *r)
{
	unsigned i;

	if (s->nslow == XA_SLOWEST && s->slow[XA_SLOWEST - 1].wall >= r->wall)
		return; /* the list is full and r is no slower than its last */
	i = s->nslow < XA_SLOWEST ? s->nslow++ : XA_SLOWEST - 1;
	for (; i > 0 && s->slow[i - 1].wall < r->wall; i--)
		s->slow[i] = s->slow[i - 1];
	s->slow[i] = *r;
}

static void fold_points(struct xa_session *s, const struct xa_turn *t, struct xa_row *r)
{
	uint64_t top = 0;

	for (size_t i = 0; i < th_l3_count; i++) {
		const struct xa_l3 *a = &t->l3[i];

		sum_l3(&s->total->l3[i], a);
		if (a->state != XA_FIRED && a->state != XA_OK_BELOW && a->state != XA_NOT_DRILLED)
			continue;
		if (!s->measured[i]++ || xa_crosses(a->value, s->worst[i], th_l3_table[i].cmp)) {
			s->worst[i] = a->value;
			s->worst_turn[i] = t->head.turn_index;
		}
		if (a->state != XA_FIRED)
			continue;
		s->fired[i]++;
		r->nfired++;
		if (r->top_l3 < 0 || a->ns > top) {
			r->top_l3 = (int32_t)i;
			top = a->ns;
		}
	}
}

int xa_session_add(struct xa_session *s, const struct xa_turn *t)
{
	struct xa_row r = { .turn_index = t->head.turn_index, .start = t->start, .wall = t->wall,
			    .top_l3 = -1,
			    .in_tok = t->feat[F_IN_TOK], .complete = t->head.complete,
			    .ttft_ms = t->feat[F_TTFT_N] ? t->feat[F_TTFT_FIRST] / 1e6 : -1,
			    .out_tok = t->use.tok[XA_TOK_OUTPUT], .usd = t->use.usd,
			    .waste_usd = t->waste.usd };
	struct xa_turn *tot = s->total;

	memcpy(r.cat_ns, t->cat_ns, sizeof(r.cat_ns));
	tot->wall += t->wall;
	for (int c = 0; c < XP_CAT_COUNT; c++) {
		tot->cat_ns[c] += t->cat_ns[c];
		for (int d = 0; d < XP_DOMAIN_COUNT; d++)
			tot->l2_ns[d][c] += t->l2_ns[d][c];
	}
	fold_points(s, t, &r);
	xa_usage_add(&tot->use, &t->use);
	xa_usage_add(&tot->waste, &t->waste);
	if (!tot->unpriced_model[0])
		memcpy(tot->unpriced_model, t->unpriced_model, sizeof(tot->unpriced_model));
	s->dec_tok += t->feat[F_DEC_TOK];
	s->dec_ns += t->feat[F_DEC_NS];
	if (r.ttft_ms >= 0)
		add_point(&s->ttft, (double)t->head.turn_index, r.ttft_ms);
	if (t->feat[F_LLM_N] > 0) {
		if (s->tok.n > 0 && s->tok_last > 0 && r.in_tok / s->tok_last - 1 > s->growth_max)
			s->growth_max = r.in_tok / s->tok_last - 1;
		if (s->tok.n == 0)
			s->tok_first = r.in_tok;
		s->tok_last = r.in_tok;
		add_point(&s->tok, (double)t->head.turn_index, r.in_tok);
	}
	keep_slow(s, &r);
	s->last = t->head;
	s->turns++;
	s->incomplete += !t->head.complete;
	s->dropped += t->dropped_events;
	s->warnings += t->warnings + t->nnotes;
	s->corrections += (unsigned)t->ncorr;
	if (!s->tier[0])
		snprintf(s->tier, sizeof(s->tier), "%s", t->head.tier);
	else if (strcmp(s->tier, t->head.tier))
		snprintf(s->tier, sizeof(s->tier), "mixed");
	return fwrite(&r, sizeof(r), 1, s->rows) == 1 ? 0 : -1;
}

void xa_session_finish(struct xa_session *s)
{
	struct xa_turn *tot = s->total;

	tot->head.turn_index = s->turns;
	snprintf(tot->head.path, sizeof(tot->head.path), "%s", s->dir);
	for (size_t i = 0; i < th_l3_count; i++) {
		struct xa_l3 *a = &tot->l3[i];

		a->value = s->worst[i];
		if (!(s->opt.grades & (1u << th_l3_table[i].grade)))
			a->state = XA_FILTERED;
		else if (s->fired[i])
			a->state = XA_FIRED;
		else if (s->measured[i])
			a->state = XA_OK_BELOW;
		else
			snprintf(a->note, sizeof(a->note), "not measured in any turn");
	}
	fflush(s->rows);
}

int xa_session_row(const struct xa_session *s, size_t i, struct xa_row *r)
{
	if (fseek(s->rows, (long)(i * sizeof(*r)), SEEK_SET))
		return -1;
	return fread(r, sizeof(*r), 1, s->rows) == 1 ? 0 : -1;
}
