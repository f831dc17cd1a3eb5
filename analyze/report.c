// SPDX-License-Identifier: MIT
/*
 * report.c - the selection rules all reporters share (drilled nodes, shown
 * points, top bottlenecks), format dispatch, and the short summary.
 */
#include "analyze/report.h"

#include <string.h>

const char *xa_state_name(enum xa_state s)
{
	static const char *const names[] = { "not_measured", "below", "fired", "not_drilled",
					     "filtered" };

	return names[s];
}

int xa_l1_drilled(const struct xa_view *v, enum th_category c)
{
	return xa_share(v->t->cat_ns[c], v->t->wall) > v->o->threshold;
}

int xa_l2_drilled(const struct xa_view *v, const struct th_l2 *l2)
{
	return xa_l1_drilled(v, l2->category) &&
	       xa_share(v->t->l2_ns[l2->domain][l2->category], v->t->wall) > v->o->threshold;
}

int xa_l3_shown(const struct xa_view *v, size_t i)
{
	return v->o->depth >= 3 && v->t->l3[i].state != XA_FILTERED;
}

int xa_l4_shown(const struct xa_view *v, size_t i)
{
	const struct th_l2 *l2 = xa_l3_parent(i);

	return v->o->depth >= 4 && v->t->l3[i].state == XA_FIRED && l2 &&
	       l2->domain == XP_DOMAIN_COMPUTE;
}

/* Session: by turns fired, then time; turn: by time. */
static int before(const struct xa_view *v, size_t a, size_t b)
{
	if (v->s && v->s->fired[a] != v->s->fired[b])
		return v->s->fired[a] > v->s->fired[b];
	return v->t->l3[a].ns > v->t->l3[b].ns;
}

size_t xa_top_points(const struct xa_view *v, size_t *idx, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < th_l3_count && n; i++) {
		size_t j;

		if (v->t->l3[i].state != XA_FIRED)
			continue;
		if (k < n)
			j = k++;
		else if (before(v, i, idx[n - 1]))
			j = n - 1;
		else
			continue;
		for (; j > 0 && before(v, i, idx[j - 1]); j--)
			idx[j] = idx[j - 1];
		idx[j] = i;
	}
	return k;
}

size_t xa_savings_ranked(const struct xa_view *v, size_t *idx)
{
	size_t k = 0;

	for (size_t i = 0; i < th_l3_count; i++) {
		size_t j = k;

		if (v->t->l3[i].state != XA_FIRED || !v->t->l3[i].saved_ns)
			continue; /* effective work saves nothing: its fix names a processing point */
		for (k++; j > 0 && v->t->l3[idx[j - 1]].saved_ns < v->t->l3[i].saved_ns; j--)
			idx[j] = idx[j - 1];
		idx[j] = i;
	}
	return k;
}

const struct xa_prices *xa_view_prices(const struct xa_view *v)
{
	return v->o->prices ? v->o->prices : xa_prices_default();
}

int xa_render_view(const struct xa_view *v, FILE *out)
{
	int rc;

	switch (v->o->format) {
	case XA_FMT_TEXT: rc = xa_report_text(v, out); break;
	case XA_FMT_HTML: rc = xa_report_html(v, out); break;
	default: rc = xa_report_json(v, out); break;
	}
	return rc || fflush(out) || ferror(out) ? -1 : 0;
}

int xa_render_turn(const struct xa_turn *t, const struct xa_options *o, FILE *out)
{
	const struct xa_view v = { t, NULL, o, NULL, NULL };

	return xa_render_view(&v, out);
}

int xa_render_session(const struct xa_session *s, const struct xa_options *o, FILE *out)
{
	const struct xa_view v = { s->total, s, o, NULL, NULL };

	return xa_render_view(&v, out);
}

void xa_session_summary(const struct xa_session *s, struct xa_summary *out)
{
	const struct xa_view v = { s->total, s, &s->opt, NULL, NULL };
	size_t idx[3];
	size_t n = xa_top_points(&v, idx, 3);

	memset(out, 0, sizeof(*out));
	out->turns = s->turns;
	out->skipped = s->skipped;
	out->wall_ns = s->total->wall;
	for (int c = 0; c < XP_CAT_COUNT; c++)
		out->l1_share[c] = xa_share(s->total->cat_ns[c], s->total->wall);
	for (size_t k = 0; k < n; k++) {
		out->top[k].l3 = &th_l3_table[idx[k]];
		out->top[k].turns_fired = s->fired[idx[k]];
		out->top[k].value = s->worst[idx[k]];
		out->top[k].saved_ns = s->total->l3[idx[k]].saved_ns;
	}
	out->use = s->total->use;
	out->waste = s->total->waste;
	out->dropped_events = s->dropped;
	out->warnings = s->warnings;
	out->corrections = s->corrections;
	snprintf(out->tier, sizeof(out->tier), "%s", s->tier);
}
