// SPDX-License-Identifier: MIT
/*
 * report_html.c - the fleet report as one self-contained HTML page (inline
 * CSS, no script, nothing fetched): totals, an L1 share bar, the bottleneck
 * frequency table with suggestions, worst sessions, nodes, invalid files.
 * Every text that comes from the traces (paths, node and agent names, error
 * lines) is HTML-escaped.
 */
#include <inttypes.h>
#include <string.h>

#include "fleet/fleet.h"
#include "lib/html.h"

static const char *const cat_color[XP_CAT_COUNT] = { "#d9822b", "#4a7fb5", "#c23b22",
						     "#3a9a5b" };

static void cell(FILE *out, const char *s)
{
	fputs("<td>", out);
	xp_html_escape(out, s);
	fputs("</td>", out);
}

static void head(const struct fleet_agg *a, FILE *out)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "<title>xperf fleet report</title><style>"
	      "body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}"
	      "table{border-collapse:collapse;margin:.5em 0}"
	      "td,th{border:1px solid #ccc;padding:.2em .6em;text-align:left;vertical-align:top}"
	      "td.n{text-align:right;font-variant-numeric:tabular-nums}"
	      ".bar{display:flex;height:1.4em;width:40em;border:1px solid #999}"
	      ".bar div{height:100%}.fix{color:#555}</style></head><body>\n"
	      "<h1>xperf fleet report</h1>\n<p>", out);
	xp_html_escape(out, a->dir);
	fprintf(out, "</p>\n<table><tr><th>nodes</th><th>sessions</th><th>turns</th>"
		"<th>incomplete</th><th>turn time (s)</th><th>invalid files</th>"
		"<th>failed sessions</th><th>dropped events</th></tr>\n<tr><td class=n>%zu</td>"
		"<td class=n>%u</td><td class=n>%u</td><td class=n>%u</td><td class=n>%.1f</td>"
		"<td class=n>%u</td><td class=n>%u</td><td class=n>%" PRIu64 "</td></tr></table>\n",
		a->nnodes, a->sessions, a->turns, a->incomplete, (double)a->wall_ns / 1e9,
		a->invalid_files, a->failed_sessions, a->dropped_events);
}

static void l1(const struct fleet_agg *a, FILE *out)
{
	fputs("<h2>Time by category (L1, weighted by turn time)</h2>\n<div class=bar>", out);
	for (int c = 0; c < XP_CAT_COUNT; c++) {
		double p = fleet_pct(fleet_cat_ns(a, (enum th_category)c), a->wall_ns);

		fprintf(out, "<div style=\"width:%.2f%%;background:%s\" title=\"%s %.1f%%\"></div>",
			p, cat_color[c], th_categories[c].name, p);
	}
	fputs("</div>\n<table><tr><th>category</th><th>share</th></tr>\n", out);
	for (int c = 0; c < XP_CAT_COUNT; c++)
		fprintf(out, "<tr><td><span style=\"color:%s\">&#9632;</span> %s</td>"
			"<td class=n>%.1f%%</td></tr>\n", cat_color[c], th_categories[c].name,
			fleet_pct(fleet_cat_ns(a, (enum th_category)c), a->wall_ns));
	fputs("</table>\n", out);
}

static void points(const struct fleet_agg *a, FILE *out)
{
	size_t idx[th_l3_count], n = fleet_ranked_points(a, idx);

	fputs("<h2>Bottlenecks (L3 points by turns fired)</h2>\n<table><tr><th>point</th>"
	      "<th>turns</th><th>% of turns</th><th>sessions</th><th>time (s)</th>"
	      "<th>what to do</th></tr>\n", out);
	for (size_t k = 0; k < n; k++) {
		const struct fleet_point *f = &a->points[idx[k]];
		const struct th_l3 *p = &th_l3_table[idx[k]];

		fprintf(out, "<tr><td><b>%s</b><br>%s</td><td class=n>%u</td><td class=n>%.1f</td>"
			"<td class=n>%u</td><td class=n>%.3f</td><td class=fix>", p->id, p->name,
			f->turns, fleet_pct(f->turns, a->turns), f->sessions,
			(double)f->ns / 1e9);
		xp_html_escape(out, p->suggestion);
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
}

static void lists(const struct fleet_agg *a, FILE *out)
{
	fputs("<h2>Worst sessions (least Effective Work)</h2>\n<table><tr><th>session</th>"
	      "<th>node</th><th>agent</th><th>turns</th><th>time (s)</th><th>effective</th>"
	      "<th>top bottleneck</th></tr>\n", out);
	for (unsigned i = 0; i < a->nworst; i++) {
		const struct fleet_session *s = &a->worst[i];

		fputs("<tr>", out);
		cell(out, s->path);
		cell(out, s->node);
		cell(out, s->agent);
		fprintf(out, "<td class=n>%u</td><td class=n>%.1f</td><td class=n>%.1f%%</td>",
			s->turns, (double)s->wall_ns / 1e9, 100 * s->effective_share);
		cell(out, s->top ? s->top->id : "-");
		fputs("</tr>\n", out);
	}
	fputs("</table>\n<h2>Nodes and agents</h2>\n<table><tr><th>node</th><th>agent</th>"
	      "<th>sessions</th><th>turns</th><th>incomplete</th><th>time (s)</th></tr>\n", out);
	for (size_t i = 0; i < a->nseries; i++) {
		const struct fleet_series *s = &a->series[i];

		fputs("<tr>", out);
		cell(out, s->node);
		cell(out, s->agent);
		fprintf(out, "<td class=n>%u</td><td class=n>%u</td><td class=n>%u</td>"
			"<td class=n>%.1f</td></tr>\n", s->sessions, s->turns, s->incomplete,
			(double)s->wall_ns / 1e9);
	}
	fprintf(out, "</table>\n<h2>Invalid files and failed sessions (%u)</h2>\n<ul>\n",
		a->invalid_files + a->failed_sessions);
	for (unsigned i = 0; i < a->nbad; i++) {
		fputs("<li><code>", out);
		xp_html_escape(out, a->bad[i]);
		fputs("</code></li>\n", out);
	}
	fputs("</ul>\n", out);
}

/* Tokens and cost (analyze/README.md, "Tokens and cost"). */
static void tokens(const struct fleet_agg *a, FILE *out)
{
	const struct xa_usage *u[2] = { &a->use, &a->waste };

	fprintf(out, "<h2>Tokens and cost (prices of %s)</h2>\n<table><tr><th></th>",
		xa_prices_date(a->prices ? a->prices : xa_prices_default()));
	for (int k = 0; k < XA_TOK_COUNT; k++)
		fprintf(out, "<th>%s</th>", xa_tok_names[k]);
	fputs("<th>calls</th><th>unpriced</th><th>cost (USD)</th></tr>\n", out);
	for (int r = 0; r < 2; r++) {
		fprintf(out, "<tr><td>%s</td>", r ? "waste" : "all");
		for (int k = 0; k < XA_TOK_COUNT; k++)
			fprintf(out, "<td class=n>%.0f</td>", u[r]->tok[k]);
		fprintf(out, "<td class=n>%u</td><td class=n>%u</td><td class=n>%.6f</td></tr>\n",
			u[r]->calls, u[r]->unpriced, u[r]->usd);
	}
	fputs("</table>\n", out);
}

int fleet_report_html(struct fleet_agg *a, FILE *out)
{
	fleet_sort(a);
	head(a, out);
	tokens(a, out);
	l1(a, out);
	points(a, out);
	lists(a, out);
	fputs("</body></html>\n", out);
	return fflush(out) || ferror(out) ? -1 : 0;
}
