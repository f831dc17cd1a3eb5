/* SPDX-License-Identifier: MIT */
/*
 * privacy.c - what never reaches a trace file: attributes whose key names a
 * credential, prompt and completion text unless the user opted in, and
 * secrets inside string values (an Authorization header or an API key in a
 * tool's command line), which are replaced by "[REDACTED]". All of it is
 * tables: add a key here and every writer path follows. Secrets inside
 * values are found by lib/secrets.c, shared with the kernel-event writers.
 */
#define _GNU_SOURCE /* strcasestr */
#include <string.h>
#include <strings.h>

#include "sdk/internal.h"

/* Never written: substrings of credential keys (case-insensitive). */
static const char *const secret_keys[] = {
	"api_key", "api-key", "apikey", "authorization", "password", "secret", "cookie",
	"credential", "bearer", "access_token", "refresh_token",
};

/* Written only with XPERF_CAPTURE_CONTENT: prompt and completion text. */
static const char *const content_keys[] = {
	"prompt", "completion", "messages", "content", "gen_ai.prompt", "gen_ai.completion",
	"gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.system_instructions",
};

int sd_withheld(const char *key, int capture_content)
{
	for (size_t i = 0; i < sizeof(secret_keys) / sizeof(secret_keys[0]); i++)
		if (strcasestr(key, secret_keys[i]))
			return 1;
	for (size_t i = 0; i < sizeof(content_keys) / sizeof(content_keys[0]); i++)
		if (!capture_content && strcasecmp(key, content_keys[i]) == 0)
			return 1;
	return 0;
}
