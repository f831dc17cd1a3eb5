/* SPDX-License-Identifier: MIT */
/*
 * secrets.c - the one redactor (secrets.h). Everything it knows is the three
 * tables below: add a word, a marker or an option here and every writer
 * follows.
 */
#include "lib/secrets.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A name is a secret's when one of its words is one of these... */
static const char *const secret_words[] = {
	"key",	  "apikey", "token",	     "secret",	    "password",	   "passwd", "pwd",
	"pass",	  "auth",   "authorization", "credential", "credentials", "cookie", "sig",
	"signature", "bearer", "jwt",
};
/* ...or ends with one of these (run-together names: accessToken, xApiKey). */
static const char *const secret_endings[] = { "token", "secret", "password", "apikey" };

/*
 * Secrets known by a marker (case-insensitive), followed by optional blanks
 * and a run up to a blank, quote, comma, semicolon, ampersand or '[' (so that
 * a redacted string has nothing left to redact). `keep`: the marker stays
 * ("Bearer [REDACTED]"); otherwise it is part of the secret ("sk-...").
 */
static const struct {
	const char *marker;
	int keep;
	size_t min_len; /* shorter runs are not secrets ("sk-" in a word) */
} secret_marks[] = {
	{ "bearer ", 1, 1 },
	{ "sk-", 0, 20 },
};

/* Auth schemes kept in front of a redacted header value. */
static const char *const auth_schemes[] = { "bearer ", "basic ", "token ", "digest " };

/*
 * Command-line options whose value is a secret, and those whose value is a
 * request body (kept only with payloads). Short options also match glued
 * ("-HX: y"), long ones with '=' ("--header=X: y").
 */
static const char *const secret_opts[] = { "-u", "--user", "--proxy-user", "-U",
					   "--oauth2-bearer", "-b", "--cookie", "--pass" };
static const char *const header_opts[] = { "-H", "--header", "--proxy-header" };
static const char *const body_opts[] = { "-d",	       "--data",     "--data-raw",
					 "--data-binary", "--data-ascii", "--data-urlencode",
					 "--json",	       "-F",	     "--form",
					 "--form-string" };

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static int is_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.';
}

static int word_is_secret(const char *w, size_t n)
{
	for (size_t i = 0; i < COUNT(secret_words); i++)
		if (strlen(secret_words[i]) == n && !strncasecmp(w, secret_words[i], n))
			return 1;
	for (size_t i = 0; i < COUNT(secret_endings); i++) {
		size_t e = strlen(secret_endings[i]);

		if (n > e && !strncasecmp(w + n - e, secret_endings[i], e))
			return 1;
	}
	return 0;
}

bool xp_secret_name(const char *name, size_t len)
{
	for (size_t i = 0; i < len;) {
		size_t n = 0;

		while (i + n < len && isalnum((unsigned char)name[i + n]))
			n++;
		if (n && word_is_secret(name + i, n))
			return true;
		i += n ? n : 1;
	}
	return false;
}

static size_t run_len(const char *s)
{
	size_t n = 0;

	while (s[n] && !isspace((unsigned char)s[n]) && !strchr("\"',;&[", s[n]))
		n++;
	return n;
}

/* Length of a header value: to the end of the line or a quote, stopping at an earlier '['. */
static size_t line_len(const char *s)
{
	size_t n = strcspn(s, "\r\n\"'");
	const char *b = memchr(s, '[', n);

	return b ? (size_t)(b - s) : n;
}

static size_t blanks(const char *s)
{
	return strspn(s, " \t");
}

/*
 * A match at s: `keep` bytes kept as they are, then `len` bytes (keep
 * included) replaced by "[REDACTED]". len == 0: none.
 */
struct hit {
	size_t keep, len;
};

/* "Bearer x", "sk-...". */
static struct hit marker_at(const char *s, const char *start)
{
	for (size_t m = 0; m < COUNT(secret_marks); m++) {
		size_t plen = strlen(secret_marks[m].marker), skip = plen, n;

		if (strncasecmp(s, secret_marks[m].marker, plen))
			continue;
		if (!secret_marks[m].keep && s > start && isalnum((unsigned char)s[-1]))
			continue;
		skip += secret_marks[m].keep ? blanks(s + skip) : 0;
		n = run_len(s + skip);
		if (n >= secret_marks[m].min_len)
			return (struct hit){ secret_marks[m].keep ? skip : 0, skip + n };
	}
	return (struct hit){ 0, 0 };
}

/*
 * "NAME: value" (header, to the end of the line) or "NAME=value", name of n
 * bytes at s; quotes around the name or the value are kept ("api_key": "v").
 */
static struct hit named_at(const char *s, size_t n)
{
	size_t k = n + (s[n] == '"' || s[n] == '\''), v;
	char sep;

