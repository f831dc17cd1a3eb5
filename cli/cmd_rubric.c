/* SPDX-License-Identifier: MIT */
/*
 * cmd_rubric.c - `xperf rubric`: parse and check the options, then run the
 * rubric pipeline (rubric/pipeline.h).
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "lib/args.h"
#include "rubric/cmdline.h"
#include "rubric/env.h"
#include "rubric/pipeline.h"

static const char doc[] =
	"Score a program on seven performance dimensions (docs/rubric.md): give --target or "
	"--binary, and --out-dir.\v"
	"Exit status: 0 ok, 1 a run or stage failed, 2 invalid input, 64 usage error.";

enum { OPT_TARGET = 256, OPT_BINARY, OPT_SIZES, OPT_TIER, OPT_MAX_CV, OPT_OUT_DIR, OPT_ROOT,
       OPT_BASELINE, OPT_LEDGER, OPT_FINDINGS, OPT_EXPECTED, OPT_REPS, OPT_VALGRIND_SIZE,
       OPT_SOURCE_PREFIX, OPT_TIMEOUT, OPT_ATTACH, OPT_ATTACH_WAIT };

static const struct argp_option options[] = {
	{ "target", OPT_TARGET, "\"CMD {SIZE}\"", 0,
	  "command template, split like a shell word list; {SIZE} replaced by the size", 0 },
	{ "binary", OPT_BINARY, "PATH", 0, "an executable; the size is appended as argv[1]", 0 },
	{ "out-dir", OPT_OUT_DIR, "DIR", 0, "where the reports go (required)", 0 },
	{ "sizes", OPT_SIZES, "A,B,C", 0,
	  "up to 16 positive integers; two or more give the scaling fit", 0 },
	{ "tier", OPT_TIER, "fast|medium|deep|asm", 0, "the stages run (medium)", 0 },
	{ "max-cv", OPT_MAX_CV, "PCT", 0, "noise gate, in percent (5.0)", 0 },
	{ "expected-complexity", OPT_EXPECTED, "linear|nlogn|quadratic", 0,
	  "thresholds of the complexity exponent (nlogn)", 0 },
	{ "reps", OPT_REPS, "N", 0, "measured runs per size, after one warm-up (5; 2..50)", 0 },
	{ "valgrind-size", OPT_VALGRIND_SIZE, "N", 0,
	  "size of the Valgrind runs (smallest --sizes value, else 10000)", 0 },
	{ "source-prefix", OPT_SOURCE_PREFIX, "PATH", 0,
	  "keep the cachegrind rows of source files starting with PATH", 0 },
	{ "timeout", OPT_TIMEOUT, "S", 0, "seconds per run, 0 for none (1800)", 0 },
	{ "root", OPT_ROOT, "DIR", 0, "directory the target runs in (.)", 0 },
	{ "baseline", OPT_BASELINE, "SUMMARY.json", 0, "an earlier benchmark_summary.json", 0 },
	{ "baseline-ledger", OPT_LEDGER, "LEDGER.jsonl", 0,
	  "JSONL history: compared against, then appended to", 0 },
	{ "findings-out", OPT_FINDINGS, "FINDINGS.json", 0, "PERF findings file", 0 },
	{ "attach", OPT_ATTACH, "\"CMD {PID} [{SIZE}] [{RUN}]\"", 0,
	  "a command started on each scored run's child, held before execve", 0 },
	{ "attach-wait", OPT_ATTACH_WAIT, "MS", 0,
	  "release the child after MS ms (1..600000) instead of detecting readiness", 0 },
	{ 0 },
};

/* Options that only store their argument. */
static const struct {
	int key;
	size_t off;
} path_opts[] = {
	{ OPT_TARGET, offsetof(struct rb_opts, target) },
	{ OPT_BINARY, offsetof(struct rb_opts, binary) },
	{ OPT_OUT_DIR, offsetof(struct rb_opts, out_dir) },
	{ OPT_ROOT, offsetof(struct rb_opts, root) },
	{ OPT_BASELINE, offsetof(struct rb_opts, baseline) },
	{ OPT_LEDGER, offsetof(struct rb_opts, ledger) },
	{ OPT_FINDINGS, offsetof(struct rb_opts, findings_out) },
	{ OPT_SOURCE_PREFIX, offsetof(struct rb_opts, source_prefix) },
	{ OPT_ATTACH, offsetof(struct rb_opts, attach) },
};

