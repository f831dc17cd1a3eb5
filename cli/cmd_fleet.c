// SPDX-License-Identifier: MIT
/* cmd_fleet.c - `xperf fleet report|serve DIR` (fleet/fleet.h does the work). */
#include <stdio.h>
#include <string.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "fleet/fleet.h"

#define DEFAULT_LISTEN "127.0.0.1:9464"
#define DEFAULT_INTERVAL 30
#define STR(x) #x
#define XSTR(x) STR(x)
#define DEFAULT_STATE ".xperf-fleet-state.json"

static const char doc[] =
	"DIR holds NODE/SESSION/turn_*.json (or SESSION/turn_*.json: DIR is one node).\n"
	"report: bottleneck frequency, L1 shares, worst sessions, invalid files (text by "
	"default; -o writes OUT); tokens and cost priced with --prices FILE or the shipped "
	"table (serve too: token and cost counters).\n"
	"serve: Prometheus metrics at http://HOST:PORT/metrics, DIR rescanned every S seconds; "
	"stops on SIGTERM. Counters never go down: what deleted traces counted is kept in "
	"FILE (default DIR/" DEFAULT_STATE "), read again at start.\v"
	"Exit status: 0 ok, 1 runtime failure (write error, cannot listen), 2 invalid input "
	"(DIR missing or not a directory, no valid session under DIR, -o refused), 64 usage "
	"error.";

enum { OPT_FORMAT = 256, OPT_INTERVAL, OPT_LISTEN, OPT_STATE };

static const struct argp_option options[] = {
	{ "format", OPT_FORMAT, "text|json|html", 0, "report: the format (text by default)", 0 },
	CMD_OPTION_OUTPUT("the report"),
	CMD_OPTION_PRICES,
	{ "listen", OPT_LISTEN, "HOST:PORT", 0, "serve: the address (" DEFAULT_LISTEN ")", 0 },
	{ "interval", OPT_INTERVAL, "S", 0, "serve: seconds between scans (" XSTR(DEFAULT_INTERVAL) ")", 0 },
	{ "state", OPT_STATE, "FILE", 0, "serve: the counters' state file", 0 },
	{ 0 },
};

struct args {
	struct cmd_mode_path pos;
	const char *listen, *state;
	enum fleet_format format;
	unsigned interval;
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	static const char *const formats[] = { "text", "json", "html" };
	struct args *a = state->input;

	switch (key) {
	case OPT_FORMAT:
		a->format = (enum fleet_format)xp_args_choice(state, arg, formats, 3);
		break;
	case OPT_INTERVAL:
		a->interval = xp_args_integer(state, arg, 1, 86400, "seconds, 1..86400");
		break;
	case OPT_LISTEN:
		a->listen = arg;
		break;
	case OPT_STATE:
		a->state = arg;
		break;
	default:
		return cmd_mode_path(&a->pos, key, arg, state);
	}
	return 0;
}

struct report {
	struct fleet_agg *agg;
	enum fleet_format format;
};

static int render(const void *ctx, FILE *out)
{
	const struct report *r = ctx;

	switch (r->format) {
	case FLEET_JSON: return fleet_report_json(r->agg, out);
	case FLEET_HTML: return fleet_report_html(r->agg, out);
	default: return fleet_report_text(r->agg, out);
	}
}

static int report(const struct args *args, struct xa_prices *prices)
{
	struct fleet_agg a;
	int rc;

	if (fleet_agg_init(&a, args->pos.path) || (a.prices = prices, 0) ||
	    fleet_collect(args->pos.path, &a, stderr)) {
		fleet_agg_free(&a);
		return XP_EXIT_FAIL;
	}
	if (!a.sessions) {
		fprintf(stderr,
			"xperf fleet: %s: no valid session (DIR/NODE/SESSION/turn_*.json)\n",
			args->pos.path);
		rc = XP_EXIT_INVALID;
	} else {
		const struct report r = { &a, args->format };

		rc = cmd_report("fleet", args->pos.out, render, &r);
	}
	if (a.invalid_files + a.failed_sessions)
		fprintf(stderr,
			"xperf fleet: %u invalid files, %u failed sessions (listed above)\n",
			a.invalid_files, a.failed_sessions);
	fleet_agg_free(&a);
	return rc;
}

static int serve(const struct args *a, struct xa_prices *prices)
{
	char state[4096];
	int rc;

	snprintf(state, sizeof(state), "%s/%s", a->pos.path, DEFAULT_STATE);
	rc = fleet_serve(a->pos.path, a->listen, a->interval, a->state ? a->state : state, prices);
	return rc == -2 ? XP_EXIT_USAGE : rc ? XP_EXIT_FAIL : XP_EXIT_OK;
}

int cmd_fleet(int argc, char **argv)
{
	static const struct xp_args args = { "xperf fleet", options, parse_arg,
					     "report DIR\nserve DIR", doc, 0, NULL };
	struct args a = { .pos = { .modes = { "report", "serve" }, .path_of = { "DIR", "DIR" } },
			  .listen = DEFAULT_LISTEN, .interval = DEFAULT_INTERVAL };
	struct xa_prices *prices;
	int rc;

	if (xp_args_parse(&args, argc, argv, &a))
		return XP_EXIT_USAGE;
	if (cmd_arg_dir("fleet", a.pos.path) || cmd_prices(a.pos.prices, &prices))
		return XP_EXIT_INVALID;
	rc = !strcmp(a.pos.mode, "serve") ? serve(&a, prices) : report(&a, prices);
	xa_prices_free(prices);
	return rc;
}
