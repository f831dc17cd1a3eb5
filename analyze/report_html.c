// SPDX-License-Identifier: MIT
/*
 * report_html.c - one self-contained HTML file: inline CSS and inline SVG,
 * no scripts and no external references, every text escaped. It shows the
 * L1 split; a session's turns on a time axis (gaps included, at most
 * XA_HTML_BARS turns, evenly sampled), each linking to its turn's page
 * (report_pages.c) or, on a page written alone, to its row; the drill-down
 * tree (fired points open, with evidence, suggestion and L4 causes); a
 * turn's timeline on labelled lanes (domains, tool processes) with its waste
 * marks and token arrivals. SVGs
 * scale with the window (viewBox, width 100%).
 */
#include "analyze/report.h"

#include <string.h>

#include "lib/html.h"
#include "lib/plural.h"

static const char *const cat_color[XP_CAT_COUNT] = { "#4e79a7", "#f28e2b", "#e15759", "#59a14f" };

static const char css[] =
	"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;color:#1d2330;"
	"margin:0;background:#f5f6f8}"
	"main{max-width:1200px;margin:0 auto;padding:24px}svg{width:100%;height:auto}"
	".turn:hover rect{stroke:#1d2330;stroke-width:1}.gap{fill:#e4e7ec}"
	"tr:target{background:#fff7e6}"
	"h1{font-size:22px;margin:0 0 4px}h2{font-size:16px;margin:28px 0 8px;"
	"border-bottom:1px solid #d8dce3;padding-bottom:4px}"
	".facts{color:#5a6272;margin:0 0 12px}"
	".card{background:#fff;border:1px solid #dde1e7;border-radius:8px;padding:14px 16px}"
	".legend span{display:inline-block;margin-right:16px}"
	".sw{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:5px}"
	"ul.tree{list-style:none;padding-left:0;margin:0}ul.tree ul{list-style:none;"
	"padding-left:18px;border-left:2px solid #e4e7ec;margin:4px 0 4px 6px}"
	"li{margin:3px 0}summary{cursor:pointer}"
	".badge{font-size:11px;border-radius:9px;padding:1px 7px;margin-left:6px;color:#fff}"
	".fired{background:#c0392b}.below{background:#7f8c8d}.not_measured{background:#b08900}"
	".not_drilled{background:#aab2bd}.ev{color:#5a6272;font-size:13px}"
	".fix{background:#fff7e6;border-left:3px solid #f28e2b;padding:4px 8px;margin:4px 0}"
	"table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:3px 8px;"
	"border-bottom:1px solid #eceef2;font-size:13px}th{color:#5a6272;font-weight:600}"
	".num{text-align:right;font-variant-numeric:tabular-nums}";

/* A state badge: the JSON name as the class, with spaces for the label. */
static void badge(FILE *out, enum xa_state st)
{
	const char *n = xa_state_name(st);

	fprintf(out, "<span class=\"badge %s\">", n);
	for (; *n; n++)
		fputc(*n == '_' ? ' ' : *n, out);
	fputs("</span>", out);
}

/* A horizontal bar split by category, at (x, y), w wide for the whole turn. */
static void stacked(FILE *out, const uint64_t *ns, uint64_t wall, double x, double y, double w,
		    double h)
{
	for (int c = 0; c < XP_CAT_COUNT && wall; c++) {
		double cw = w * xa_share(ns[c], wall);

		if (cw > 0)
			fprintf(out, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
				     "fill=\"%s\"><title>%s %.1f%%</title></rect>",
				x, y, cw, h, cat_color[c], th_categories[c].name,
				100 * xa_share(ns[c], wall));
		x += cw;
	}
}

static void legend(FILE *out, const struct xa_turn *t)
{
	fputs("<div class=\"legend\">", out);
	for (int c = 0; c < XP_CAT_COUNT; c++)
		fprintf(out, "<span><i class=\"sw\" style=\"background:%s\"></i>%s %.1f%%</span>",
			cat_color[c], th_categories[c].name, 100 * xa_share(t->cat_ns[c], t->wall));
	fputs("</div>", out);
}

