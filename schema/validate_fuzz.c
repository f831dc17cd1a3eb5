/* SPDX-License-Identifier: MIT */
/*
 * validate_fuzz.c - libFuzzer target for the TurnTrace validator: any bytes
 * must give a bounded error count, no crash, no leak, no sanitizer report; a
 * document is returned exactly when there is no error; and whatever the
 * scanner accepts, cJSON parses (the scanner is the stricter of the two).
 */
#include <stdlib.h>

#include "schema/jscan.h"
#include "schema/validate.h"

static void count(const struct sc_verror *e, void *ctx)
{
	char line[1024];

	sc_verror_format(e, line, sizeof(line)); /* exercise formatting of every error */
	++*(int *)ctx;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	int seen = 0, nerr = -1;
	cJSON *doc = sc_load_turn_buffer("fuzz", (const char *)data, size, count, &seen, &nerr);
	struct sc_jscan scan;

	if (nerr != seen || (doc != NULL) != (nerr == 0) || nerr > XP_VALIDATE_MAX_ERRORS + 1)
		abort();
	cJSON_Delete(doc);
	if (!sc_jscan((const char *)data, size, XP_VALIDATE_MAX_DEPTH, XP_VALIDATE_MAX_VALUES,
		      &scan)) {
		doc = cJSON_ParseWithLength((const char *)data, size);
		if (!doc)
			abort();
		cJSON_Delete(doc);
	}
	sc_jscan_free(&scan);
	return 0;
}
