// SPDX-License-Identifier: MIT
/*
 * redact_arg_fuzz.c - the command-line redactor (xp_redact_arg, secrets.h)
 * on arbitrary argument pairs. The input: a flags byte (bit 0: payloads
 * captured; bit 1: no previous argument), then the previous argument and the
 * argument, split at the first NUL. Always: a copy comes back, no longer than
 * the free-text bound, redacting it again changes nothing, and the value of
 * an option that takes a secret is "[REDACTED]" whole.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/secrets.h"

static const char *const secret_opts[] = { "-u", "--user", "--oauth2-bearer", "-b", "--cookie",
					   "--token", "--api-key", "--password" };

static int takes_secret(const char *prev)
{
	for (size_t i = 0; prev && i < sizeof(secret_opts) / sizeof(secret_opts[0]); i++)
		if (!strcmp(prev, secret_opts[i]))
			return 1;
	return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *buf, *prev, *arg, *once, *twice;
	bool payloads;

	if (!size)
		return 0;
	payloads = data[0] & 1;
	buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = '\0';
	prev = data[0] & 2 ? NULL : buf;
	arg = prev ? buf + strlen(buf) + (strlen(buf) < size - 1) : buf;
	once = xp_redact_arg(prev, arg, payloads);
	if (!once)
		abort();
	if (strlen(once) > strlen(arg) + (strlen(arg) + 1) * sizeof(XP_SECRET_REDACTED))
		abort();
	if (takes_secret(prev) && strcmp(once, XP_SECRET_REDACTED))
		abort();
	twice = xp_redact_arg(prev, once, payloads);
	if (!twice || strcmp(once, twice))
		abort();
	free(twice);
	free(once);
	free(buf);
	return 0;
}
