/* SPDX-License-Identifier: MIT */
#include "theory/theory.h"

#include <stdio.h>

int main(void)
{
	if (!xp_stage_find("prompt_assembly") || xp_stage_find("nope")) {
		fprintf(stderr, "stage lookup broken\n");
		return 1;
	}
	return 0;
}
