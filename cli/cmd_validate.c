/* SPDX-License-Identifier: MIT */
/*
 * cmd_validate.c - `xperf validate FILE|DIR...`: check TurnTrace files. A
 * directory's files are found as doc below says (symlinks to files are
 * taken, symlinked directories are not entered), sorted; each error is one
 * line on stdout, a summary goes to stderr.
 */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "lib/args.h"
#include "lib/grow.h"
#include "lib/plural.h"
#include "schema/validate.h"

struct totals {
	int files, bad, errors;
};

/* nftw has no context argument: the list being collected. */
static struct {
	char **paths;
	size_t n, cap;
	size_t nturns; /* how many are named turn_NNN.json */
	int oom;
} found;

/* turn_NNN.json: the name every TurnTrace writer gives a turn file. */
static int is_turn_name(const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t digits = strncmp(base, "turn_", 5) ? 0 : strspn(base + 5, "0123456789");

	return digits && !strcmp(base + 5 + digits, ".json");
}

/* Keep the turn files only, when there are any. */
static void keep_turns(void)
{
	size_t k = 0;

	if (!found.nturns)
		return;
	for (size_t i = 0; i < found.n; i++) {
		if (is_turn_name(found.paths[i]))
			found.paths[k++] = found.paths[i];
		else
			free(found.paths[i]);
	}
	found.n = k;
}

static const char doc[] =
	"Check TurnTrace v1 files (schema/README.md). A DIR means every turn_NNN.json below it "
	"(a trace directory: capture.json and reports are no turns), or every *.json where "
	"there is none. One line per error: path:line:col: /json/pointer: message.\v"
	"Exit status: 0 all valid, 2 some invalid or unreadable, 64 usage error.";

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	int *first = state->input;

	(void)arg;
	if (key == ARGP_KEY_ARG) {
		*first = state->next - 1;
		state->next = state->argc;
	} else if (key == ARGP_KEY_NO_ARGS) {
		xp_args_fail(state, "no FILE or DIR given");
	} else {
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static void print_error(const struct sc_verror *e, void *ctx)
{
	char line[1024];

	(void)ctx;
	puts(sc_verror_format(e, line, sizeof(line)));
}

/* Symlinks to files count (a runfiles tree is made of them); symlinked dirs are not entered. */
static int collect(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	size_t len = strlen(path);
	struct stat target;

	(void)ftw;
	if (len < 5 || strcmp(path + len - 5, ".json"))
		return 0;
	if (type == FTW_SL && !stat(path, &target))
		st = &target;
	else if (type != FTW_F)
		return 0;
	if (!S_ISREG(st->st_mode))
		return 0;
	if (xp_grow((void **)&found.paths, &found.cap, found.n + 1, sizeof(*found.paths)) ||
	    !(found.paths[found.n] = strdup(path))) {
		found.oom = 1;
		return 1;
	}
	found.nturns += is_turn_name(path);
	found.n++;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void validate_one(const char *path, struct totals *t)
{
	int n = sc_validate_file(path, print_error, NULL);

	t->files++;
	t->bad += n > 0;
	t->errors += n;
}

/* Every *.json below dir, in name order. */
static void validate_dir(const char *dir, struct totals *t)
{
	struct sc_verror e = { .file = dir };

	found.n = found.nturns = 0;
	if (nftw(dir, collect, 32, FTW_PHYS) || found.oom) {
		snprintf(e.msg, sizeof(e.msg), "%s", found.oom ? "out of memory listing files"
								: "cannot walk the directory");
	} else if (!found.n) {
		snprintf(e.msg, sizeof(e.msg), "no *.json file below this directory");
	} else {
		keep_turns();
		qsort(found.paths, found.n, sizeof(*found.paths), by_name);
		for (size_t i = 0; i < found.n; i++)
			validate_one(found.paths[i], t);
	}
	if (e.msg[0]) {
		/* the directory itself is the invalid input: counted like a file */
		print_error(&e, NULL);
		t->files++;
		t->bad++;
		t->errors++;
	}
	for (size_t i = 0; i < found.n; i++)
		free(found.paths[i]);
	found.n = 0;
}

int cmd_validate(int argc, char **argv)
{
	static const struct xp_args args = { "xperf validate", NULL, parse_arg, "FILE|DIR...", doc,
					     0, NULL };
	struct totals t = { 0 };
	struct stat st;
	int i = 0;

	if (xp_args_parse(&args, argc, argv, &i))
		return XP_EXIT_USAGE;
	for (; i < argc; i++) {
		if (!stat(argv[i], &st) && S_ISDIR(st.st_mode))
			validate_dir(argv[i], &t);
		else
			validate_one(argv[i], &t);
	}
	free(found.paths);
	fflush(stdout);
	fprintf(stderr, "xperf validate: %d file%s, %d invalid, %d error%s\n", t.files,
		xp_s(t.files), t.bad, t.errors, xp_s(t.errors));
	return t.bad ? XP_EXIT_INVALID : XP_EXIT_OK;
}