/* Cross-option rules: usage errors, before any input is looked at. */
static void check_usage(const struct argp_state *state, const struct rb_opts *o)
{
	const struct rb_cmd_var pid = { "{PID}", 1 };
	struct rb_cmd cmd;
	char err[XP_RB_WHY];

	if ((o->target != NULL) == (o->binary != NULL))
		xp_args_fail(state, "give exactly one of --target and --binary");
	if (!o->out_dir)
		xp_args_fail(state, "--out-dir is required");
	if (o->target && o->nsizes && !strstr(o->target, "{SIZE}"))
		xp_args_fail(state, "--target '%s' must contain {SIZE} when --sizes is given",
			     o->target);
	if (o->target && !o->nsizes && strstr(o->target, "{SIZE}"))
		xp_args_fail(state, "--target '%s' uses {SIZE} but no --sizes were given", o->target);
	if (!o->attach && o->attach_wait_s > 0)
		xp_args_fail(state, "--attach-wait needs --attach");
	if (o->attach && !strstr(o->attach, "{PID}"))
		xp_args_fail(state, "--attach '%s' must contain {PID}", o->attach);
	if (o->attach && rb_cmd_expand(o->attach, &pid, 1, &cmd, err, sizeof(err)))
		xp_args_fail(state, "--attach: %s", err);
}

/* One of --sizes' values ("1,,2" has an empty one: refused). */
static void size_item(const struct argp_state *state, const char *item, void *ctx)
{
	static const char why[] = "positive integers, comma-separated, at most 16";
	struct rb_opts *o = ctx;

	if (o->nsizes == XP_RB_MAX_SIZES)
		xp_args_invalid(state, why);
	o->sizes[o->nsizes++] = xp_args_integer(state, item, 1, LONG_MAX / 2, why);
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	struct rb_opts *o = state->input;

	for (size_t k = 0; k < sizeof(path_opts) / sizeof(path_opts[0]); k++) {
		if (path_opts[k].key == key) {
			*(const char **)((char *)o + path_opts[k].off) = arg;
			return 0;
		}
	}
	switch (key) {
	case OPT_SIZES:
		xp_args_list(state, arg, size_item, o);
		break;
	case OPT_TIER:
		o->tier = (enum rb_tier)xp_args_choice(state, arg, rb_tier_names, 4);
		break;
	case OPT_EXPECTED:
		o->expected = (enum rb_cx)xp_args_choice(state, arg, rb_cx_names, XP_CX_COUNT);
		break;
	case OPT_MAX_CV:
		o->max_cv = xp_args_number(state, arg, 1e-9, 999.999, "a percentage above 0");
		break;
	case OPT_TIMEOUT:
		o->timeout_s = xp_args_number(state, arg, 0, 1e9, "seconds, 0 for none");
		break;
	case OPT_REPS:
		o->reps = xp_args_integer(state, arg, 2, XP_RB_MAX_REPS, "2 to 50");
		break;
	case OPT_ATTACH_WAIT:
		o->attach_wait_s = xp_args_integer(state, arg, 1, 600000, "milliseconds, 1 to 600000")
				   / 1000.0;
		break;
	case OPT_VALGRIND_SIZE:
		o->valgrind_size = xp_args_integer(state, arg, 1, LONG_MAX / 2, "a positive integer");
		break;
	case ARGP_KEY_END:
		check_usage(state, o);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
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

/* --attach's tool is executable (as --binary's); its words split in check_usage(). */
static int check_attach(const struct rb_opts *o)
{
	const struct rb_cmd_var pid = { "{PID}", 1 };
	struct rb_cmd cmd;
	char err[XP_RB_WHY];

	if (!o->attach || rb_cmd_expand(o->attach, &pid, 1, &cmd, err, sizeof(err)) ||
	    (strchr(cmd.argv[0], '/') ? !access(cmd.argv[0], X_OK) : rb_on_path(cmd.argv[0])))
		return XP_EXIT_OK;
	fprintf(stderr, "xperf rubric: --attach %s: not an executable (or not on PATH)\n",
		cmd.argv[0]);
	return XP_EXIT_INVALID;
}

/* The checks of outside input, after the options' own (usage errors come first). */
static int check(struct rb_opts *o, char *root_buf)
{
	if ((o->binary && check_binary(o)) || check_attach(o))
		return XP_EXIT_INVALID;
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
	static const struct xp_args args = { "xperf rubric", options, parse_arg, NULL, doc, 0,
					     NULL };
	static char root[PATH_MAX];
	struct rb_opts o = {
		.tier = XP_RB_MEDIUM, .expected = XP_CX_NLOGN, .max_cv = 5.0, .reps = 5,
		.timeout_s = 1800
	};

	if (xp_args_parse(&args, argc, argv, &o))
		return XP_EXIT_USAGE;
	return check(&o, root) ? XP_EXIT_INVALID : rb_pipeline(&o);
}
