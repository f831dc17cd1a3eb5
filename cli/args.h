/* SPDX-License-Identifier: MIT */
/*
 * args.h - what the `xperf` subcommands share on top of lib/args.h: the
 * -o and --prices options (one wording everywhere), loading the price table
 * they name, writing a report to stdout or -o, the check of a DIR argument.
 */
#ifndef XPERF_CLI_ARGS_H
#define XPERF_CLI_ARGS_H

#include <stdio.h>

#include "analyze/analyze.h"
#include "lib/args.h"

#define CMD_KEY_PRICES 0x1000

#define CMD_OPTION_OUTPUT(what) { "output", 'o', "OUT", 0, "write " what " to OUT (mode 0600)", 0 }
#define CMD_OPTION_PRICES                                                                   \
	{ "prices", CMD_KEY_PRICES, "FILE", 0,                                               \
	  "price table (analyze/README.md; the shipped one by default)", 0 }

/*
 * The price table at path into *out (NULL path: none, the shipped table is
 * used); 0, or XP_EXIT_INVALID after the one-line error.
 */
int cmd_prices(const char *path, struct xa_prices **out);

/*
 * What render(ctx, f) writes, to stdout or, when out is given, to OUT
 * atomically (mode 0600). An XP_EXIT_* code, after "xperf CMD: OUT: why".
 */
int cmd_report(const char *cmd, const char *out, int (*render)(const void *ctx, FILE *f),
	       const void *ctx);

/*
 * The "MODE PATH" positionals of `analyze turn FILE|session DIR` and
 * `fleet report|serve DIR`, with the -o and --prices both take.
 * cmd_mode_path() takes ARGP_KEY_ARG and ARGP_KEY_END (one of modes, then
 * one path, or the usage error naming both forms), 'o' and CMD_KEY_PRICES,
 * and answers ARGP_ERR_UNKNOWN to every other key, so a parser ends with
 * `default: return cmd_mode_path(&a->pos, key, arg, state);`.
 */
struct cmd_mode_path {
	const char *modes[2], *path_of[2]; /* {"turn", "session"}, {"FILE", "DIR"} */
	const char *mode, *path;
	const char *out, *prices; /* -o, --prices: NULL when not given */
};

error_t cmd_mode_path(struct cmd_mode_path *mp, int key, char *arg, struct argp_state *state);

/*
 * 0 when path is a directory; else prints "xperf CMD: PATH: no such
 * directory" (or "not a directory") and returns XP_EXIT_INVALID.
 */
int cmd_arg_dir(const char *cmd, const char *path);

#endif /* XPERF_CLI_ARGS_H */
