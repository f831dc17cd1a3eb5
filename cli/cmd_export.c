/* SPDX-License-Identifier: MIT */
/*
 * cmd_export.c - `xperf export`: turns to a Chrome trace or OTLP/JSON spans
 * (export/export.h), streamed to a temp file so that nothing is written
 * unless every input is valid.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "export/export.h"
#include "lib/atomic_file.h"

static const char doc[] =
	"Turns as a Chrome trace or OTLP/JSON spans. PATH: a turn file or a session directory "
	"(its turn_NNN.json in order). The output goes to stdout, or with -o to OUT, and only "
	"when every input is valid.\v"
	"Exit status: 0 ok, 1 runtime failure, 2 invalid input (the first error, "
	"\"path:line:col: ...\"), 64 usage error.";

enum { OPT_FORMAT = 256, OPT_CLOCK_OFFSET };

static const struct argp_option options[] = {
	{ "format", OPT_FORMAT, "chrome|otlp", 0,
	  "chrome: Chrome trace JSON (Perfetto UI, chrome://tracing); otlp: OTLP/JSON spans, for "
	  "a collector's /v1/traces", 0 },
	CMD_OPTION_OUTPUT("the output"),
	{ "clock-offset-ns", OPT_CLOCK_OFFSET, "N", 0,
	  "Unix-epoch ns = CLOCK_MONOTONIC ns + N for every file (default: each file's "
	  "clock_anchor; for files without one, this boot's offset)", 0 },
	{ 0 },
};

struct args {
	int have_format, first_path;
	const char *out;
	struct xe_options opt;
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		a->opt.clock_offset_ns = xe_clock_offset_now();
		break;
	case OPT_FORMAT:
		if (xe_parse_format(arg, &a->opt.format))
			xp_args_invalid(state, "chrome or otlp");
		a->have_format = 1;
		break;
	case 'o':
		a->out = arg;
		break;
	case OPT_CLOCK_OFFSET:
		a->opt.clock_offset_ns = xp_args_integer(state, arg, INT64_MIN, INT64_MAX,
							 "nanoseconds, an integer");
		a->opt.clock_offset_forced = 1;
		break;
	case ARGP_KEY_ARG:
		a->first_path = state->next - 1;
		state->next = state->argc;
		break;
	case ARGP_KEY_END:
		if (!a->have_format)
			xp_args_fail(state, "--format chrome|otlp is required");
		if (!a->first_path)
			xp_args_fail(state, "no PATH given");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* Copy f from its start to stdout. 0 or -errno. */
static int copy_out(FILE *f)
{
	char buf[1 << 16];
	size_t n;

	if (fflush(f) || ferror(f)) /* before rewind, which clears the error */
		return -EIO;
	rewind(f);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		if (fwrite(buf, 1, n, stdout) != n)
			return -EIO;
	return ferror(f) || fflush(stdout) ? -EIO : 0;
}

/*
 * The output is streamed into a temp file (-o: next to FILE, renamed over it;
 * stdout: an unlinked tmpfile, copied out), so that memory does not grow with
 * it and nothing is written unless every input is valid.
 */
static int export_all(const struct args *a, int argc, char **argv)
{
	struct xp_atomic at;
	FILE *f = NULL;
	int rc, wr;

	wr = a->out ? xp_atomic_open(&at, a->out) : (f = tmpfile()) ? 0 : -errno;
	if (wr) {
		fprintf(stderr, "xperf export: %s: %s\n", a->out ? a->out : "a temporary file",
			xp_out_strerror(wr));
		return a->out ? xp_out_exit(wr) : XP_EXIT_FAIL;
	}
	rc = xe_export(argv + a->first_path, argc - a->first_path, &a->opt, a->out ? at.f : f,
		       stderr);
	if (a->out)
		wr = xp_atomic_close(&at, rc == XP_EXIT_OK);
	else {
		wr = rc == XP_EXIT_OK ? copy_out(f) : 0;
		fclose(f);
	}
	if (wr) {
		fprintf(stderr, "xperf export: cannot write %s: %s\n", a->out ? a->out : "stdout",
			xp_out_strerror(wr));
		rc = xp_out_exit(wr);
	}
	return rc;
}

int cmd_export(int argc, char **argv)
{
	static const struct xp_args args = { "xperf export", options, parse_arg, "PATH...", doc,
					     0, NULL };
	struct args a = { 0 };

	if (xp_args_parse(&args, argc, argv, &a))
		return XP_EXIT_USAGE;
	return export_all(&a, argc, argv);
}
