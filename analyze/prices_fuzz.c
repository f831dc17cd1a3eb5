// SPDX-License-Identifier: MIT
/* prices_fuzz.c - arbitrary bytes as a price table (--prices FILE): refused with a message
 * naming the line, or parsed; a parsed table is matched against a few model names. */
#include <stdio.h>

#include "analyze/analyze.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static const char *const models[] = { "claude-sonnet-4-6", "gpt-5", "", "[*?" };
	FILE *err = fopen("/dev/null", "w");
	struct xa_prices *p = NULL;
	double usd[XA_TOK_COUNT];

	if (!xa_prices_parse("fuzz", (const char *)data, size, &p, err ? err : stderr)) {
		for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++)
			xa_prices_match(p, models[i], usd);
		xa_prices_free(p);
	}
	if (err)
		fclose(err);
	return 0;
}
