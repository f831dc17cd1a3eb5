// SPDX-License-Identifier: MIT
/* json_out.c - JSON text without a tree (see json_out.h). */
#include "lib/json_out.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"

/* Room for n more bytes; false (and err set) when memory ran out. */
static bool room(struct xp_jout *j, size_t n)
{
	if (j->len + n > j->cap && !j->err && xp_grow((void **)&j->buf, &j->cap, j->len + n, 1))
		j->err = -ENOMEM;
	return !j->err;
}

static void put(struct xp_jout *j, const char *s, size_t n)
{
	if (room(j, n)) {
		memcpy(j->buf + j->len, s, n);
		j->len += n;
	}
}

/* s[0..n) as a JSON string. */
static void put_string(struct xp_jout *j, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t from = 0;

	put(j, "\"", 1);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = s[i];

		if (c >= 0x20 && c != '"' && c != '\\')
			continue; /* the common case, tested first: a byte that stands as it is */
		char esc[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };
		const char *short_esc = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\n' ? "\\n"
				      : c == '\t' ? "\\t" : c == '\r' ? "\\r" : c == '\b' ? "\\b"
				      : c == '\f' ? "\\f" : NULL;

		put(j, s + from, i - from);
		if (short_esc)
			put(j, short_esc, 2);
		else
			put(j, esc, sizeof(esc));
		from = i + 1;
	}
	put(j, s + from, n - from);
	put(j, "\"", 1);
}

/* The separator and "key": before a member (or just the separator for an element). */
static void member(struct xp_jout *j, const char *key)
{
	if (!j->first)
		put(j, ",", 1);
	j->first = false;
	if (key) {
		put_string(j, key, strlen(key));
		put(j, ":", 1);
	}
}

void xp_jout_reset(struct xp_jout *j)
{
	j->len = 0;
	j->err = 0;
	j->first = true;
}

void xp_jout_free(struct xp_jout *j)
{
	free(j->buf);
	*j = (struct xp_jout){ 0 };
}

void xp_jout_open(struct xp_jout *j, const char *key, char brace)
{
	member(j, key);
	put(j, &brace, 1);
	j->first = true;
}

void xp_jout_close(struct xp_jout *j, char brace)
{
	put(j, &brace, 1);
	j->first = false;
}

void xp_jout_u64(struct xp_jout *j, const char *key, uint64_t v)
{
	char d[20];
	size_t n = sizeof(d);

	member(j, key);
	do
		d[--n] = '0' + v % 10;
	while ((v /= 10));
	put(j, d + n, sizeof(d) - n);
}

void xp_jout_bool(struct xp_jout *j, const char *key, bool v)
{
	member(j, key);
	put(j, v ? "true" : "false", v ? 4 : 5);
}

void xp_jout_strn(struct xp_jout *j, const char *key, const char *s, size_t max)
{
	member(j, key);
	put_string(j, s, strnlen(s, max));
}

void xp_jout_str(struct xp_jout *j, const char *key, const char *s)
{
	xp_jout_strn(j, key, s, (size_t)-1);
}

void xp_jout_raw(struct xp_jout *j, const char *key, const char *text, size_t len)
{
	member(j, key);
	put(j, text, len);
}
