// SPDX-License-Identifier: MIT
/*
 * live.c - the figures `xperf top` shows of an analysed session: agent and
 * pid (of its last turn), TTFT percentiles over the turns' first TTFT
 * (nearest rank), decode rate, tokens and cost, the Waste share, the
 * first-ranked bottleneck with its savings, and the last turns.
 */
#include "analyze/report.h"
#include "lib/cmp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Nearest-rank percentile q of the n sorted values. */
static double rank(const double *v, size_t n, double q)
{
	size_t k = (size_t)ceil(q * (double)n);

	return v[k ? k - 1 : 0];
}

static int ttft_percentiles(const struct xa_session *s, struct xa_live *out)
{
	double *v = calloc(s->turns + 1, sizeof(*v));
	struct xa_row r;
	size_t n = 0;

	if (!v)
		return -1;
	for (size_t i = 0; i < s->turns; i++) {
		if (xa_session_row(s, i, &r))
			return free(v), -1;
		if (r.ttft_ms >= 0)
			v[n++] = r.ttft_ms;
		if (i + XA_LIVE_LAST >= s->turns) /* the last turns, newest first */
			out->last[s->turns - 1 - i] = (struct xa_live_turn){
				r.turn_index, r.wall, r.ttft_ms, r.usd,
				r.top_l3 >= 0 ? &th_l3_table[r.top_l3] : NULL };
	}
	qsort(v, n, sizeof(*v), xp_cmp_double);
	out->ttft_p50_ms = n ? rank(v, n, 0.50) : -1;
	out->ttft_p95_ms = n ? rank(v, n, 0.95) : -1;
	free(v);
	return 0;
}

int xa_session_live(const struct xa_session *s, struct xa_live *out)
{
	const struct xa_view v = { s->total, s, &s->opt, NULL, NULL };
	size_t top;

	memset(out, 0, sizeof(*out));
	snprintf(out->agent, sizeof(out->agent), "%s", s->last.agent);
	out->pid = s->last.pid;
	out->turns = s->turns;
	out->nlast = s->turns < XA_LIVE_LAST ? s->turns : XA_LIVE_LAST;
	out->wall_ns = s->total->wall;
	out->out_tok_per_s = s->dec_ns > 0 ? s->dec_tok / (s->dec_ns / 1e9) : -1;
	out->use = s->total->use;
	out->waste_share = xa_share(s->total->cat_ns[XP_CAT_WASTE], s->total->wall);
	if (xa_top_points(&v, &top, 1)) {
		out->top = &th_l3_table[top];
		out->top_saved_ns = s->total->l3[top].saved_ns;
	}
	return ttft_percentiles(s, out);
}
