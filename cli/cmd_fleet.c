// SPDX-License-Identifier: MIT
/*
 * cmd_fleet.c - `xperf fleet report DIR [--format text|json|html] [-o OUT]`
 * and `xperf fleet serve DIR [--listen HOST:PORT] [--interval S]`
 * (fleet/fleet.h does the work). The report goes to stdout, or with -o to a
 * file written atomically with mode 0600. Exit (lib/exit_codes.h): 0 ok,
 * 1 runtime failure (write error, cannot listen), 2 invalid input (DIR
 * missing or not a directory, no valid session under DIR, -o refused),
 * 64 usage (unknown or repeated option).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "fleet/fleet.h"
#include "lib/atomic_file.h"

#define DEFAULT_LISTEN "127.0.0.1:9464"
#define DEFAULT_INTERVAL 30
#define DEFAULT_STATE ".xperf-fleet-state.json"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: xperf fleet report DIR [--format text|json|html] [--prices FILE] [-o OUT]\n"
		"       xperf fleet serve DIR [--listen HOST:PORT] [--interval S] [--state FILE]\n"
		"                             [--prices FILE]\n"
		"DIR holds NODE/SESSION/turn_*.json (or SESSION/turn_*.json: DIR is one node).\n"
		"report: bottleneck frequency, L1 shares, worst sessions, invalid files\n"
		"        (text by default; -o writes OUT atomically, mode 0600); tokens and\n"
		"        cost priced with --prices FILE (analyze/README.md) or the shipped table\n"
		"        (serve too: token and cost counters).\n"
		"serve:  Prometheus metrics at http://HOST:PORT/metrics, DIR rescanned every\n"
		"        S seconds (default " DEFAULT_LISTEN ", %d s); stops on SIGTERM.\n"
		"        Counters never go down: what deleted traces counted is kept in FILE\n"
		"        (default DIR/" DEFAULT_STATE "), read again at start.\n",
		DEFAULT_INTERVAL);
}

struct args {
	const char *mode, *dir, *out, *listen, *prices, *state;
	enum fleet_format format;
	unsigned interval;
};

static int set_format(struct args *a, const char *v)
{
	static const char *const names[] = { "text", "json", "html" };

	for (int i = 0; i < 3; i++)
		if (!strcmp(v, names[i]))
			return a->format = (enum fleet_format)i, 0;
	return -1;
}

static int set_interval(struct args *a, const char *v)
{
	char *end;
	long n = strtol(v, &end, 10);

	if (end == v || *end || n < 1 || n > 86400)
		return -1;
	a->interval = (unsigned)n;
	return 0;
}

static int set_out(struct args *a, const char *v)
{
	a->out = v;
	return 0;
}

static int set_prices(struct args *a, const char *v)
{
	a->prices = v;
	return 0;
}

static int set_listen(struct args *a, const char *v)
{
	a->listen = v;
	return 0;
}

static int set_state(struct args *a, const char *v)
{
	a->state = v;
	return 0;
}

/* The options, each taking one value. */
static const struct {
	const char *name;
	int (*set)(struct args *a, const char *v);
} options[] = {
	{ "--format", set_format },
	{ "--interval", set_interval },
	{ "--listen", set_listen },
	{ "--prices", set_prices },
	{ "--state", set_state },
	{ "-o", set_out },
};

