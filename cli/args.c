/* SPDX-License-Identifier: MIT */
/* args.c - see args.h. */
#include "cli/args.h"

#include <stdio.h>
#include <string.h>

int xp_arg_repeated(const char *cmd, const char *const names[], const char *arg, unsigned *seen)
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