size_t xa_html_bars(const struct xa_session *s)
{
	return s->turns < XA_HTML_BARS ? s->turns : XA_HTML_BARS;
}

size_t xa_html_drawn(const struct xa_session *s, size_t k, size_t n)
{
	return k * s->turns / n;
}

/* A file name as a relative URL: every byte but [A-Za-z0-9._~-] percent-encoded. */
static void url_escape(FILE *out, const char *s)
{
	for (; *s; s++)
		if (strchr("._~-", *s) || (*s >= '0' && *s <= '9') || ((*s | 32) >= 'a' &&
									(*s | 32) <= 'z'))
			fputc(*s, out);
		else
			fprintf(out, "%%%02X", (unsigned char)*s);
}

/* Where the k-th drawn turn links: its page when it has one, else its row. */
static void turn_href(const struct xa_view *v, size_t k, int64_t idx, FILE *out)
{
	char name[512];

	fputs("href=\"", out);
	if (v->paged && v->paged[k]) {
		xa_html_page_name(v->report, idx, name, sizeof(name));
		url_escape(out, name);
	} else {
		fprintf(out, "#turn-%lld", (long long)idx);
	}
	fputc('"', out);
}

/* x of stamp t on the session axis: [t0, t1] over [60, 980] of a 1000-wide view box. */
static double axis_x(uint64_t t, uint64_t t0, uint64_t t1)
{
	return 60 + 920.0 * (double)(t - t0) / (double)(t1 > t0 ? t1 - t0 : 1);
}

/*
 * The session on a time axis: each turn a bar at its start, as long as it lasted,
 * stacked by category, linking to its page (or its row); the gaps between
 * turns (the agent idle or waiting for its user) drawn as such; ticks in seconds.
 */
static void session_axis(const struct xa_view *v, FILE *out)
{
	const struct xa_session *s = v->s;
	size_t n = xa_html_bars(s);
	uint64_t t0 = UINT64_MAX, t1 = 0, prev_end = 0;
	struct xa_row r;

	for (size_t i = 0; i < s->turns && !xa_session_row(s, i, &r); i++) {
		t0 = r.start < t0 ? r.start : t0;
		t1 = r.start + r.wall > t1 ? r.start + r.wall : t1;
	}
	fputs("<h2>Turns on a time axis</h2><div class=\"card\">", out);
	legend(out, s->total);
	fputs("<svg id=\"axis\" viewBox=\"0 0 1000 74\" role=\"img\">", out);
	for (int k = 0; k <= 5 && t1 > t0; k++) {
		uint64_t t = t0 + (t1 - t0) * (uint64_t)k / 5;

		fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"6\" y2=\"50\" stroke=\"#d8dce3\"/>"
			     "<text class=\"tick\" x=\"%.1f\" y=\"66\" font-size=\"11\" "
			     "fill=\"#5a6272\" text-anchor=\"middle\">%.3g s</text>",
			axis_x(t, t0, t1), axis_x(t, t0, t1), axis_x(t, t0, t1), (t - t0) / 1e9);
	}
	fputs("<text x=\"0\" y=\"32\" font-size=\"11\" fill=\"#5a6272\">turns</text>", out);
	for (size_t k = 0; k < n && !xa_session_row(s, xa_html_drawn(s, k, n), &r); k++) {
		double x = axis_x(r.start, t0, t1), w = axis_x(r.start + r.wall, t0, t1) - x;

		if (k && n == s->turns && r.start > prev_end)
			fprintf(out, "<rect class=\"gap\" x=\"%.2f\" y=\"24\" width=\"%.2f\" "
				     "height=\"8\"><title>gap %.3f ms</title></rect>",
				axis_x(prev_end, t0, t1), x - axis_x(prev_end, t0, t1),
				(r.start - prev_end) / 1e6);
		fputs("<a ", out);
		turn_href(v, k, r.turn_index, out);
		fprintf(out, "><g class=\"turn\" data-turn=\"%lld\" "
			     "data-start-ns=\"%llu\" data-wall-ns=\"%llu\"><title>turn %lld: %.3f ms"
			     "</title>", (long long)r.turn_index,
			(unsigned long long)(r.start - t0), (unsigned long long)r.wall,
			(long long)r.turn_index, r.wall / 1e6);
		stacked(out, r.cat_ns, r.wall, x, 12, w > 0.5 ? w : 0.5, 32);
		fputs("</g></a>", out);
		prev_end = r.start + r.wall;
	}
	fputs("</svg>", out);
	if (s->turns > XA_HTML_BARS)
		fprintf(out, "<p class=\"ev\">%zu of %u turns drawn, evenly sampled.</p>", n,
			s->turns);
	fputs("</div>", out);
}

