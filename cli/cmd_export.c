/* SPDX-License-Identifier: MIT */
/*
 * cmd_export.c - `xperf export --format chrome|otlp [-o FILE] PATH...`:
 * turns to a Chrome trace or OTLP/JSON spans (export/export.h does the work).
 * The output goes to stdout, or with -o to a file written atomically with
 * mode 0600, and only when every input is valid (it is streamed to a temp file). Exit: 0 ok, 1 runtime
 * failure, 2 invalid input (the first error, "path:line:col: ..."), 64 usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "export/export.h"
#include "lib/atomic_file.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: xperf export --format chrome|otlp [options] PATH...\n"
		"PATH: a turn file or a session directory (its turn_NNN.json in order).\n"
		"  --format chrome          Chrome trace JSON (Perfetto UI, chrome://tracing)\n"
		"  --format otlp            OTLP/JSON spans, for a collector's /v1/traces\n"
		"  -o FILE                  write to FILE (mode 0600) instead of stdout\n"
		"  --clock-offset-ns N      Unix-epoch ns = CLOCK_MONOTONIC ns + N for every\n"
		"                           file (default: each file's clock_anchor; for\n"
		"                           files without one, this boot's offset)\n");
}

struct args {
	int have_format, first_path;
	const char *out;
	struct xe_options opt;
};

static int parse_offset(const char *s, int64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoll(s, &end, 10);
	return errno || end == s || *end ? -1 : 0;
}

/* 0 ok, -1 usage error (already reported). */
static int parse(int argc, char **argv, struct args *a)
{
	static const char *const names[] = { "--format", "-o", "--clock-offset-ns", NULL };
	unsigned seen = 0;
	int i = 1;

	a->opt.clock_offset_ns = xe_clock_offset_now();
	while (i < argc && argv[i][0] == '-') {
		const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int bad = !v;

		if (!strcmp(k, "--")) {
			i++;
			break;
		}
		if (cmd_arg_repeated("export", names, k, &seen))
			return -1;
		if (!bad && !strcmp(k, "--format"))
			bad = xe_parse_format(v, &a->opt.format), a->have_format = 1;
		else if (!bad && !strcmp(k, "-o"))
			a->out = v;
		else if (!bad && !strcmp(k, "--clock-offset-ns"))
			bad = parse_offset(v, &a->opt.clock_offset_ns),
			a->opt.clock_offset_forced = 1;
		else
			bad = 1, v = NULL;
		if (bad) {
			fprintf(stderr, "xperf export: invalid argument '%s%s%s'\n", k, v ? " " : "",
				v ? v : "");
			return -1;
		}
		i += 2;
	}
	if (!a->have_format || i >= argc) {
		fprintf(stderr, "xperf export: %s\n",
			a->have_format ? "no PATH given" : "--format chrome|otlp is required");
		return -1;
	}
	a->first_path = i;
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
	struct args a = { 0 };

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return XP_EXIT_OK;
	}
	if (parse(argc, argv, &a)) {
		usage(stderr);
		return XP_EXIT_USAGE;
	}
	return export_all(&a, argc, argv);
}
