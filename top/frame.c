// SPDX-License-Identifier: MIT
/*
 * frame.c - one frame of `xperf top`, for any terminal of at least 80x24: a
 * title line, two lines per session (figures; tokens, cost and the top L3
 * point with its savings), the detail pane of the selected session (tokens by
 * category, its last turns and their top points) and a key line. Every line is
 * cut to the width; sessions scroll to keep the selected one in view.
 */
#include "top/top.h"

#include <string.h>
#include <time.h>

#include "lib/plural.h"

#define DETAIL_LINES (3 + XA_LIVE_LAST)
#define NAME_COLS 14	/* the session column at 80 columns; wider terminals widen it */
#define NAME_TAIL 7	/* kept when a name is cut: a recorder's names end in their start, T155222 */

/* The session column: the longest name, within 14 columns plus what the terminal has beyond 80. */
static int name_cols(const struct top *t, int cols)
{
	int w = NAME_COLS, most = NAME_COLS + (cols > 80 ? cols - 80 : 0);

	for (size_t i = 0; i < t->n; i++) {
		int n = (int)strlen(t->s[i].name);

		w = n > w ? n : w;
	}
	return w < most ? w : most;
}

/* The session's name in w columns: whole, or its head and its tail around a '~', so that
 * two sessions of one agent (python3-4242-20261204T155222) stay apart. */
static void fit_name(const char *name, int w, char *buf)
{
	size_t n = strlen(name);

	if (n <= (size_t)w)
		snprintf(buf, (size_t)w + 1, "%s", name);
	else
		snprintf(buf, (size_t)w + 1, "%.*s~%s", w - NAME_TAIL - 1, name, name + n - NAME_TAIL);
}

/* A token count in at most 6 characters: 950, 12.3k, 4.56M. */
static void count(double n, char *buf, size_t len)
{
	if (n < 10000)
		snprintf(buf, len, "%.0f", n);
	else if (n < 1e6)
		snprintf(buf, len, "%.1fk", n / 1e3);
	else
		snprintf(buf, len, "%.2fM", n / 1e6);
}

/* Print one line of at most cols characters (attr: an SGR code, or NULL); padded to the
 * width only on a terminal, where a bar of reverse video should span the screen. */
static void line(FILE *out, int cols, int ansi, const char *attr, const char *text)
{
	if (ansi && attr)
		fprintf(out, "\033[%sm", attr);
	fprintf(out, "%-*.*s", ansi ? cols : 0, cols, text);
	if (ansi && attr)
		fputs("\033[0m", out);
	fputs(ansi ? "\033[K\r\n" : "\n", out);
}

static void ms_or_dash(double v, char *buf, size_t len)
{
	snprintf(buf, len, v < 0 ? "-" : "%.0f", v);
}

static void session_lines(const struct top_session *s, int sel, int w, int cols, int ansi,
			  FILE *out)
{
	const struct xa_live *l = &s->live;
	char buf[512], name[TOP_NAME], p50[16], p95[16], tps[16], tok[16];

	fit_name(s->name, w, name);
	ms_or_dash(l->ttft_p50_ms, p50, sizeof(p50));
	ms_or_dash(l->ttft_p95_ms, p95, sizeof(p95));
	ms_or_dash(l->out_tok_per_s, tps, sizeof(tps));
	count(xa_usage_tokens(&l->use), tok, sizeof(tok));
	snprintf(buf, sizeof(buf), "%c%-*s %-9.9s %7lld %5u %-12.12s %5s/%-5s %5s %6.1f%%",
		 sel ? '>' : ' ', w, name, l->agent, (long long)l->pid, l->turns, s->now, p50,
		 p95, tps, 100 * l->waste_share);
	line(out, cols, ansi, sel ? "7" : (s->recording ? "1" : NULL), buf);
	/* the node (daemon layout) where the session's second line is indented */
	snprintf(buf, sizeof(buf), "%s%-*.*s %6s tok  $%-9.4f%s top: %s", s->node[0] ? " @" : "  ",
		 s->node[0] ? 10 : 0, s->node[0] ? 10 : 0, s->node, tok, l->use.usd,
		 l->use.unpriced ? "*" : " ", l->top ? l->top->id : "-");
	if (l->top)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), " (saves %.0f ms)",
			 l->top_saved_ns / 1e6);
	line(out, cols, ansi, NULL, buf);
}

