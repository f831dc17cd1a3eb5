/* SPDX-License-Identifier: MIT */
/*
 * secrets.c - redaction of secrets inside free text (an Authorization header
 * or an API key on a tool's command line). Shared by every writer of outside
 * text: the SDK's attributes, the turn assembler's command lines and the
 * capture layer's exec records. All of it is the table below: add a marker
 * here and every writer follows.
 */
#include "lib/secrets.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>


/*
 * A secret follows each marker (case-insensitive), after optional blanks, up
 * to a blank, quote, comma, semicolon, ampersand or '[' (so that a redacted
 * string has nothing left to redact). `keep`: the marker stays ("Bearer
 * [REDACTED]"); otherwise it is part of the secret ("sk-...").
 */
static const struct {
	const char *marker;
	int keep;
	size_t min_len; /* shorter runs are not secrets ("sk-" in a word) */
} secret_marks[] = {
	{ "bearer ", 1, 1 },    { "x-api-key:", 1, 1 }, { "api-key:", 1, 1 },
	{ "api_key=", 1, 1 },   { "apikey=", 1, 1 },    { "access_token=", 1, 1 },
	{ "password=", 1, 1 },  { "sk-", 0, 20 },
};

static size_t run_len(const char *s)
{
	size_t n = 0;

	while (s[n] && !isspace((unsigned char)s[n]) && !strchr("\"',;&[", s[n]))
		n++;
	return n;
}

/* Length of the secret run after marker m at s (blanks included), or 0. */
static size_t secret_at(const char *s, const char *start, size_t m)
{
	size_t plen = strlen(secret_marks[m].marker), skip = plen, n;

	if (strncasecmp(s, secret_marks[m].marker, plen))
		return 0;
	if (!secret_marks[m].keep && s > start && isalnum((unsigned char)s[-1]))
		return 0;
	while (secret_marks[m].keep && (s[skip] == ' ' || s[skip] == '\t'))
		skip++;
	n = run_len(s + skip);
	return n >= secret_marks[m].min_len ? skip + n : 0;
}

/* The marker that starts a secret at s, with the secret's length in *n; -1: none. */
static int match(const char *s, const char *start, size_t *n)
{
	for (size_t m = 0; m < sizeof(secret_marks) / sizeof(secret_marks[0]); m++)
		if (tolower((unsigned char)*s) == secret_marks[m].marker[0] &&
		    (*n = secret_at(s, start, m)))
			return (int)m;
	return -1;
}

char *xp_redact(const char *s)
{
	size_t len = strlen(s), o = 0, n;
	char *out = NULL;

	for (size_t i = 0; i < len;) {
		int m = match(s + i, s, &n);

		if (m < 0) {
			if (out)
				out[o++] = s[i];
			i++;
			continue;
		}
		if (!out) {
			/* each secret is >= 1 byte and its "[REDACTED]" replaces it */
			out = malloc(len + (len + 1) * sizeof(XP_SECRET_REDACTED));
			if (!out)
				return NULL;
			memcpy(out, s, i);
			o = i;
		}
		if (secret_marks[m].keep) {
			memcpy(out + o, s + i, strlen(secret_marks[m].marker));
			o += strlen(secret_marks[m].marker);
		}
		memcpy(out + o, XP_SECRET_REDACTED, sizeof(XP_SECRET_REDACTED) - 1);
		o += sizeof(XP_SECRET_REDACTED) - 1;
		i += n;
	}
	if (out)
		out[o] = '\0';
	return out;
}

int xp_redact_inplace(char *s, size_t cap)
{
	char *r = xp_redact(s);
	size_t n;

	if (!r)
		return 0;
	n = strlen(r);
	if (n >= cap)
		n = cap - 1;
	memcpy(s, r, n);
	s[n] = '\0';
	free(r);
	return 1;
}
