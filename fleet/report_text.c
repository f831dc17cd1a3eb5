// SPDX-License-Identifier: MIT
/*
 * report_text.c - the fleet report for an 80-column terminal: totals, the
 * time-weighted L1 shares with bars, the bottleneck frequency table (each
 * point with its suggestion), the worst sessions, nodes and the invalid files.
 * Long texts (suggestions, paths, error lines) are wrapped, never cut, so that
 * no line exceeds 80 columns and no path is lost.
 */
#include <inttypes.h>
#include <string.h>

#include "fleet/fleet.h"
#include "lib/plural.h"

#define WIDTH 80
#define BAR 30
#define MAX_POINTS 15

/* Print text from column `indent`, the first line after lead; words wrap, long ones break. */
static void wrap(FILE *out, const char *lead, int indent, const char *text)
{
	int pad = indent > (int)strlen(lead) ? indent - (int)strlen(lead) : 0;
	int col = fprintf(out, "%*s%s", pad, "", lead), start = col;

	for (const char *p = text + strspn(text, " "); *p; p += strspn(p, " ")) {
		int w = (int)strcspn(p, " "), sep = col > start;

		if (col + sep + w > WIDTH && col > indent) {
			col = start = fprintf(out, "\n%*s", indent, "") - 1;
			continue;
		}
		if (sep)
			col += fprintf(out, " ");
		if (w > WIDTH - col)
			w = WIDTH - col;
		col += fprintf(out, "%.*s", w, p);
		p += w;
	}
	fputc('\n', out);
}

static void totals(const struct fleet_agg *a, FILE *out)
{
	char msg[WIDTH + 1];

	fprintf(out, "xperf fleet report\n");
	wrap(out, "", 0, a->dir);
	fprintf(out, "\nnodes %zu   sessions %u   turns %u (%u incomplete)   turn time %.1f s\n",
		a->nnodes, a->sessions, a->turns, a->incomplete, (double)a->wall_ns / 1e9);
	snprintf(msg, sizeof(msg),
		 "invalid files %u   failed sessions %u   dropped events %" PRIu64,
		 a->invalid_files, a->failed_sessions, a->dropped_events);
	fprintf(out, "%s\n\nTime by category (L1, weighted by turn time)\n", msg);
	for (int c = 0; c < XP_CAT_COUNT; c++) {
		double p = fleet_pct(fleet_cat_ns(a, (enum th_category)c), a->wall_ns);
		int n = (int)(p * BAR / 100 + 0.5);

		fprintf(out, "  %-18s %5.1f%% [", th_categories[c].name, p);
		for (int i = 0; i < BAR; i++)
			fputc(i < n ? '#' : '.', out);
		fprintf(out, "]\n");
	}
}

static void points(const struct fleet_agg *a, FILE *out)
{
	size_t idx[th_l3_count], n = fleet_ranked_points(a, idx);

	fprintf(out, "\nBottlenecks (L3 points by turns fired; %% of all turns)\n");
	if (!n)
		fprintf(out, "  none fired\n");
	else
		fprintf(out, "  %6s %5s %8s  %s\n", "turns", "%", "sessions", "point");
	for (size_t k = 0; k < n && k < MAX_POINTS; k++) {
		const struct fleet_point *f = &a->points[idx[k]];
		const struct th_l3 *p = &th_l3_table[idx[k]];
		char line[WIDTH * 2];

		snprintf(line, sizeof(line), "  %6u %5.1f %8u  ", f->turns,
			 fleet_pct(f->turns, a->turns), f->sessions);
		wrap(out, line, 25, p->id);
		wrap(out, "fix: ", 30, p->suggestion);
	}
	if (n > MAX_POINTS)
		fprintf(out, "  ... %zu more in --format json\n", n - MAX_POINTS);
}

static void sessions(const struct fleet_agg *a, FILE *out)
{
	if (!a->nworst)
		return;
	fprintf(out, "\nWorst sessions (least Effective Work)\n");
	fprintf(out, "  %6s %6s %9s  %s\n", "eff %", "turns", "time s", "top bottleneck");
	for (unsigned i = 0; i < a->nworst; i++) {
		const struct fleet_session *s = &a->worst[i];

		fprintf(out, "  %6.1f %6u %9.1f  %s\n", 100 * s->effective_share, s->turns,
			(double)s->wall_ns / 1e9, s->top ? s->top->id : "-");
		wrap(out, "", 4, s->path);
	}
}

static void nodes(const struct fleet_agg *a, FILE *out)
{
	fprintf(out, "\nNodes\n  %8s %8s %8s %10s  %s\n", "sessions", "turns", "invalid", "dropped",
		"node / agent");
	for (size_t i = 0; i < a->nnodes; i++) {
		const struct fleet_node *n = &a->nodes[i];
		char line[WIDTH * 2];
		unsigned turns = 0;

		for (size_t k = 0; k < a->nseries; k++)
			turns += strcmp(a->series[k].node, n->name) ? 0 : a->series[k].turns;
		snprintf(line, sizeof(line), "  %8u %8u %8u %10" PRIu64 "  ", n->sessions, turns,
			 n->invalid_files, n->dropped_events);
		wrap(out, line, 41, n->name);
		for (size_t k = 0; k < a->nseries; k++) {
			if (strcmp(a->series[k].node, n->name))
				continue;
			snprintf(line, sizeof(line), "  %8u %8u %8s %10s    ",
				 a->series[k].sessions, a->series[k].turns, "", "");
			wrap(out, line, 43, a->series[k].agent);
		}
	}
}

/* Tokens and cost (analyze/README.md, "Tokens and cost"). */
static void tokens(const struct fleet_agg *a, FILE *out)
{
	const struct xa_usage *u = &a->use;
	const struct xa_prices *p = a->prices ? a->prices : xa_prices_default();

	fprintf(out, "\nTokens and cost (prices of %s)\n  input %.0f  output %.0f  cache read %.0f"
		     "  cache write %.0f  reasoning %.0f\n", xa_prices_date(p),
		u->tok[XA_TOK_INPUT], u->tok[XA_TOK_OUTPUT], u->tok[XA_TOK_CACHE_READ],
		u->tok[XA_TOK_CACHE_WRITE], u->tok[XA_TOK_REASONING]);
	fprintf(out, "  cost $%.6f over %u LLM call%s (%u unpriced); waste $%.6f in %u call%s\n",
		u->usd, u->calls, xp_s(u->calls), u->unpriced, a->waste.usd, a->waste.calls,
		xp_s(a->waste.calls));
}

int fleet_report_text(struct fleet_agg *a, FILE *out)
{
	unsigned nbad = a->invalid_files + a->failed_sessions;

	fleet_sort(a);
	totals(a, out);
	tokens(a, out);
	points(a, out);
	sessions(a, out);
	nodes(a, out);
	if (nbad)
		fprintf(out, "\nInvalid files and failed sessions (%u%s)\n", nbad,
			nbad > a->nbad ? ", first shown" : "");
	for (unsigned i = 0; i < a->nbad; i++)
		wrap(out, "- ", 4, a->bad[i]);
	return fflush(out) || ferror(out) ? -1 : 0;
}