static void detail(const struct top_session *s, int cols, int ansi, FILE *out)
{
	const struct xa_live *l = &s->live;
	const struct xa_usage *u = &l->use;
	char buf[512];

	snprintf(buf, sizeof(buf), "-- %s%s%s: %s pid %lld, %u turn%s, %.1f s --", s->node,
		 s->node[0] ? "/" : "", s->name, l->agent, (long long)l->pid, l->turns,
		 xp_s(l->turns), l->wall_ns / 1e9);
	line(out, cols, ansi, "1", buf);
	snprintf(buf, sizeof(buf), "in %.0f out %.0f cache r/w %.0f/%.0f reasoning %.0f; "
		 "$%.4f%s", u->tok[XA_TOK_INPUT], u->tok[XA_TOK_OUTPUT], u->tok[XA_TOK_CACHE_READ],
		 u->tok[XA_TOK_CACHE_WRITE], u->tok[XA_TOK_REASONING], u->usd,
		 u->unpriced ? " (* some calls unpriced)" : "");
	line(out, cols, ansi, NULL, buf);
	line(out, cols, ansi, "4", " turn    wall ms  ttft ms      cost  top point");
	for (unsigned i = 0; i < XA_LIVE_LAST; i++) {
		const struct xa_live_turn *lt = &l->last[i];
		char ttft[16];

		if (i >= l->nlast) {
			line(out, cols, ansi, NULL, "");
			continue;
		}
		ms_or_dash(lt->ttft_ms, ttft, sizeof(ttft));
		snprintf(buf, sizeof(buf), "%5lld %10.1f %8s %9.4f  %s", (long long)lt->turn_index,
			 lt->wall_ns / 1e6, ttft, lt->usd, lt->top ? lt->top->id : "-");
		line(out, cols, ansi, NULL, buf);
	}
}

void top_frame(const struct top *t, int cols, int rows, int ansi, FILE *out)
{
	int body = rows - 3 - (t->detail && t->n ? DETAIL_LINES : 0), per = 2, shown;
	int w = name_cols(t, cols);
	size_t first = 0, live = 0;
	char buf[512], clock[16];
	time_t now = time(NULL);

	for (size_t i = 0; i < t->n; i++)
		live += t->s[i].recording;
	strftime(clock, sizeof(clock), "%H:%M:%S", localtime(&now));
	if (ansi)
		fputs("\033[H", out);
	snprintf(buf, sizeof(buf), "xperf top  %zu session%s, %zu recording  sort: %s  %s  %s",
		 t->n, xp_s(t->n), live, top_sort_names[t->sort], clock,
		 t->error[0] ? t->error : t->dir);
	line(out, cols, ansi, "7", buf);
	snprintf(buf, sizeof(buf), " %-*s agent         pid turns now          TTFT p50/p95 tok/s  "
		 "waste", w, "session");
	line(out, cols, ansi, "4", buf);
	shown = body > 0 ? body / per : 0;
	if (shown > 0 && t->selected >= (size_t)shown)
		first = t->selected - (size_t)shown + 1;
	for (int k = 0; k < shown; k++) {
		if (first + (size_t)k < t->n) {
			session_lines(&t->s[first + k], first + k == t->selected, w, cols, ansi,
				      out);
		} else {
			line(out, cols, ansi, NULL, k || t->n ? "" : " (no session with turns yet)");
			line(out, cols, ansi, NULL, "");
		}
	}
	for (int k = shown * per; k < body; k++)
		line(out, cols, ansi, NULL, "");
	if (t->detail && t->n)
		detail(&t->s[t->selected], cols, ansi, out);
	/* the last row: no line feed, so that the terminal does not scroll */
	fprintf(out, ansi ? "\033[7m%-*.*s\033[0m" : "%-*.*s\n", ansi ? cols : 0, cols,
		" q quit  s sort  j/k select  d detail  ($* some calls unpriced; TTFT ms)");
}