/* Every drawn turn as a row the axis links to; its number links to its page. */
static void turn_rows(const struct xa_view *v, FILE *out)
{
	const struct xa_session *s = v->s;
	size_t n = xa_html_bars(s);
	struct xa_row r;

	fputs("<h2>Turns</h2><div class=\"card\"><table><tr><th>turn</th><th class=\"num\">"
	      "wall (ms)</th><th class=\"num\">TTFT (ms)</th><th>by category</th><th>top point"
	      "</th></tr>", out);
	for (size_t k = 0; k < n && !xa_session_row(s, xa_html_drawn(s, k, n), &r); k++) {
		fprintf(out, "<tr id=\"turn-%lld\"><td><a ", (long long)r.turn_index);
		turn_href(v, k, r.turn_index, out);
		fprintf(out, ">%lld</a></td><td class=\"num\">%.3f</td><td class=\"num\">",
			(long long)r.turn_index, r.wall / 1e6);
		if (r.ttft_ms >= 0)
			fprintf(out, "%.1f", r.ttft_ms);
		fputs("</td><td><svg viewBox=\"0 0 200 10\" style=\"width:200px\">", out);
		stacked(out, r.cat_ns, r.wall, 0, 0, 200, 10);
		fprintf(out, "</svg></td><td><code>%s</code></td></tr>",
			r.top_l3 >= 0 ? th_l3_table[r.top_l3].id : "-");
	}
	fputs("</table></div>", out);
}

/* The turn as one bar split by category. */
static void turn_bar(const struct xa_turn *t, FILE *out)
{
	fputs("<h2>Time by category</h2><div class=\"card\">", out);
	legend(out, t);
	fputs("<svg viewBox=\"0 0 1000 22\" role=\"img\">", out);
	stacked(out, t->cat_ns, t->wall, 0, 3, 880, 16);
	fprintf(out, "<text x=\"890\" y=\"15\" font-size=\"11\" fill=\"#5a6272\">%.1f ms</text>"
		     "</svg></div>", t->wall / 1e6);
}

static void l4_items(const struct xa_view *v, size_t i, FILE *out)
{
	fputs("<ul>", out);
	for (size_t k = 0; k < th_l4_count; k++) {
		const struct th_l4 *c = &th_l4_table[k];
		char why[160];
		double val;
		enum xa_state st = xa_l4_eval(v->t, i, c, &val, why, sizeof(why));

		fputs("<li>L4 ", out);
		xp_html_escape(out, c->name);
		badge(out, st);
		fputs(" <span class=\"ev\">", out);
		if (st == XA_NOT_MEASURED) {
			fputs("not measured: ", out);
			xp_html_escape(out, why);
		} else {
			fprintf(out, "%.4g %s (fires %s %g)", val, c->unit,
				c->cmp == XP_FIRE_ABOVE ? "above" : "below", c->threshold);
		}
		fputs("</span>", out);
		if (st == XA_FIRED) {
			fputs("<div class=\"fix\">", out);
			xp_html_escape(out, c->suggestion);
			fputs("</div>", out);
		}
		fputs("</li>", out);
	}
	fputs("</ul>", out);
}

