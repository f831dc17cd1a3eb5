/* SPDX-License-Identifier: MIT */
/*
 * report.h - what the three reporters share: which nodes of the drill-down a
 * report shows, their labels, and the per-format entry points. A report
 * renders either one turn or a session; both carry an xa_turn of time sums
 * (a session's "total"), so the tree code is the same.
 */
#ifndef XPERF_ANALYZE_REPORT_H
#define XPERF_ANALYZE_REPORT_H

#include "analyze/model.h"

/* What a reporter draws: a turn (s == NULL) or a session (t == s->total). */
struct xa_view {
	const struct xa_turn *t;
	const struct xa_session *s;
	const struct xa_options *o;
	/* HTML with turn pages (report_pages.c): the session report's file name, linked
	 * from each turn page; on the session page, paged[k] is set when the k-th drawn
	 * turn has its page. NULL: one page, bars link to the turns table. */
	const char *report;
	const unsigned char *paged;
};

const char *xa_state_name(enum xa_state s); /* "fired", "below", ... */
/* 1 when the L1 / L2 node's share is above the threshold (it is drilled). */
int xa_l1_drilled(const struct xa_view *v, enum th_category c);
int xa_l2_drilled(const struct xa_view *v, const struct th_l2 *l2);
/* 1 when L3 point i appears in the report (not filtered, depth >= 3). */
int xa_l3_shown(const struct xa_view *v, size_t i);
/* 1 when L4 causes are evaluated for point i (depth 4, fired, compute domain). */
int xa_l4_shown(const struct xa_view *v, size_t i);
/* Fired points ordered by time, at most n; returns how many. */
size_t xa_top_points(const struct xa_view *v, size_t *idx, size_t n);

/* Every fired point, most time saved first (ties: theory's order); idx holds XA_MAX_L3. */
size_t xa_savings_ranked(const struct xa_view *v, size_t *idx);

/* The price table a report was priced with. */
const struct xa_prices *xa_view_prices(const struct xa_view *v);

/* Render v in its format to out (report.c); 0 or -1 on a write error. */
int xa_render_view(const struct xa_view *v, FILE *out);

/* The session page draws XA_HTML_BARS turns at most, evenly sampled: the k-th of n drawn
 * is row xa_html_drawn(s, k, n) (report_html.c). */
#define XA_HTML_BARS 200
size_t xa_html_bars(const struct xa_session *s);
size_t xa_html_drawn(const struct xa_session *s, size_t k, size_t n);
/* The file name of turn idx's page next to the session report named `report`:
 * "<report without .html>.turn_NNN.html". */
void xa_html_page_name(const char *report, int64_t idx, char *buf, size_t len);

int xa_report_json(const struct xa_view *v, FILE *out);
int xa_report_text(const struct xa_view *v, FILE *out);
int xa_report_html(const struct xa_view *v, FILE *out);

#endif /* XPERF_ANALYZE_REPORT_H */