	k += blanks(s + k);
	sep = s[k];
	if ((sep != ':' && sep != '=') || !xp_secret_name(s, n))
		return (struct hit){ 0, 0 };
	k += 1 + blanks(s + k + 1);
	k += s[k] == '"' || s[k] == '\'';
	if (sep == '=')
		return (v = run_len(s + k)) ? (struct hit){ k, k + v } : (struct hit){ 0, 0 };
	for (size_t i = 0; i < COUNT(auth_schemes); i++)
		if (!strncasecmp(s + k, auth_schemes[i], strlen(auth_schemes[i]))) {
			k += strlen(auth_schemes[i]) + blanks(s + k + strlen(auth_schemes[i]));
			break; /* one scheme: "Bearer token x" is all secret after "Bearer " */
		}
	v = line_len(s + k);
	while (v && isspace((unsigned char)s[k + v - 1]))
		v--;
	return v ? (struct hit){ k, k + v } : (struct hit){ 0, 0 };
}

/* "://user:pass@host": the userinfo, up to the '@' before the path. */
static struct hit userinfo_at(const char *s)
{
	size_t at = 3;

	if (strncmp(s, "://", 3))
		return (struct hit){ 0, 0 };
	/* '[' ends it too: "://[REDACTED]@" has nothing left */
	while (s[at] && !isspace((unsigned char)s[at]) && !strchr("/?#@\"'[", s[at]))
		at++;
	return s[at] == '@' && at > 3 ? (struct hit){ 3, at } : (struct hit){ 0, 0 };
}

/* The secret starting at s (s[-1] is readable when s > start), or none. */
static struct hit secret_at(const char *s, const char *start, size_t *name_len)
{
	struct hit h = marker_at(s, start);

	*name_len = 0;
	if (h.len)
		return h;
	if ((h = userinfo_at(s)).len)
		return h;
	if (s > start && is_name_char(s[-1]))
		return h;
	while (is_name_char(s[*name_len]))
		(*name_len)++;
	return *name_len ? named_at(s, *name_len) : h;
}

char *xp_redact(const char *s)
{
	size_t len = strlen(s), o = 0, name;
	char *out = NULL;

	for (size_t i = 0; i < len;) {
		struct hit h = secret_at(s + i, s, &name);
		size_t plain = h.len ? 0 : name ? name : 1; /* a name that is no secret is copied whole */

		if (plain) {
			if (out)
				memcpy(out + o, s + i, plain), o += plain;
			i += plain;
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
		memcpy(out + o, s + i, h.keep);
		o += h.keep;
		memcpy(out + o, XP_SECRET_REDACTED, sizeof(XP_SECRET_REDACTED) - 1);
		o += sizeof(XP_SECRET_REDACTED) - 1;
		i += h.len;
	}
	if (out)
		out[o] = '\0';
	return out;
}

/* Length of the option of `opts` that arg is or starts with ("-HX", "--data=x"), or 0. */
static size_t option_of(const char *arg, const char *const *opts, size_t n, int glued)
{
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(opts[i]);

		if (strncmp(arg, opts[i], l))
			continue;
		if (!glued ? !arg[l] : (arg[l] && (opts[i][1] != '-' || arg[l] == '=')))
			return l + (arg[l] == '=');
	}
	return 0;
}

/* arg's first n bytes, then `rest` (NULL: "[REDACTED]"); NULL when memory ran out. */
static char *joined(const char *arg, size_t n, const char *rest)
{
	const char *tail = rest ? rest : XP_SECRET_REDACTED;
	char *r = malloc(n + strlen(tail) + 1);

	if (r) {
		memcpy(r, arg, n);
		strcpy(r + n, tail);
	}
	return r;
}

/* Whether opt, a whole argument, takes a secret (or, without payloads, a body) as its value. */
static int takes_secret(const char *opt, bool payloads)
{
	size_t n = strlen(opt);

	return *opt == '-' && !strchr(opt, '=') &&
	       (option_of(opt, secret_opts, COUNT(secret_opts), 0) ||
		(strspn(opt, "-_.abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") ==
			 n &&
		 xp_secret_name(opt, n)) ||
		(!payloads && option_of(opt, body_opts, COUNT(body_opts), 0)));
}

char *xp_redact_arg(const char *prev, const char *arg, bool payloads)
{
	size_t g = 0;
	char *r, *out;

	/* options only after argv[0] (a login shell is "-bash") */
	if (prev && takes_secret(prev, payloads))
		return strdup(XP_SECRET_REDACTED);
	if (prev && *arg == '-' &&
	    ((g = option_of(arg, secret_opts, COUNT(secret_opts), 1)) ||
	     (!payloads && (g = option_of(arg, body_opts, COUNT(body_opts), 1)))))
		return joined(arg, g, NULL);
	/* a glued header ("-HAuthorization: x"): the free-text rules on the header */
	if (prev && *arg == '-' && (g = option_of(arg, header_opts, COUNT(header_opts), 1))) {
		r = xp_redact(arg + g);
		out = joined(arg, g, r ? r : arg + g);
		free(r);
		return out;
	}
	/* env-style KEY=v, headers, URLs: the free-text rules */
	r = xp_redact(arg);
	return r ? r : strdup(arg);
}
