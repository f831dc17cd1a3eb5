/* SPDX-License-Identifier: MIT */
/* cmd_diff.c - `xperf diff A B`: what moved between two sessions (analyze/diff.h). */
#include <stdio.h>
#include <stdlib.h>

#include "analyze/diff.h"
#include "cli/args.h"
#include "cli/commands.h"

static const char doc[] =
	"What moved between two sessions, per L1/L2/L3 point, with bootstrap confidence "
	"intervals over turns. A, B: a session directory (turn_*.json) or a directory of "
	"sessions.\v"
	"Exit status: 0 ok, 1 runtime failure, 2 a side is missing or has no valid turn, "
	"64 usage error.";

enum { OPT_FORMAT = 256, OPT_RESAMPLES, OPT_SEED, OPT_CONFIDENCE, OPT_MIN_MS, OPT_MIN_REL };

static const struct argp_option options[] = {
	{ "format", OPT_FORMAT, "text|json|html", 0, "report format (text by default)", 0 },
	{ "resamples", OPT_RESAMPLES, "N", 0, "bootstrap resamples (2000)", 0 },
	{ "seed", OPT_SEED, "N", 0, "resampling seed (1): the same seed, the same report", 0 },
	{ "confidence", OPT_CONFIDENCE, "C", 0, "interval confidence, in (0.5, 1) (0.95)", 0 },
	{ "min-ms", OPT_MIN_MS, "X", 0, "a moved point changed by at least X ms per turn (1)", 0 },
	{ "min-rel", OPT_MIN_REL, "R", 0, "... and R of A's mean turn time, if more (0.02)", 0 },
	CMD_OPTION_OUTPUT("the report"),
	{ 0 },
};

struct args {
	struct xa_diff_options o;
	const char *side[2], *out;
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		xa_diff_options_default(&a->o);
		break;
	case OPT_FORMAT:
		a->o.format = (enum xa_format)xp_args_choice(state, arg, xa_format_names, 3);
		break;
	case OPT_RESAMPLES:
		a->o.resamples = xp_args_integer(state, arg, 100, 1000000, "100..1000000");
		break;
	case OPT_SEED: /* up to 2^64 - 1: past what xp_args_integer reads */
		xp_args_number(state, arg, 0, 1.8e19, "an integer, 0..1.8e19");
		a->o.seed = strtoull(arg, NULL, 10);
		break;
	case OPT_CONFIDENCE:
		a->o.confidence = xp_args_number(state, arg, 0.5, 0.9999, "in (0.5, 1)");
		break;
	case OPT_MIN_MS:
		a->o.min_ms = xp_args_number(state, arg, 0, 1e9, "milliseconds, 0..1e9");
		break;
	case OPT_MIN_REL:
		a->o.min_rel = xp_args_number(state, arg, 0, 1, "a share, 0..1");
		break;
	case 'o':
		a->out = arg;
		break;
	case ARGP_KEY_ARG:
		if (state->arg_num > 1)
			return ARGP_ERR_UNKNOWN;
		a->side[state->arg_num] = arg;
		break;
	case ARGP_KEY_END:
		if (!a->side[1])
			xp_args_fail(state, "expected two paths, A and B");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static int render(const void *d, FILE *out)
{
	return xa_diff_render(d, out);
}

int cmd_diff(int argc, char **argv)
{
	static const struct xp_args args = { "xperf diff", options, parse_arg, "A B", doc, 0,
					     NULL };
	struct args a = { 0 };
	struct xa_diff *d = NULL;
	int rc;

	if (xp_args_parse(&args, argc, argv, &a))
		return XP_EXIT_USAGE;
	rc = xa_diff_run(a.side[0], a.side[1], &a.o, &d, stderr);
	if (rc)
		return rc;
	rc = cmd_report("diff", a.out, render, d);
	xa_diff_free(d);
	return rc;
}
