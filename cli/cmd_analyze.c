/* SPDX-License-Identifier: MIT */
/*
 * cmd_analyze.c - `xperf analyze turn FILE | session DIR [options]`: the
 * Top-down report of one turn or of a session (analyze/analyze.h does the
 * work). The report goes to stdout, or with -o to a file written atomically
 * with mode 0600. Exit: 0 ok, 1 runtime failure, 2 invalid input (turn mode:
 * an invalid file; session mode: no valid turn), 64 usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "lib/atomic_file.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: xperf analyze turn FILE [options]\n"
		"       xperf analyze session DIR [options]\n"
		"options:\n"
		"  --format json|text|html  report format (json by default)\n"
		"  --depth L1|L2|L3|L4      deepest drill-down level (L3 by default)\n"
		"  --measurability A,B,C    grades of L3 points kept; filtered points'\n"
		"                           time folds into Processing (A,B,C by default)\n"
		"  --threshold 0.2          drill into nodes above this share of turn time\n"
		"  --prices FILE            price table (analyze/README.md; the shipped one\n"
		"                           by default)\n"
		"  -o OUT                   write the report to OUT (mode 0600)\n");
}

struct args {
	const char *mode, *path, *out, *prices;
	struct xa_options opt;
};

/* 0 ok, -1 usage error (already reported). */
static int parse(int argc, char **argv, struct args *a)
{
	static const char *const names[] = { "--format", "--depth", "--measurability",
					     "--threshold", "-o", "--prices", NULL };
	unsigned seen = 0;

	xa_options_default(&a->opt);
	for (int i = 1; i < argc; i++) {
		const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int bad = 0;

		if (cmd_arg_repeated("analyze", names, k, &seen))
			return -1;
		if (!strcmp(k, "--format") && v)
			bad = xa_parse_format(v, &a->opt.format);
		else if (!strcmp(k, "--depth") && v)
			bad = xa_parse_depth(v, &a->opt.depth);
		else if (!strcmp(k, "--measurability") && v)
			bad = xa_parse_grades(v, &a->opt.grades);
		else if (!strcmp(k, "--threshold") && v)
			bad = xa_parse_threshold(v, &a->opt.threshold);
		else if (!strcmp(k, "-o") && v)
			a->out = v;
		else if (!strcmp(k, "--prices") && v)
			a->prices = v;
		else if (k[0] == '-' || (a->mode && a->path))
			bad = -1, v = NULL;
		else if (!a->mode)
			a->mode = k, v = NULL;
		else
			a->path = k, v = NULL;
		if (bad) {
			fprintf(stderr, "xperf analyze: invalid argument '%s%s%s'\n", k,
				v ? " " : "", v ? v : "");
			return -1;
		}
		i += v != NULL;
	}
	if (!a->mode || !a->path || (strcmp(a->mode, "turn") && strcmp(a->mode, "session"))) {
		fprintf(stderr, "xperf analyze: expected 'turn FILE' or 'session DIR'\n");
		return -1;
	}
	return 0;
}

static int emit(const struct args *a, const struct xa_turn *t, const struct xa_session *s)
{
	int rc;

	if (a->out)
		rc = xa_render_to_path(t, s, &a->opt, a->out);
	else
		rc = t ? xa_render_turn(t, &a->opt, stdout) : xa_render_session(s, &a->opt, stdout);
	if (rc)
		fprintf(stderr, "xperf analyze: %s: %s\n", a->out ? a->out : "stdout",
			a->out ? xp_out_strerror(rc) : "cannot write the report");
	return xp_out_exit(rc);
}

int cmd_analyze(int argc, char **argv)
{
	struct xa_session *s = NULL;
	struct xa_turn *t = NULL;
	struct args a = { 0 };
	struct xa_prices *prices = NULL;
	int rc;

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return XP_EXIT_OK;
	}
	if (parse(argc, argv, &a)) {
		usage(stderr);
		return XP_EXIT_USAGE;
	}
	if (a.prices && xa_prices_load(a.prices, &prices, stderr))
		return XP_EXIT_INVALID;
	a.opt.prices = prices;
	if (!strcmp(a.mode, "turn"))
		rc = xa_analyze_turn_file(a.path, &a.opt, &t, stderr);
	else
		rc = xa_analyze_session_dir(a.path, &a.opt, &s, stderr);
	if (rc == XA_OK)
		rc = emit(&a, t, s);
	else if (rc == XA_EFAIL)
		fprintf(stderr, "xperf analyze: %s: analysis failed\n", a.path);
	xa_turn_free(t);
	xa_session_free(s);
	xa_prices_free(prices);
	return rc;
}
