/* SPDX-License-Identifier: MIT */
/* args.c - see args.h. */
#include "lib/args.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/exit_codes.h"

#define SEEN_MAX 64

/* One parse: the command, its input, the option being parsed, the options seen. */
struct run {
	const struct xp_args *a;
	void *input;
	const char *arg;
	int key, seen[SEEN_MAX], nseen;
};

static int is_end(const struct argp_option *o)
{
	return !o->name && !o->key && !o->doc && !o->group;
}

static const struct argp_option *option_of(const struct argp_option *o, int key)
{
	for (; o && !is_end(o); o++)
		if (o->key == key && !(o->flags & OPTION_DOC))
			return o;
	return NULL;
}

/* "--name" or "-k", as the user could have written it. */
static const char *option_name(const struct argp_option *o, char *buf, size_t cap)
{
	if (o->name)
		snprintf(buf, cap, "--%s", o->name);
	else
		snprintf(buf, cap, "-%c", o->key);
	return buf;
}

void xp_args_fail(const struct argp_state *state, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", state->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(XP_EXIT_USAGE);
}

void xp_args_invalid(const struct argp_state *state, const char *why)
{
	const struct run *r = state->hook;
	const struct argp_option *o = option_of(r->a->options, r->key);
	char name[64];

	xp_args_fail(state, "invalid %s '%s': %s", o ? option_name(o, name, sizeof(name)) : "value",
		     r->arg ? r->arg : "", why);
}

double xp_args_number(const struct argp_state *state, const char *arg, double lo, double hi,
		      const char *why)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	/* written so that NaN, which compares false both ways, is refused too */
	if (errno || end == arg || *end || !(v >= lo && v <= hi))
		xp_args_invalid(state, why);
	return v;
}

long long xp_args_integer(const struct argp_state *state, const char *arg, long long lo,
			  long long hi, const char *why)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(arg, &end, 10);
	if (errno || end == arg || *end || v < lo || v > hi)
		xp_args_invalid(state, why);
	return v;
}

/* "a, b or c" into buf. */
static const char *either(const char *const names[], int n, char *buf, size_t cap)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int i = 0; i < n && len < cap; i++)
		len += snprintf(buf + len, cap - len, "%s%s", !i ? "" : i == n - 1 ? " or " : ", ",
				names[i]);
	return buf;
}

int xp_args_choice(const struct argp_state *state, const char *arg, const char *const names[],
		   int n)
{
	char why[256];

	for (int i = 0; i < n; i++)
		if (!strcmp(arg, names[i]))
			return i;
	xp_args_invalid(state, either(names, n, why, sizeof(why)));
}

void xp_args_list(const struct argp_state *state, const char *arg,
		  void (*item)(const struct argp_state *state, const char *item, void *ctx),
		  void *ctx)
{
	char buf[1024], *rest = buf, *t;

	if (snprintf(buf, sizeof(buf), "%s", arg) >= (int)sizeof(buf))
		xp_args_invalid(state, "longer than 1023 bytes");
	while ((t = strsep(&rest, ","))) /* strsep, not strtok: empty items are seen */
		item(state, t, ctx);
}

static int repeatable(const int *keys, int key)
{
	while (keys && *keys && *keys != key)
		keys++;
	return keys && *keys;
}

/* Refuses a second value of an option (the last one would silently win). */
static void once(struct run *r, const struct argp_state *state, const struct argp_option *o)
{
	char name[64];

	for (int i = 0; i < r->nseen; i++)
		if (r->seen[i] == o->key && !repeatable(r->a->repeatable, o->key))
			xp_args_fail(state, "%s given twice", option_name(o, name, sizeof(name)));
	if (r->nseen < SEEN_MAX)
		r->seen[r->nseen++] = o->key;
}

/* Every key goes through here on its way to the command's parser. */
static error_t dispatch(int key, char *arg, struct argp_state *state)
{
	struct run *r = key == ARGP_KEY_INIT ? state->input : state->hook;
	const struct argp_option *o = option_of(r->a->options, key);
	error_t err;

	if (key == ARGP_KEY_INIT) {
		state->hook = r;
		/* getopt's line names an unknown option: no "Try --help" line after it */
		state->err_stream = NULL;
	}
	if (o) {
		once(r, state, o);
		r->key = key;
		r->arg = arg;
	}
	state->input = r->input;
	err = r->a->parser(key, arg, state);
	if (err == ARGP_ERR_UNKNOWN && key == ARGP_KEY_ARG)
		xp_args_fail(state, "unexpected argument '%s'", arg);
	return err;
}

/* -h, hidden: the help as --help shows it. */
static error_t help_key(int key, char *arg, struct argp_state *state)
{
	(void)arg;
	if (key != 'h')
		return ARGP_ERR_UNKNOWN;
	argp_state_help(state, state->out_stream, ARGP_HELP_STD_HELP);
	return 0;
}

int xp_args_parse(const struct xp_args *a, int argc, char **argv, void *input)
{
	static const struct argp_option help_options[] = {
		{ NULL, 'h', NULL, OPTION_HIDDEN, NULL, 0 },
		{ 0 },
	};
	static const struct argp help = { help_options, help_key, NULL, NULL, NULL, NULL, NULL };
	static const struct argp_child children[] = { { &help, 0, NULL, 0 }, { 0 } };
	struct argp argp = { a->options, dispatch, a->args_doc, a->doc, children, NULL, NULL };
	struct run r = { .a = a, .input = input };

	argv[0] = (char *)a->name;
	return argp_parse(&argp, argc, argv, a->flags, NULL, &r) ? XP_EXIT_USAGE : 0;
}

struct command {
	const char *const *names;
	int index;
};

static error_t command_key(int key, char *arg, struct argp_state *state)
{
	struct command *c = state->input;
	char all[512];
	int n = 0;

	while (c->names[n])
		n++;
	if (key == ARGP_KEY_NO_ARGS)
		xp_args_fail(state, "expected a subcommand: %s (%s --help)",
			     either(c->names, n, all, sizeof(all)), state->name);
	if (key != ARGP_KEY_ARG)
		return ARGP_ERR_UNKNOWN;
	if (!strcmp(arg, "help"))
		argp_state_help(state, state->out_stream, ARGP_HELP_STD_HELP);
	for (int i = 0; i < n; i++) {
		if (!strcmp(arg, c->names[i])) {
			c->index = state->next - 1;
			state->next = state->argc; /* the rest is the subcommand's */
			return 0;
		}
	}
	xp_args_fail(state, "unknown subcommand '%s' (%s --help)", arg, state->name);
}

int xp_args_command(const char *name, const char *doc, const char *const names[], int argc,
		    char **argv)
{
	/* no options: NULL, not an empty table (argp's help leaks an empty one's) */
	const struct xp_args a = { name, NULL, command_key, "COMMAND [ARG...]", doc, ARGP_IN_ORDER,
				   NULL };
	struct command c = { names, 0 };

	if (xp_args_parse(&a, argc, argv, &c))
		exit(XP_EXIT_USAGE);
	return c.index;
}
