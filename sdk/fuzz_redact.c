/* SPDX-License-Identifier: MIT */
/*
 * fuzz_redact.c - libFuzzer target for the string paths that read what the
 * agent passes (tool output, command lines): the UTF-8 check and the secret
 * redactor. No crash or overflow; redacting is idempotent (a redacted string
 * has nothing left to redact, or redacts to itself) and never grows a string
 * past its bound.
 */
#include <stdlib.h>
#include <string.h>

#include "sdk/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), *once, *twice;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	(void)xp_utf8_valid(s);
	once = xp_redact(s);
	if (once) {
		if (strlen(once) > strlen(s) + (strlen(s) + 1) * sizeof("[REDACTED]"))
			abort();
		twice = xp_redact(once);
		if (twice && strcmp(twice, once))
			abort();
		free(twice);
	}
	free(once);
	free(s);
	return 0;
}
