/* SPDX-License-Identifier: MIT */
/* args.c - see args.h. */
#include "cli/args.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/atomic_file.h"
#include "lib/exit_codes.h"

int cmd_prices(const char *path, struct xa_prices **out)
{
	*out = NULL;
	return path && xa_prices_load(path, out, stderr) ? XP_EXIT_INVALID : 0;
}

int cmd_report(const char *cmd, const char *out, int (*render)(const void *ctx, FILE *f),
	       const void *ctx)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;
	int rc;

	if (!out)
		rc = render(ctx, stdout) ? -EIO : 0;
	else if (!(mem = open_memstream(&buf, &len)))
		rc = -ENOMEM;
	else if (render(ctx, mem) | fclose(mem))
		rc = -ENOMEM;
	else
		rc = xp_write_file_atomic(out, buf, len);
	free(buf);
	if (rc)
		fprintf(stderr, "xperf %s: %s: %s\n", cmd, out ? out : "stdout",
			out ? xp_out_strerror(rc) : "cannot write the report");
	return xp_out_exit(rc);
}

int cmd_arg_dir(const char *cmd, const char *path)
{
	struct stat st;

	if (!stat(path, &st) && S_ISDIR(st.st_mode))
		return 0;
	fprintf(stderr, "xperf %s: %s: %s\n", cmd, path,
		errno == ENOENT ? "no such directory" : "not a directory");
	return XP_EXIT_INVALID;
}

error_t cmd_mode_path(struct cmd_mode_path *mp, int key, char *arg, struct argp_state *state)
{
	if (key == ARGP_KEY_ARG && state->arg_num < 2)
		*(state->arg_num ? &mp->path : &mp->mode) = arg;
	else if (key == 'o')
		mp->out = arg;
	else if (key == CMD_KEY_PRICES)
		mp->prices = arg;
	else if (key != ARGP_KEY_END)
		return ARGP_ERR_UNKNOWN;
	else if (!mp->path || (strcmp(mp->mode, mp->modes[0]) && strcmp(mp->mode, mp->modes[1])))
		xp_args_fail(state, "expected '%s %s' or '%s %s'", mp->modes[0], mp->path_of[0],
			     mp->modes[1], mp->path_of[1]);
	return 0;
}
