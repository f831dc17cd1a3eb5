/* SPDX-License-Identifier: MIT */
/*
 * secrets.h - find and redact secrets in free text before it is written:
 * "Bearer <token>", "x-api-key: <key>", "api_key=<key>", "sk-<key>", ...
 * Redacting is idempotent: a redacted string has nothing left to redact.
 */
#ifndef XPERF_LIB_SECRETS_H
#define XPERF_LIB_SECRETS_H

#include <stddef.h>

#define XP_SECRET_REDACTED "[REDACTED]"

/*
 * A malloc'd copy of `s` with every secret replaced by "[REDACTED]" (a
 * marker that names the secret's kind, like "Bearer ", is kept); NULL when
 * `s` holds no secret or memory ran out. The copy is at most
 * strlen(s) + (strlen(s) + 1) * sizeof(XP_SECRET_REDACTED) bytes long.
 */
char *xp_redact(const char *s);

/* Redact `s` in place, cutting at its buffer size `cap`; returns 1 if it changed. */
int xp_redact_inplace(char *s, size_t cap);

#endif /* XPERF_LIB_SECRETS_H */
