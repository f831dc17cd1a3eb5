/* SPDX-License-Identifier: MIT */
/*
 * cmd_rubric.c - `xperf rubric`: parse and check the options, then run the
 * rubric pipeline (rubric/pipeline.h). Usage mistakes exit 64, input that
 * cannot be used (a missing --binary, an unreadable --baseline) exits 2.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "rubric/cmdline.h"
#include "rubric/env.h"
#include "rubric/pipeline.h"

static void usage(FILE *out)
{
	fprintf(out, "usage: xperf rubric (--target \"CMD {SIZE}\" | --binary PATH) --out-dir DIR\n"
		     "         [--sizes A,B,C] [--tier fast|medium|deep|asm] [--max-cv PCT]\n"
		     "         [--expected-complexity linear|nlogn|quadratic] [--reps N]\n"
		     "         [--valgrind-size N] [--source-prefix PATH] [--timeout S]\n"
		     "         [--root DIR] [--baseline SUMMARY.json]\n"
		     "         [--baseline-ledger LEDGER.jsonl] [--findings-out FINDINGS.json]\n"
		     "         [--attach \"CMD {PID} [{SIZE}] [{RUN}]\" [--attach-wait MS]]\n"
		     "Score a program on seven performance dimensions (docs/rubric.md).\n"
		     "Exit: 0 ok, 1 a run or stage failed, 2 invalid input, 64 usage.\n");
}

static int bad(const char *fmt, const char *arg)
{
	fprintf(stderr, "xperf rubric: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	return XP_EXIT_USAGE;
}

/* Whole-string decimal long in [lo, hi]. */
static int parse_long(const char *s, long lo, long hi, long *out)
{
	char *end;

	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static int parse_sizes(const char *s, struct rb_opts *o)
{
	char buf[1024], *rest = buf, *t;

	if (snprintf(buf, sizeof(buf), "%s", s) >= (int)sizeof(buf))
		return -1;
	o->nsizes = 0;
	/* strsep, not strtok: "1,,2" and "1,2," have an empty item, refused */
	while ((t = strsep(&rest, ",")))
		if (o->nsizes == XP_RB_MAX_SIZES ||
		    parse_long(t, 1, LONG_MAX / 2, &o->sizes[o->nsizes++]))
			return -1;
	return 0;
}

static int pick(const char *s, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

static const struct option longopts[] = {
	{ "target", required_argument, NULL, 't' },
	{ "binary", required_argument, NULL, 'b' },
	{ "sizes", required_argument, NULL, 's' },
	{ "tier", required_argument, NULL, 'T' },
	{ "max-cv", required_argument, NULL, 'c' },
	{ "out-dir", required_argument, NULL, 'o' },
	{ "root", required_argument, NULL, 'r' },
	{ "baseline", required_argument, NULL, 'B' },
	{ "baseline-ledger", required_argument, NULL, 'L' },
	{ "findings-out", required_argument, NULL, 'F' },
	{ "expected-complexity", required_argument, NULL, 'x' },
	{ "reps", required_argument, NULL, 'n' },
	{ "valgrind-size", required_argument, NULL, 'v' },
	{ "source-prefix", required_argument, NULL, 'p' },
	{ "timeout", required_argument, NULL, 'm' },
	{ "attach", required_argument, NULL, 'a' },
	{ "attach-wait", required_argument, NULL, 'w' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const char *long_name(int c)
{
	const struct option *p = longopts;

	while (p->name && p->val != c)
		p++;
	return p->name ? p->name : "?";
}

/* Options that only store their argument. */
static const struct {
	int c;
	size_t off;
} path_opts[] = {
	{ 't', offsetof(struct rb_opts, target) },
	{ 'b', offsetof(struct rb_opts, binary) },
	{ 'o', offsetof(struct rb_opts, out_dir) },
	{ 'r', offsetof(struct rb_opts, root) },
	{ 'B', offsetof(struct rb_opts, baseline) },
	{ 'L', offsetof(struct rb_opts, ledger) },
	{ 'F', offsetof(struct rb_opts, findings_out) },
	{ 'p', offsetof(struct rb_opts, source_prefix) },
	{ 'a', offsetof(struct rb_opts, attach) },
};

/* One option into o; XP_EXIT_OK or the exit code of the mistake. */
static int apply(int c, const char *arg, struct rb_opts *o)
{
	long v;
	char *end;
	int i;

	for (size_t k = 0; k < sizeof(path_opts) / sizeof(path_opts[0]); k++) {
		if (path_opts[k].c == c) {
			*(const char **)((char *)o + path_opts[k].off) = arg;
			return 0;
		}
	}
	switch (c) {
	case 's':
		if (parse_sizes(arg, o))
			return bad("invalid --sizes '%s': positive integers, comma-separated, "
				   "at most 16", arg);
		return 0;
	case 'T':
		if ((i = pick(arg, rb_tier_names, 4)) < 0)
			return bad("invalid --tier '%s': fast, medium, deep or asm", arg);
		o->tier = (enum rb_tier)i;
		return 0;
	case 'x':
		if ((i = pick(arg, rb_cx_names, XP_CX_COUNT)) < 0)
			return bad("invalid --expected-complexity '%s': linear, nlogn or quadratic",
				   arg);
		o->expected = (enum rb_cx)i;
		return 0;
	case 'c':
		o->max_cv = strtod(arg, &end);
		return *arg && !*end && o->max_cv > 0 && o->max_cv < 1000
			       ? 0
			       : bad("invalid --max-cv '%s': a percentage above 0", arg);
	case 'm':
		o->timeout_s = strtod(arg, &end);
		return *arg && !*end && o->timeout_s >= 0
			       ? 0
			       : bad("invalid --timeout '%s': seconds, 0 for none", arg);
	case 'n':
		if (parse_long(arg, 2, XP_RB_MAX_REPS, &v))
			return bad("invalid --reps '%s': 2 to 50", arg);
		o->reps = (int)v;
		return 0;
	case 'w':
		if (parse_long(arg, 1, 600000, &v))
			return bad("invalid --attach-wait '%s': milliseconds, 1 to 600000", arg);
		o->attach_wait_s = (double)v / 1000;
		return 0;
	case 'v':
		return parse_long(arg, 1, LONG_MAX / 2, &o->valgrind_size)
			       ? bad("invalid --valgrind-size '%s': a positive integer", arg)
			       : 0;
	default:
		return bad("unknown option or missing value in '%s' (see --help)", arg);
	}
}

/* --binary must be executable; a path is made absolute since runs chdir to --root. */
static int check_binary(struct rb_opts *o)
{
	static char abs[PATH_MAX];

	if (!strchr(o->binary, '/')) {
		if (rb_on_path(o->binary))
			return 0;
		fprintf(stderr, "xperf rubric: --binary %s: not found on PATH\n", o->binary);
		return -1;
	}
	if (access(o->binary, X_OK) || !realpath(o->binary, abs)) {
		fprintf(stderr, "xperf rubric: --binary %s: %s\n", o->binary, strerror(errno));
		return -1;
	}
	o->binary = abs;
	return 0;
}

/* --attach: {PID} present, the words split, the tool executable (as --binary's). */
static int check_attach(const struct rb_opts *o)
{
	const struct rb_cmd_var pid = { "{PID}", 1 };
	struct rb_cmd cmd;
	char err[XP_RB_WHY];

	if (!o->attach)
		return o->attach_wait_s > 0 ? bad("%s", "--attach-wait needs --attach") : XP_EXIT_OK;
	if (!strstr(o->attach, "{PID}"))
		return bad("--attach '%s' must contain {PID}", o->attach);
	if (rb_cmd_expand(o->attach, &pid, 1, &cmd, err, sizeof(err)))
		return bad("--attach: %s", err);
	if (strchr(cmd.argv[0], '/') ? access(cmd.argv[0], X_OK) == 0 : rb_on_path(cmd.argv[0]))
		return XP_EXIT_OK;
	fprintf(stderr, "xperf rubric: --attach %s: not an executable (or not on PATH)\n",
		cmd.argv[0]);
	return XP_EXIT_INVALID;
}

/* Cross-option rules and the checks of outside input. */
static int check(struct rb_opts *o, char *root_buf)
{
	if ((o->target != NULL) == (o->binary != NULL))
		return bad("%s", "give exactly one of --target and --binary");
	if (!o->out_dir)
		return bad("%s", "--out-dir is required");
	if (o->target && o->nsizes && !strstr(o->target, "{SIZE}"))
		return bad("--target '%s' must contain {SIZE} when --sizes is given", o->target);
	if (o->target && !o->nsizes && strstr(o->target, "{SIZE}"))
		return bad("--target '%s' uses {SIZE} but no --sizes were given", o->target);
	if (o->binary && check_binary(o))
		return XP_EXIT_INVALID;
	int rc = check_attach(o);
	if (rc != XP_EXIT_OK)
		return rc;
	if (!realpath(o->root ? o->root : ".", root_buf)) {
		fprintf(stderr, "xperf rubric: --root %s: %s\n", o->root ? o->root : ".",
			strerror(errno));
		return XP_EXIT_INVALID;
	}
	o->root = root_buf;
	if (!o->valgrind_size) {
		o->valgrind_size = o->nsizes ? o->sizes[0] : 10000;
		for (int i = 1; i < o->nsizes; i++)
			if (o->sizes[i] < o->valgrind_size)
				o->valgrind_size = o->sizes[i];
	}
	return XP_EXIT_OK;
}

int cmd_rubric(int argc, char **argv)
{
	static char root[PATH_MAX];
	struct rb_opts o = {
		.tier = XP_RB_MEDIUM, .expected = XP_CX_NLOGN, .max_cv = 5.0, .reps = 5,
		.timeout_s = 1800
	};
	unsigned char seen[128] = { 0 };
	int c, rc;

	optind = 1;
	opterr = 0; /* one line of our own instead of getopt's message and the usage */
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return XP_EXIT_OK;
		}
		const char *arg = c == '?' || c == ':' ? argv[optind - 1] : optarg;
		if (c > 0 && c < 128 && c != '?' && c != ':' && seen[c]++)
			return bad("--%s given twice", long_name(c));
		if ((rc = apply(c, arg, &o)) != XP_EXIT_OK)
			return rc;
	}
	if (optind < argc)
		return bad("unexpected argument '%s'", argv[optind]);
	if ((rc = check(&o, root)) != XP_EXIT_OK)
		return rc;
	return rb_pipeline(&o);
}
