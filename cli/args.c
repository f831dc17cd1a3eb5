/* SPDX-License-Identifier: MIT */
/* args.c - see args.h. */
#include "cli/args.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/exit_codes.h"

int cmd_arg_repeated(const char *cmd, const char *const names[], const char *arg, unsigned *seen)
{
	for (unsigned k = 0; k < 32 && names[k]; k++) {
		if (strcmp(arg, names[k]))
			continue;
		if (*seen & 1u << k) {
			fprintf(stderr, "xperf %s: %s given twice\n", cmd, arg);
			return 1;
		}
		*seen |= 1u << k;
		return 0;
	}
	return 0;
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