/* 0 ok, -1 usage error (already reported). */
static int parse(int argc, char **argv, struct args *a)
{
	static const char *const names[] = { "--format", "--interval", "--listen", "-o", "--prices",
					     "--state", NULL };
	unsigned seen = 0;

	for (int i = 1; i < argc; i++) {
		size_t k = 0;

		while (k < sizeof(options) / sizeof(options[0]) && strcmp(argv[i], options[k].name))
			k++;
		if (k < sizeof(options) / sizeof(options[0])) {
			if (cmd_arg_repeated("fleet", names, argv[i], &seen))
				return -1;
			if (i + 1 == argc || options[k].set(a, argv[i + 1])) {
				fprintf(stderr, "xperf fleet: invalid value for %s\n", argv[i]);
				return -1;
			}
			i++;
		} else if (argv[i][0] == '-' || a->dir) {
			fprintf(stderr, "xperf fleet: unexpected argument '%s'\n", argv[i]);
			return -1;
		} else {
			*(a->mode ? &a->dir : &a->mode) = argv[i];
		}
	}
	if (!a->mode || !a->dir || (strcmp(a->mode, "report") && strcmp(a->mode, "serve"))) {
		fprintf(stderr, "xperf fleet: expected 'report DIR' or 'serve DIR'\n");
		return -1;
	}
	return 0;
}

static int render(struct fleet_agg *a, enum fleet_format f, FILE *out)
{
	switch (f) {
	case FLEET_JSON: return fleet_report_json(a, out);
	case FLEET_HTML: return fleet_report_html(a, out);
	default: return fleet_report_text(a, out);
	}
}

static int emit(struct fleet_agg *a, const struct args *args)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;
	int rc;

	if (!args->out)
		rc = render(a, args->format, stdout) ? -EIO : 0;
	else if (!(mem = open_memstream(&buf, &len)))
		rc = -ENOMEM;
	else if (render(a, args->format, mem) | fclose(mem))
		rc = -ENOMEM;
	else
		rc = xp_write_file_atomic(args->out, buf, len);
	free(buf);
	if (rc)
		fprintf(stderr, "xperf fleet: %s: %s\n", args->out ? args->out : "stdout",
			args->out ? xp_out_strerror(rc) : "cannot write the report");
	return xp_out_exit(rc);
}

static int report(const struct args *args)
{
	struct xa_prices *prices = NULL;
	struct fleet_agg a;
	int rc;

	if (args->prices && xa_prices_load(args->prices, &prices, stderr))
		return XP_EXIT_INVALID;
	if (fleet_agg_init(&a, args->dir) || (a.prices = prices, 0) ||
	    fleet_collect(args->dir, &a, stderr)) {
		fleet_agg_free(&a);
		xa_prices_free(prices);
		return XP_EXIT_FAIL;
	}
	if (!a.sessions) {
		fprintf(stderr,
			"xperf fleet: %s: no valid session (DIR/NODE/SESSION/turn_*.json)\n",
			args->dir);
		rc = XP_EXIT_INVALID;
	} else {
		rc = emit(&a, args);
	}
	if (a.invalid_files + a.failed_sessions)
		fprintf(stderr,
			"xperf fleet: %u invalid files, %u failed sessions (listed above)\n",
			a.invalid_files, a.failed_sessions);
	fleet_agg_free(&a);
	xa_prices_free(prices);
	return rc;
}

int cmd_fleet(int argc, char **argv)
{
	struct args a = { .listen = DEFAULT_LISTEN, .interval = DEFAULT_INTERVAL };

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return XP_EXIT_OK;
	}
	if (parse(argc, argv, &a)) {
		usage(stderr);
		return XP_EXIT_USAGE;
	}
	if (cmd_arg_dir("fleet", a.dir))
		return XP_EXIT_INVALID;
	if (!strcmp(a.mode, "serve")) {
		struct xa_prices *prices = NULL;
		char state[4096];
		int rc;

		if (a.prices && xa_prices_load(a.prices, &prices, stderr))
			return XP_EXIT_INVALID;
		snprintf(state, sizeof(state), "%s/%s", a.dir, DEFAULT_STATE);
		rc = fleet_serve(a.dir, a.listen, a.interval, a.state ? a.state : state, prices);
		xa_prices_free(prices);

		return rc == -2 ? XP_EXIT_USAGE : rc ? XP_EXIT_FAIL : XP_EXIT_OK;
	}
	return report(&a);
}
