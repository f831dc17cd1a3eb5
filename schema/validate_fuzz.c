/* SPDX-License-Identifier: MIT */
/*
 * validate_fuzz.c - libFuzzer target for the TurnTrace validator: any bytes
 * must give a finite error count, no crash, no leak, no sanitizer report,
 * and a document is returned exactly when there is no error.
 */
#include <stdlib.h>

#include "schema/validate.h"

static void count(const struct xp_verror *e, void *ctx)
{
	char line[1024];

	xp_verror_format(e, line, sizeof(line)); /* exercise formatting of every error */
	++*(int *)ctx;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	int seen = 0, nerr = -1;
	cJSON *doc = xp_load_turn_buffer("fuzz", (const char *)data, size, count, &seen, &nerr);

	if (nerr != seen || (doc != NULL) != (nerr == 0) || nerr > XP_VALIDATE_MAX_ERRORS + 1)
		abort();
	cJSON_Delete(doc);
	return 0;
}
