/* SPDX-License-Identifier: MIT */
/*
 * cmd_diff.c - `xperf diff A B [options]`: what moved between two sessions
 * (or two directories of sessions), per L1/L2/L3 point, with bootstrap
 * confidence intervals over turns (analyze/diff.h). Exit: 0 ok, 1 runtime
 * failure, 2 a side is missing or has no valid turn, 64 usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/diff.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "lib/atomic_file.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: xperf diff A B [options]\n"
		"A, B: a session directory (turn_*.json) or a directory of sessions.\n"
		"options:\n"
		"  --format text|json|html  report format (text by default)\n"
		"  --resamples N            bootstrap resamples (2000)\n"
		"  --seed N                 resampling seed (1): the same seed, the same report\n"
		"  --confidence C           interval confidence, in (0.5, 1) (0.95)\n"
		"  --min-ms X               a moved point changed by at least X ms per turn (1)\n"
		"  --min-rel R              ... and R of A's mean turn time, if more (0.02)\n"
		"  -o OUT                   write the report to OUT (mode 0600)\n");
}

static int number(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !(v >= lo && v <= hi))
		return -1;
	*out = v;
	return 0;
}

/* One option with its value; 0 ok, -1 invalid. */
static int option(struct xa_diff_options *o, const char *k, const char *v, const char **outp)
{
	double x;

	if (!strcmp(k, "--format"))
		return xa_parse_format(v, &o->format);
	if (!strcmp(k, "-o"))
		return *outp = v, 0;
	if (!strcmp(k, "--resamples") && !number(v, 100, 1e6, &x))
		return o->resamples = (unsigned)x, 0;
	if (!strcmp(k, "--seed") && !number(v, 0, 1.8e19, &x))
		return o->seed = strtoull(v, NULL, 10), 0;
	if (!strcmp(k, "--confidence") && !number(v, 0.5, 0.9999, &x))
		return o->confidence = x, 0;
	if (!strcmp(k, "--min-ms"))
		return number(v, 0, 1e9, &o->min_ms);
	if (!strcmp(k, "--min-rel"))
		return number(v, 0, 1, &o->min_rel);
	return -1;
}

int cmd_diff(int argc, char **argv)
{
	static const char *const names[] = { "--format", "--resamples", "--seed", "--confidence",
					     "--min-ms", "--min-rel", "-o", NULL };
	struct xa_diff_options o;
	const char *side[2] = { NULL, NULL }, *outp = NULL;
	struct xa_diff *d = NULL;
	unsigned seen = 0;
	int n = 0, rc;

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return XP_EXIT_OK;
	}
	xa_diff_options_default(&o);
	for (int i = 1; i < argc; i++) {
		if (cmd_arg_repeated("diff", names, argv[i], &seen)) {
			usage(stderr);
			return XP_EXIT_USAGE;
		}
		if (argv[i][0] == '-' && (i + 1 == argc || option(&o, argv[i], argv[i + 1], &outp))) {
			fprintf(stderr, "xperf diff: invalid argument '%s%s%s'\n", argv[i],
				i + 1 < argc ? " " : "", i + 1 < argc ? argv[i + 1] : "");
			usage(stderr);
			return XP_EXIT_USAGE;
		}
		if (argv[i][0] == '-')
			i++;
		else if (n < 2)
			side[n++] = argv[i];
		else
			n++;
	}
	if (n != 2) {
		fprintf(stderr, "xperf diff: expected two paths, A and B\n");
		usage(stderr);
		return XP_EXIT_USAGE;
	}
	rc = xa_diff_run(side[0], side[1], &o, &d, stderr);
	if (rc)
		return rc;
	if (outp) {
		char *buf = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&buf, &len);

		rc = !mem || xa_diff_render(d, mem) | fclose(mem) ? -ENOMEM
								   : xp_write_file_atomic(outp, buf, len);
		free(buf);
	} else {
		rc = xa_diff_render(d, stdout) ? -EIO : 0;
	}
	if (rc)
		fprintf(stderr, "xperf diff: %s: %s\n", outp ? outp : "stdout",
			outp ? xp_out_strerror(rc) : "cannot write the report");
	xa_diff_free(d);
	return xp_out_exit(rc);
}