static void l3_item(const struct xa_view *v, size_t i, FILE *out)
{
	const struct th_l3 *p = &th_l3_table[i];
	const struct xa_l3 *a = &v->t->l3[i];

	fprintf(out, "<li><details%s><summary>", a->state == XA_FIRED ? " open=\"open\"" : "");
	xp_html_escape(out, p->name);
	fprintf(out, " <code>%s</code> [%s]", p->id, th_grade_names[p->grade]);
	badge(out, a->state);
	fputs("</summary>", out);
	fputs("<div class=\"ev\">", out);
	if (a->state == XA_NOT_MEASURED) {
		fputs("not measured: ", out);
		xp_html_escape(out, a->note);
	} else {
		xp_html_escape(out, p->metric);
		fprintf(out, ": %s%.4g %s (fires %s %g); %.3f ms charged", v->s ? "worst " : "",
			a->value, p->unit, p->cmp == XP_FIRE_ABOVE ? "above" : "below",
			p->threshold, a->ns / 1e6);
		if (v->s)
			fprintf(out, "; fired in %u of %u turn%s", v->s->fired[i], v->s->turns,
				xp_s(v->s->turns));
	}
	fputs("</div>", out);
	if (a->state == XA_FIRED) {
		fputs("<div class=\"fix\">", out);
		xp_html_escape(out, p->suggestion);
		fprintf(out, " <strong>Fixing it saves up to %.3f ms (%.1f%% of the %s).</strong></div>",
			a->saved_ns / 1e6, 100 * xa_share(a->saved_ns, v->t->wall),
			v->s ? "session" : "turn");
	}
	if (xa_l4_shown(v, i))
		l4_items(v, i, out);
	fputs("</details></li>", out);
}

static void node(FILE *out, const char *label, uint64_t ns, uint64_t wall, int drilled)
{
	fputs("<strong>", out);
	xp_html_escape(out, label);
	fprintf(out, "</strong> %.1f%% <span class=\"ev\">(%.3f ms)%s</span>",
		100 * xa_share(ns, wall), ns / 1e6, drilled ? "" : " below threshold");
}

static void l2_items(const struct xa_view *v, enum th_category c, FILE *out)
{
	fputs("<ul>", out);
	for (size_t k = 0; k < th_l2_count; k++) {
		const struct th_l2 *l2 = &th_l2_table[k];
		int dr = xa_l2_drilled(v, l2);

		if (l2->category != c)
			continue;
		fputs("<li>", out);
		node(out, l2->id, v->t->l2_ns[l2->domain][c], v->t->wall, dr);
		if (dr && v->o->depth >= 3) {
			fputs("<ul>", out);
			for (size_t i = 0; i < th_l3_count; i++)
				if (xa_l3_shown(v, i) && !strcmp(th_l3_table[i].l2_id, l2->id))
					l3_item(v, i, out);
			fputs("</ul>", out);
		}
		fputs("</li>", out);
	}
	fputs("</ul>", out);
}

static void drill_tree(const struct xa_view *v, FILE *out)
{
	fprintf(out, "<h2>Drill-down (threshold %.0f%%, depth L%d)</h2><div class=\"card\">"
		     "<ul class=\"tree\">", 100 * v->o->threshold, v->o->depth);
	for (int c = 0; c < XP_CAT_COUNT; c++) {
		int dr = xa_l1_drilled(v, (enum th_category)c);

		fprintf(out, "<li><i class=\"sw\" style=\"background:%s\"></i>", cat_color[c]);
		node(out, th_categories[c].name, v->t->cat_ns[c], v->t->wall, dr);
		if (dr && v->o->depth >= 2)
			l2_items(v, (enum th_category)c, out);
		fputs("</li>", out);
	}
	fputs("</ul></div>", out);
}

#define TOOL_LANES 6 /* tool processes with a lane of their own; the rest share the last */

