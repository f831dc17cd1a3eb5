/* SPDX-License-Identifier: MIT */
/*
 * cmd_analyze.c - `xperf analyze`: the Top-down report of one turn or of a
 * session (analyze/analyze.h does the work; doc below: usage, exit codes).
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "analyze/analyze.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "lib/atomic_file.h"
#include "theory/theory.h"

static const char doc[] =
	"The Top-down report of one turn (FILE) or of a session (DIR): on stdout, or with -o "
	"in OUT.\v"
	"Exit status: 0 ok, 1 runtime failure, 2 invalid input (turn: an invalid file; "
	"session: no valid turn), 64 usage error.";

enum { OPT_FORMAT = 256, OPT_DEPTH, OPT_GRADES, OPT_THRESHOLD };

static const struct argp_option options[] = {
	{ "format", OPT_FORMAT, "json|text|html", 0, "report format (json by default)", 0 },
	{ "depth", OPT_DEPTH, "L1|L2|L3|L4", 0, "deepest drill-down level (L3 by default)", 0 },
	{ "measurability", OPT_GRADES, "A,B,C", 0,
	  "grades of L3 points kept; filtered points' time folds into Processing (A,B,C by "
	  "default)", 0 },
	{ "threshold", OPT_THRESHOLD, "0.2", 0, "drill into nodes above this share of turn time",
	  0 },
	CMD_OPTION_PRICES,
	CMD_OPTION_OUTPUT("the report"),
	{ 0 },
};

struct args {
	struct cmd_mode_path pos;
	struct xa_options opt;
};

/* One of --measurability's grades ("A,,B" has an empty one: refused). */
static void grade(const struct argp_state *state, const char *item, void *grades)
{
	*(unsigned *)grades |= 1u << xp_args_choice(state, item, th_grade_names, XP_GRADE_COUNT);
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		xa_options_default(&a->opt);
		break;
	case OPT_FORMAT:
		a->opt.format = (enum xa_format)xp_args_choice(state, arg, xa_format_names, 3);
		break;
	case OPT_DEPTH: /* L1..L4, l1..l4 or 1..4 */
		a->opt.depth = xp_args_integer(state, arg + (toupper(*arg) == 'L'), 1, 4,
					       "L1, L2, L3 or L4");
		break;
	case OPT_GRADES:
		a->opt.grades = 0;
		xp_args_list(state, arg, grade, &a->opt.grades);
		break;
	case OPT_THRESHOLD:
		a->opt.threshold = xp_args_number(state, arg, 0, 0.999999,
						  "a share of turn time, in [0, 1)");
		break;
	default:
		return cmd_mode_path(&a->pos, key, arg, state);
	}
	return 0;
}

static int emit(const struct args *a, const struct xa_turn *t, const struct xa_session *s)
{
	int rc;

	if (a->pos.out)
		rc = xa_render_to_path(t, s, &a->opt, a->pos.out);
	else
		rc = t ? xa_render_turn(t, &a->opt, stdout) : xa_render_session(s, &a->opt, stdout);
	if (rc)
		fprintf(stderr, "xperf analyze: %s: %s\n", a->pos.out ? a->pos.out : "stdout",
			a->pos.out ? xp_out_strerror(rc) : "cannot write the report");
	return xp_out_exit(rc);
}

int cmd_analyze(int argc, char **argv)
{
	static const struct xp_args args = { "xperf analyze", options, parse_arg,
					     "turn FILE\nsession DIR", doc, 0, NULL };
	struct xa_session *s = NULL;
	struct xa_turn *t = NULL;
	struct args a = { .pos = { .modes = { "turn", "session" }, .path_of = { "FILE", "DIR" } } };
	struct xa_prices *prices;
	int rc;

	if (xp_args_parse(&args, argc, argv, &a))
		return XP_EXIT_USAGE;
	if (cmd_prices(a.pos.prices, &prices))
		return XP_EXIT_INVALID;
	a.opt.prices = prices;
	if (!strcmp(a.pos.mode, "turn"))
		rc = xa_analyze_turn_file(a.pos.path, &a.opt, &t, stderr);
	else
		rc = xa_analyze_session_dir(a.pos.path, &a.opt, &s, stderr);
	if (rc == XA_OK)
		rc = emit(&a, t, s);
	else if (rc == XA_EFAIL)
		fprintf(stderr, "xperf analyze: %s: analysis failed\n", a.pos.path);
	xa_turn_free(t);
	xa_session_free(s);
	xa_prices_free(prices);
	return rc;
}
