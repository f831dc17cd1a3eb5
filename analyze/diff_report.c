// SPDX-License-Identifier: MIT
/*
 * diff_report.c - `xperf diff` as text (80 columns), JSON (analyze/diff.schema.json)
 * or one self-contained HTML file. Every format lists the points that moved
 * significantly first, then every point with time on either side.
 */
#include "analyze/diff.h"

#include <string.h>

#include "lib/html.h"
#include "lib/json_int.h"
#include "lib/plural.h"

#include <cjson/cJSON.h>

#define ID_W 32 /* the id column of the text table */

static int shown(const struct xa_diff_point *p)
{
	return p->a_ms > 0 || p->b_ms > 0;
}

/* "6 turns in 1 session (0 skipped), 467.017 ms per turn", for both formats. */
static void side_counts(const struct xa_diff_side *s, FILE *out)
{
	fprintf(out, "%zu turn%s in %u session%s (%u skipped), %.3f ms per turn", s->n, xp_s(s->n),
		s->sessions, xp_s(s->sessions), s->skipped, s->wall_ms);
}

static void side_text(const char *tag, const struct xa_diff_side *s, FILE *out)
{
	fprintf(out, "%s: %.70s\n   ", tag, s->path);
	side_counts(s, out);
	fputc('\n', out);
}

static void row_text(const struct xa_diff_point *p, FILE *out)
{
	int own_line = strlen(p->id) > ID_W; /* a long id on a line of its own: no cut column */
	char ci[40];

	snprintf(ci, sizeof(ci), "%+.1f..%+.1f", p->ms_lo, p->ms_hi);
	fprintf(out, own_line ? "%c %s\n " : "%c", p->significant ? '*' : ' ', p->id);
	fprintf(out, " %-*s %8.1f %8.1f %+8.1f %s\n", ID_W, own_line ? "" : p->id, p->a_ms, p->b_ms,
		p->d_ms, ci);
}

static int render_text(const struct xa_diff *d, FILE *out)
{
	unsigned moved = 0;

	fputs("xperf diff\n", out);
	side_text("A", &d->a, out);
	side_text("B", &d->b, out);
	fprintf(out, "bootstrap over turns: %u resamples, seed %llu, %.0f%% intervals;\n"
		     "* moved: the interval excludes 0 and |change| >= %.3g ms per turn\n"
		     "  (or %.3g%% of A's turn time, if more)\n", d->opt.resamples,
		(unsigned long long)d->opt.seed, 100 * d->opt.confidence, d->opt.min_ms,
		100 * d->opt.min_rel);
	fprintf(out, "\nMoved significantly (ms per turn, B - A; share of turn time)\n");
	for (size_t i = 0; i < d->npoints; i++) {
		const struct xa_diff_point *p = &d->points[i];

		if (!p->significant)
			continue;
		moved++;
		fprintf(out, "  L%d %-48.48s %+9.1f ms %+6.1f%%\n", p->level, p->id, p->d_ms,
			100 * p->d_share);
	}
	if (!moved)
		fputs("  (none)\n", out);
	fprintf(out, "\n  %-*s A ms/turn B ms/turn   change %.0f%% interval\n", ID_W, "point",
		100 * d->opt.confidence);
	for (size_t i = 0; i < d->npoints; i++)
		if (shown(&d->points[i]))
			row_text(&d->points[i], out);
	return 0;
}

static cJSON *side_json(const struct xa_diff_side *s)
{
	cJSON *j = cJSON_CreateObject();

	cJSON_AddStringToObject(j, "path", s->path);
	cJSON_AddNumberToObject(j, "sessions", s->sessions);
	cJSON_AddNumberToObject(j, "turns", (double)s->n);
	cJSON_AddNumberToObject(j, "skipped", s->skipped);
	cJSON_AddNumberToObject(j, "ms_per_turn", s->wall_ms);
	return j;
}

static cJSON *pair(double lo, double hi)
{
	cJSON *a = cJSON_CreateArray();

	cJSON_AddItemToArray(a, cJSON_CreateNumber(lo));
	cJSON_AddItemToArray(a, cJSON_CreateNumber(hi));
	return a;
}

static cJSON *point_json(const struct xa_diff_point *p)
{
	cJSON *j = cJSON_CreateObject();

	cJSON_AddStringToObject(j, "id", p->id);
	cJSON_AddNumberToObject(j, "level", p->level);
	cJSON_AddNumberToObject(j, "a_ms_per_turn", p->a_ms);
	cJSON_AddNumberToObject(j, "b_ms_per_turn", p->b_ms);
	cJSON_AddNumberToObject(j, "delta_ms_per_turn", p->d_ms);
	cJSON_AddItemToObject(j, "ci_ms_per_turn", pair(p->ms_lo, p->ms_hi));
	cJSON_AddNumberToObject(j, "a_share", p->a_share);
	cJSON_AddNumberToObject(j, "b_share", p->b_share);
	cJSON_AddNumberToObject(j, "delta_share", p->d_share);
	cJSON_AddItemToObject(j, "ci_share", pair(p->share_lo, p->share_hi));
	cJSON_AddBoolToObject(j, "significant", p->significant);
	return j;
}