/* The lane of segment i: its domain's, or its tool process's (lanes 3.., in order of first use). */
static int lane_of(const struct xa_turn *t, size_t i, char (*tools)[64], int *ntools)
{
	int k = 0;

	if (!t->seg_tool[i][0])
		return t->segs[i].domain;
	while (k < *ntools && strcmp(tools[k], t->seg_tool[i]))
		k++;
	if (k == *ntools && k < TOOL_LANES)
		snprintf(tools[(*ntools)++], sizeof(tools[0]), "%s", t->seg_tool[i]);
	return XP_DOMAIN_COUNT + (k < TOOL_LANES ? k : TOOL_LANES - 1);
}

/* Waste marks (a segment a waste mark covers, once per run) and token arrivals at y. */
static void marks_and_tokens(const struct xa_turn *t, double sc, int y, FILE *out)
{
	for (size_t i = 0; i < t->nsegs; i++) {
		double x = 100 + (double)(t->segs[i].start - t->start) * sc;

		if (!t->seg_waste[i] || (i && t->seg_waste[i - 1] == t->seg_waste[i]))
			continue;
		fprintf(out, "<path class=\"waste-mark\" d=\"M%.2f %dl5 9h-10z\" fill=\"#e15759\">"
			     "<title>waste: %s</title></path>", x, y, t->seg_waste[i]);
	}
	for (size_t k = 0; k < t->ntok; k++) {
		double x = 100 + (double)(t->tok_ns[k] - t->start) * sc;

		fprintf(out, "<line class=\"token\" x1=\"%.2f\" x2=\"%.2f\" y1=\"%d\" y2=\"%d\" "
			     "stroke=\"#59a14f\"/>", x, x, y + 16, y + 28);
	}
	fprintf(out, "<text class=\"lane\" x=\"0\" y=\"%d\" font-size=\"11\" fill=\"#5a6272\">"
		     "waste marks</text><text class=\"lane\" x=\"0\" y=\"%d\" font-size=\"11\" "
		     "fill=\"#5a6272\">tokens (%zu)</text>", y + 9, y + 26, t->ntok);
}

/*
 * The turn's segments on labelled lanes: one per domain, one per tool process
 * (a tool's time is drawn on its own lane), then its waste marks and token arrivals.
 */
static void timeline(const struct xa_turn *t, FILE *out)
{
	double sc = t->wall ? 880.0 / (double)t->wall : 0;
	char tools[TOOL_LANES][64];
	int ntools = 0, y;

	for (size_t i = 0; i < t->nsegs; i++)
		lane_of(t, i, tools, &ntools);
	y = (XP_DOMAIN_COUNT + ntools) * 28;
	fputs("<h2>Timeline</h2><div class=\"card\">", out);
	fprintf(out, "<svg id=\"timeline\" viewBox=\"0 0 1000 %d\" role=\"img\">", y + 50);
	for (int d = 0; d < XP_DOMAIN_COUNT + ntools; d++) {
		fprintf(out, "<text class=\"lane\" x=\"0\" y=\"%d\" font-size=\"11\" "
			     "fill=\"#5a6272\">", d * 28 + 19);
		xp_html_escape(out, d < XP_DOMAIN_COUNT ? th_domains[d].key
							 : tools[d - XP_DOMAIN_COUNT]);
		fputs("</text>", out);
	}
	for (size_t i = 0; i < t->nsegs; i++) {
		const struct xa_seg *g = &t->segs[i];

		fprintf(out, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"20\" fill=\"%s\">"
			     "<title>", 100 + (double)(g->start - t->start) * sc,
			lane_of(t, i, tools, &ntools) * 28 + 5, (double)(g->end - g->start) * sc,
			cat_color[g->category]);
		xp_html_escape(out, t->seg_stage[i]);
		fprintf(out, ": %.3f ms, %s</title></rect>", (g->end - g->start) / 1e6,
			th_categories[g->category].name);
	}
	marks_and_tokens(t, sc, y, out);
	fprintf(out, "<text x=\"100\" y=\"%d\" font-size=\"11\" fill=\"#5a6272\">0 ms</text>"
		     "<text x=\"980\" y=\"%d\" font-size=\"11\" fill=\"#5a6272\" "
		     "text-anchor=\"end\">%.1f ms</text></svg></div>", y + 46, y + 46, t->wall / 1e6);
}

