// SPDX-License-Identifier: MIT
/*
 * locate_main.c - `xperf-locate FILE...`: what the locator finds in each
 * file, and what it cost (bench/tls/locate.sh runs it). --cache DIR uses
 * the disk cache (default: memory only, so every call analyzes).
 * Exit codes: 0 all files read, 1 a file could not be read, 64 usage.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "lib/args.h"
#include "lib/exit_codes.h"
#include "userspace/locate/locate.h"

static const struct argp_option options[] = {
	{ "cache", 256, "DIR", 0, "the disk cache (default: memory only, every call analyzes)", 0 },
	{ 0 },
};

struct args {
	const char *dir;
	int first;
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	if (key == 256)
		a->dir = arg;
	else if (key == ARGP_KEY_ARG)
		a->first = state->next - 1, state->next = state->argc;
	else if (key == ARGP_KEY_NO_ARGS)
		xp_args_fail(state, "no FILE given");
	else
		return ARGP_ERR_UNKNOWN;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct xp_args args = { "xperf-locate", options, parse_arg, "FILE...",
					     "What the TLS locator finds in each file.", 0, NULL };
	struct args a = { 0 };
	struct loc_locator *l;
	int i, rc = 0;

	if (xp_args_parse(&args, argc, argv, &a))
		return XP_EXIT_USAGE;
	l = loc_locator_new(a.dir);
	for (i = a.first; l && i < argc; i++) {
		struct loc_result r;
		int fd = open(argv[i], O_RDONLY | O_CLOEXEC);

		if (fd < 0 || loc_locator_file(l, fd, &r)) {
			fprintf(stderr, "xperf-locate: %s: cannot read\n", argv[i]);
			rc = 1;
		} else {
			printf("%s\t%s\t%s\tSSL_write=0x%" PRIx64 "\tSSL_read=0x%" PRIx64
			       "\t%.3f ms\t%s\t%s\t%s\n",
			       argv[i], loc_status_names[r.status], r.stack[0] ? r.stack : "-",
			       r.write_off, r.read_off, r.ms, r.from_cache ? "cached" : "analyzed",
			       r.key, r.why);
		}
		if (fd >= 0)
			close(fd);
	}
	loc_locator_free(l);
	return l ? rc : 1;
}
