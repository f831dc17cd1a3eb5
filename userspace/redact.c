// SPDX-License-Identifier: MIT
/*
 * redact.c - credential header redaction (redact.h).
 *
 * Works line by line on raw bytes (never assumes NUL-terminated or valid
 * text): at each line start, a name from the table followed by optional
 * spaces and ':' makes the rest of the line, up to CR or LF, the value to
 * replace. The table is data: adding a header is one line.
 */
#include "userspace/redact.h"

#include "lib/secrets.h"

#include <ctype.h>
#include <string.h>

/* One rule for every writer: lib/secrets.h names the headers that carry secrets. */
bool xpc_redact_header_name(const char *name, size_t len)
{
	for (size_t i = 0; i < len; i++) /* a header name is a token ('{"key"' is a body) */
		if (!isalnum((unsigned char)name[i]) && name[i] != '-' && name[i] != '_')
			return false;
	return len && xp_secret_name(name, len);
}

/* At a line start: offset of the value of a credential header, or 0. */
static size_t secret_value_at(const char *p, size_t left)
{
	size_t name = 0, i;

	while (name < left && p[name] != ':' && p[name] != ' ' && p[name] != '\r' &&
	       p[name] != '\n')
		name++;
	if (!name || !xpc_redact_header_name(p, name))
		return 0;
	for (i = name; i < left && p[i] == ' '; i++)
		;
	return i < left && p[i] == ':' ? i + 1 : 0;
}

/* Append n bytes to out, cut at cap; returns the new length. */
static size_t put(char *out, size_t o, size_t cap, const char *s, size_t n)
{
	if (o >= cap)
		return o;
	if (n > cap - o)
		n = cap - o;
	memcpy(out + o, s, n);
	return o + n;
}

/* A request line ("GET /x?key=1 HTTP/1.1"): an upper-case method and a space. */
static bool request_line(const char *p, size_t n)
{
	size_t m = 0;

	while (m < n && p[m] >= 'A' && p[m] <= 'Z')
		m++;
	return m >= 3 && m < n && p[m] == ' ';
}

/* End of a query item starting at i: the next '&', blank or '#'. */
static size_t item_end(const char *p, size_t i, size_t n)
{
	while (i < n && p[i] != '&' && p[i] != ' ' && p[i] != '#')
		i++;
	return i;
}

/* A request line with the value of every query parameter named like a secret replaced. */
static size_t put_request(char *out, size_t o, size_t cap, const char *p, size_t n, size_t *nred)
{
	const char *q = memchr(p, '?', n);
	size_t i = q ? (size_t)(q - p) + 1 : n;

	o = put(out, o, cap, p, i);
	while (i < n) {
		size_t end = item_end(p, i, n);
		const char *eq = memchr(p + i, '=', end - i);

		if (eq && eq + 1 < p + end && xp_secret_name(p + i, (size_t)(eq - p) - i)) {
			o = put(out, o, cap, p + i, (size_t)(eq - p) + 1 - i);
			o = put(out, o, cap, XPC_REDACTED, sizeof(XPC_REDACTED) - 1);
			(*nred)++;
		} else {
			o = put(out, o, cap, p + i, end - i);
		}
		if (end >= n || p[end] != '&')
			return put(out, o, cap, p + end, n - end);
		o = put(out, o, cap, "&", 1);
		i = end + 1;
	}
	return o;
}

size_t xpc_redact_http1(const char *in, size_t len, char *out, size_t out_cap,
		       size_t *n_redacted)
{
	size_t i = 0, o = 0, n = 0;

	while (i < len) {
		size_t eol = i, v = secret_value_at(in + i, len - i);

		while (eol < len && in[eol] != '\n' && in[eol] != '\r')
			eol++;
		if (v) {
			o = put(out, o, out_cap, in + i, v);
			o = put(out, o, out_cap, " " XPC_REDACTED, sizeof(XPC_REDACTED));
			n++;
		} else if (request_line(in + i, eol - i)) {
			o = put_request(out, o, out_cap, in + i, eol - i, &n);
		} else {
			o = put(out, o, out_cap, in + i, eol - i);
		}
		i = eol;
		while (i < len && (in[i] == '\r' || in[i] == '\n'))
			o = put(out, o, out_cap, in + i++, 1);
	}
	if (n_redacted)
		*n_redacted = n;
	return o;
}