static int render_json(const struct xa_diff *d, FILE *out)
{
	cJSON *root = cJSON_CreateObject(), *o, *pts, *moved;

	cJSON_AddStringToObject(root, "report", "xperf.diff");
	cJSON_AddStringToObject(root, "version", "1.0");
	o = cJSON_AddObjectToObject(root, "options");
	cJSON_AddNumberToObject(o, "resamples", d->opt.resamples);
	xp_json_add_u64(o, "seed", d->opt.seed);
	cJSON_AddNumberToObject(o, "confidence", d->opt.confidence);
	cJSON_AddNumberToObject(o, "min_ms", d->opt.min_ms);
	cJSON_AddNumberToObject(o, "min_rel", d->opt.min_rel);
	cJSON_AddItemToObject(root, "a", side_json(&d->a));
	cJSON_AddItemToObject(root, "b", side_json(&d->b));
	moved = cJSON_AddArrayToObject(root, "moved");
	pts = cJSON_AddArrayToObject(root, "points");
	for (size_t i = 0; i < d->npoints; i++) {
		if (d->points[i].significant)
			cJSON_AddItemToArray(moved, cJSON_CreateString(d->points[i].id));
		cJSON_AddItemToArray(pts, point_json(&d->points[i]));
	}
	return xp_json_fput(root, out);
}

static void side_html(const char *tag, const struct xa_diff_side *s, FILE *out)
{
	fprintf(out, "<li><strong>%s</strong> ", tag);
	xp_html_escape(out, s->path);
	fputs(": ", out);
	side_counts(s, out);
	fputs("</li>", out);
}

static int render_html(const struct xa_diff *d, FILE *out)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/>"
	      "<title>xperf diff</title><style>body{font:14px/1.45 system-ui,sans-serif;"
	      "color:#1d2330;margin:0;background:#f5f6f8}main{max-width:1000px;margin:0 auto;"
	      "padding:24px}table{border-collapse:collapse;width:100%;background:#fff}"
	      "td,th{padding:3px 8px;border-bottom:1px solid #eceef2;text-align:left}"
	      ".num{text-align:right;font-variant-numeric:tabular-nums}"
	      "tr.moved{background:#fff3e0;font-weight:600}.up{color:#c0392b}.down{color:#2e7d32}"
	      "</style></head><body><main><h1>xperf diff</h1><ul>", out);
	side_html("A", &d->a, out);
	side_html("B", &d->b, out);
	fprintf(out, "</ul><p>Bootstrap over turns: %u resamples, seed %llu, %.0f%% intervals. "
		     "Highlighted: moved significantly (the interval excludes 0 and the change is "
		     "at least %.3g ms per turn or %.3g%% of A's turn time).</p>",
		d->opt.resamples, (unsigned long long)d->opt.seed, 100 * d->opt.confidence,
		d->opt.min_ms, 100 * d->opt.min_rel);
	fputs("<table><tr><th>level</th><th>point</th><th class=\"num\">A ms/turn</th>"
	      "<th class=\"num\">B ms/turn</th><th class=\"num\">change</th>"
	      "<th class=\"num\">interval</th><th class=\"num\">share change</th></tr>", out);
	for (size_t i = 0; i < d->npoints; i++) {
		const struct xa_diff_point *p = &d->points[i];

		if (!shown(p))
			continue;
		fprintf(out, "<tr%s><td>L%d</td><td><code>%s</code></td><td class=\"num\">%.3f</td>"
			     "<td class=\"num\">%.3f</td><td class=\"num %s\">%+.3f</td>"
			     "<td class=\"num\">%+.3f .. %+.3f</td><td class=\"num\">%+.2f%%</td></tr>",
			p->significant ? " class=\"moved\"" : "", p->level, p->id, p->a_ms, p->b_ms,
			p->d_ms > 0 ? "up" : "down", p->d_ms, p->ms_lo, p->ms_hi, 100 * p->d_share);
	}
	fputs("</table></main></body></html>\n", out);
	return 0;
}

int xa_diff_render(const struct xa_diff *d, FILE *out)
{
	int rc;

	switch (d->opt.format) {
	case XA_FMT_JSON: rc = render_json(d, out); break;
	case XA_FMT_HTML: rc = render_html(d, out); break;
	default: rc = render_text(d, out); break;
	}
	return rc || fflush(out) || ferror(out) ? -1 : 0;
}