/* Fired points ranked by what fixing them saves (analyze/README.md, "Savings"). */
static void savings_section(const struct xa_view *v, FILE *out)
{
	size_t idx[XA_MAX_L3], n = xa_savings_ranked(v, idx);

	if (v->o->depth < 3 || !n)
		return;
	fputs("<h2>Savings if fixed</h2><div class=\"card\"><table><tr><th>point</th>"
	      "<th class=\"num\">saves up to (ms)</th><th class=\"num\">share</th>"
	      "<th class=\"num\">charged (ms)</th></tr>", out);
	for (size_t k = 0; k < n; k++) {
		const struct xa_l3 *a = &v->t->l3[idx[k]];

		fprintf(out, "<tr><td><code>%s</code></td><td class=\"num\">%.3f</td>"
			     "<td class=\"num\">%.1f%%</td><td class=\"num\">%.3f</td></tr>",
			th_l3_table[idx[k]].id, a->saved_ns / 1e6,
			100 * xa_share(a->saved_ns, v->t->wall), a->ns / 1e6);
	}
	fprintf(out, "</table><p class=\"ev\">Time charged to each point scaled to its threshold: "
		     "an upper bound for a fix that brings the metric to the threshold, assuming "
		     "nothing else moves (%s share).</p></div>", v->s ? "session" : "turn");
}

/* Tokens by category, cost and waste (analyze/README.md, "Tokens and cost"). */
static void tokens_section(const struct xa_view *v, FILE *out)
{
	const struct xa_usage *u[2] = { &v->t->use, &v->t->waste };
	const struct xa_prices *p = xa_view_prices(v);

	fputs("<h2>Tokens and cost</h2><div class=\"card\"><table><tr><th></th>", out);
	for (int k = 0; k < XA_TOK_COUNT; k++)
		fprintf(out, "<th class=\"num\">%s</th>", xa_tok_names[k]);
	fputs("<th class=\"num\">calls</th><th class=\"num\">cost (USD)</th></tr>", out);
	for (int r = 0; r < 2; r++) {
		fprintf(out, "<tr><td>%s</td>", r ? "waste" : "all");
		for (int k = 0; k < XA_TOK_COUNT; k++)
			fprintf(out, "<td class=\"num\">%.0f</td>", u[r]->tok[k]);
		fprintf(out, "<td class=\"num\">%u</td><td class=\"num\">%.6f</td></tr>",
			u[r]->calls, u[r]->usd);
	}
	for (size_t i = 0; !v->s && i < v->t->ncalls; i++) { /* a turn: each call */
		const struct xa_call *c = &v->t->calls[i];

		fprintf(out, "<tr><td>span %lld ", (long long)c->span);
		xp_html_escape(out, c->model[0] ? c->model : "(no model)");
		if (c->waste_l3)
			fprintf(out, " <span class=\"badge fired\">waste</span> <code>%s</code>",
				c->waste_l3);
		fputs("</td>", out);
		for (int k = 0; k < XA_TOK_COUNT; k++)
			fprintf(out, "<td class=\"num\">%.0f</td>", c->use.tok[k]);
		fputs("<td class=\"num\">1</td><td class=\"num\">", out);
		fprintf(out, c->use.unpriced ? "unpriced" : "%.6f", c->use.usd);
		fputs("</td></tr>", out);
	}
	fputs("</table><p class=\"ev\">Prices: ", out);
	xp_html_escape(out, xa_prices_source(p));
	fprintf(out, ", %s.", xa_prices_date(p));
	if (v->t->use.unpriced) {
		fprintf(out, " %u call%s unpriced (no pattern matches model ", v->t->use.unpriced,
			xp_s(v->t->use.unpriced));
		xp_html_escape(out, v->t->unpriced_model);
		fputs("): their tokens count, their cost does not.", out);
	}
	fputs("</p></div>", out);
}

