/* SPDX-License-Identifier: MIT */
/* args.c - see args.h. */
#include "cli/args.h"

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

#include "lib/exit_codes.h"

int cmd_prices(const char *path, struct xa_prices **out)
{
	*out = NULL;
	return path && xa_prices_load(path, out, stderr) ? XP_EXIT_INVALID : 0;
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
