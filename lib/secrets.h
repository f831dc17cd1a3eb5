/* SPDX-License-Identifier: MIT */
/*
 * secrets.h - the one redactor: every writer of outside text (turn files,
 * capture.json, --raw, exports, metrics labels, the SDK) puts it through
 * these functions before anything is written.
 *
 *  - a name is a secret's when one of its words (split at _ - .) is in the
 *    table of secrets.c (key, token, secret, password, auth, cookie, ...):
 *    OPENAI_API_KEY, x-goog-api-key, access_token, Proxy-Authorization;
 *  - free text: "NAME: value" (a header, any case and spacing; the value to
 *    the end of the line, an auth scheme like "Bearer " kept) and
 *    "NAME=value" (env, query, form) with a secret's NAME, URL userinfo
 *    (https://user:pass@host), "Bearer <token>", "sk-<key>";
 *  - command lines, argument by argument: the value of -H/--header (its
 *    header redacted as above), -u/--user, --oauth2-bearer, -b/--cookie,
 *    and of -d, --data-raw and the other --data options, --json, -F/--form
 *    (the request body: a prompt) unless payloads are captured on purpose.
 * Redacting is idempotent: a redacted string has nothing left to redact.
 */
#ifndef XPERF_LIB_SECRETS_H
#define XPERF_LIB_SECRETS_H

#include <stdbool.h>
#include <stddef.h>

#define XP_SECRET_REDACTED "[REDACTED]"

/* Whether a name (len bytes, any case) names a secret (header, parameter, variable). */
bool xp_secret_name(const char *name, size_t len);

/*
 * A malloc'd copy of `s` with every secret replaced by "[REDACTED]" (a
 * marker that names the secret's kind, like "Bearer ", is kept); NULL when
 * `s` holds no secret or memory ran out. The copy is at most
 * strlen(s) + (strlen(s) + 1) * sizeof(XP_SECRET_REDACTED) bytes long.
 */
char *xp_redact(const char *s);

/*
 * One command-line argument, given the one before it (NULL for the first):
 * a malloc'd redacted copy (the copy unchanged when nothing is secret), NULL
 * only when memory ran out. `payloads`: --capture-payloads, bodies kept.
 */
char *xp_redact_arg(const char *prev, const char *arg, bool payloads);

#endif /* XPERF_LIB_SECRETS_H */