static void session_tables(const struct xa_session *s, FILE *out)
{
	fprintf(out, "<h2>Trends</h2><div class=\"card\"><p>TTFT drift %+.3f ms per turn over %.0f "
		     "turns. Input tokens %.0f &#8594; %.0f (%+.1f per turn, largest growth "
		     "%+.1f%%).</p></div>",
		xa_slope(&s->ttft), s->ttft.n, s->tok_first, s->tok_last, xa_slope(&s->tok),
		100 * s->growth_max);
	fputs("<h2>Slowest turns</h2><div class=\"card\"><table><tr><th>turn</th>"
	      "<th class=\"num\">wall (ms)</th><th>top point</th></tr>", out);
	for (unsigned i = 0; i < s->nslow; i++)
		fprintf(out, "<tr><td>%lld</td><td class=\"num\">%.3f</td><td><code>%s</code></td>"
			     "</tr>", (long long)s->slow[i].turn_index, s->slow[i].wall / 1e6,
			s->slow[i].top_l3 >= 0 ? th_l3_table[s->slow[i].top_l3].id : "-");
	fputs("</table></div>", out);
}

static void notes(const struct xa_view *v, FILE *out)
{
	const struct xa_turn *t = v->t;

	if (!t->ncorr && !t->nnotes && !(v->s && v->s->skipped))
		return;
	fputs("<h2>Data quality</h2><div class=\"card\"><ul>", out);
	for (size_t i = 0; i < t->ncorr; i++) {
		fprintf(out, "<li>span %lld (", (long long)t->corr[i].span_id);
		xp_html_escape(out, t->corr[i].stage);
		fprintf(out, ") declared %s, corrected to %s</li>",
			th_domains[t->corr[i].declared].key, th_domains[t->corr[i].corrected].key);
	}
	for (unsigned i = 0; i < t->nnotes; i++) {
		fputs("<li>", out);
		xp_html_escape(out, t->notes[i]);
		fputs("</li>", out);
	}
	for (unsigned i = 0; v->s && i < v->s->skipped && i < XA_SKIP_SHOWN; i++) {
		fputs("<li>skipped: ", out);
		xp_html_escape(out, v->s->skip_msg[i]);
		fputs("</li>", out);
	}
	fputs("</ul></div>", out);
}

int xa_report_html(const struct xa_view *v, FILE *out)
{
	const struct xa_turn *t = v->t;

	fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/>"
		     "<title>xperf Top-down report</title><style>%s</style></head><body><main>",
		css);
	if (v->s) {
		fputs("<h1>xperf session report</h1><p class=\"facts\">", out);
		xp_html_escape(out, v->s->dir);
		fprintf(out, ": %u turn%s, %u skipped, %.3f s; tier %s; %llu dropped event%s</p>",
			v->s->turns, xp_s(v->s->turns), v->s->skipped, t->wall / 1e9, v->s->tier,
			(unsigned long long)v->s->dropped, xp_s(v->s->dropped));
	} else {
		fprintf(out, "<h1>xperf turn %lld</h1><p class=\"facts\">session ",
			(long long)t->head.turn_index);
		xp_html_escape(out, t->head.session_id);
		fputs("; source ", out);
		xp_html_escape(out, t->head.source);
		fprintf(out, "; %.3f ms; tier ", t->wall / 1e6);
		xp_html_escape(out, t->head.tier);
		fprintf(out, "; %s</p>", t->head.complete ? "complete" : "incomplete");
		if (v->report) {
			fputs("<p><a id=\"up\" href=\"", out);
			url_escape(out, v->report);
			fputs("\">&#8592; session report</a></p>", out);
		}
	}
	if (v->s)
		session_axis(v, out);
	else
		turn_bar(t, out);
	drill_tree(v, out);
	savings_section(v, out);
	tokens_section(v, out);
	if (v->s) {
		session_tables(v->s, out);
		turn_rows(v, out);
	} else
		timeline(t, out);
	notes(v, out);
	fputs("</main></body></html>\n", out);
	return 0;
}
