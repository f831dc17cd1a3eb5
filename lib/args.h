/* SPDX-License-Identifier: MIT */
/*
 * args.h - the one argument parser of every xperf command: glibc argp (as
 * libbpf-tools) with the rules all commands share, written here once
 * (docs/architecture.md, "One argument parser"): one-line usage errors and
 * exit 64, an option given twice refused, -h, strict numbers and lists.
 */
#ifndef XPERF_LIB_ARGS_H
#define XPERF_LIB_ARGS_H

#include <argp.h>

struct xp_args {
	const char *name;		/* "xperf analyze": messages and the Usage: line */
	const struct argp_option *options;
	argp_parser_t parser;		/* the command's; state->input is its input */
	const char *args_doc;
	const char *doc;
	unsigned flags;			/* argp_parse's, e.g. ARGP_IN_ORDER */
	const int *repeatable;		/* keys that may be given more than once, 0-ended */
};

/*
 * Parses argv[1..argc) into input through a->parser (argv[0] becomes
 * a->name). 0, or XP_EXIT_USAGE once its one line is printed; exits 0
 * itself after --help, --usage or --version.
 */
int xp_args_parse(const struct xp_args *a, int argc, char **argv, void *input);

/*
 * The subcommand of a binary that has them (xperf, xperf-bpf): options
 * before it are the binary's own (--help, --version). Returns the index in
 * argv of the word, one of names (NULL-ended), or exits: 0 after --help
 * (doc lists the subcommands), 64 with one line when it is missing or unknown.
 */
int xp_args_command(const char *name, const char *doc, const char *const names[], int argc,
		    char **argv);

/* In a parser: "PROG: MESSAGE" on stderr, exit XP_EXIT_USAGE. */
void xp_args_fail(const struct argp_state *state, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));

/* In a parser, of the option being parsed: "PROG: invalid --OPT 'ARG': WHY", exit 64. */
void xp_args_invalid(const struct argp_state *state, const char *why) __attribute__((noreturn));

/* The option's value as a number in [lo, hi], or xp_args_invalid(why). */
double xp_args_number(const struct argp_state *state, const char *arg, double lo, double hi,
		      const char *why);

/* The same for an integer (decimal, no sign where lo >= 0). */
long long xp_args_integer(const struct argp_state *state, const char *arg, long long lo,
			  long long hi, const char *why);

/* The index of arg among the n names, or xp_args_invalid("A, B or C"). */
int xp_args_choice(const struct argp_state *state, const char *arg, const char *const names[],
		   int n);

/*
 * Each comma-separated item of arg to item(state, ITEM, ctx), empty ones too
 * ("1,,2", "A,"): item() refuses them as it refuses any bad item.
 */
void xp_args_list(const struct argp_state *state, const char *arg,
		  void (*item)(const struct argp_state *state, const char *item, void *ctx),
		  void *ctx);

#endif /* XPERF_LIB_ARGS_H */
