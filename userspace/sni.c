// SPDX-License-Identifier: MIT
/*
 * sni.c - server name from a TLS ClientHello (RFC 8446 4.1.2, RFC 6066 3).
 *
 * Layout walked: record header (type 22, version, length), handshake
 * header (type 1, 24-bit length), legacy_version, random[32],
 * session_id<0..32>, cipher_suites<2..2^16-2>, compression<1..2^8-1>,
 * extensions<8..2^16-1>; extension 0 (server_name) holds a list of
 * (name_type, HostName<1..2^16-1>). A cursor of offsets makes every read
 * bounds-checked with no pointer arithmetic past the buffer: running out
 * of captured bytes is TRUNCATED, a length that overflows its enclosing
 * field is INVALID.
 */
#include "userspace/sni.h"

#include <string.h>

#define TLS_HANDSHAKE 22
#define HS_CLIENT_HELLO 1
#define EXT_SERVER_NAME 0
#define NAME_TYPE_HOST 0

/* Offsets into the capture: pos; cap = bytes captured; lim = field end (may pass cap). */
struct cur {
	const uint8_t *b;
	size_t pos, cap, lim;
};

/* Skip len bytes: -1 past the capture, -2 past lim. */
static long skip(struct cur *c, size_t len)
{
	if (c->lim - c->pos < len)
		return -2;
	if (c->cap < c->pos + len)
		return -1;
	c->pos += len;
	return 0;
}

/* Take n bytes as a big-endian number; -1 past the capture, -2 past lim. */
static long take(struct cur *c, size_t n)
{
	long err = skip(c, n), v = 0;

	if (err)
		return err;
	for (size_t i = c->pos - n; i < c->pos; i++)
		v = v << 8 | c->b[i];
	return v;
}

/* Skip a vector with an n-byte length prefix. */
static long skip_vec(struct cur *c, size_t n)
{
	long len = take(c, n);

	return len < 0 ? len : skip(c, len);
}

/* Narrow the cursor to a field of len bytes; -2 when it overflows lim. */
static long enter(struct cur *c, long len)
{
	if (len < 0)
		return len;
	if (c->lim - c->pos < (size_t)len)
		return -2;
	c->lim = c->pos + len;
	return 0;
}

static enum xpc_sni_result fail(long r)
{
	return r == -1 ? XPC_SNI_TRUNCATED : XPC_SNI_INVALID;
}

/* The server_name extension body: copy the first host_name. */
static enum xpc_sni_result host_name(struct cur c, char *out)
{
	long r = enter(&c, take(&c, 2)), type, n;

	if (r < 0)
		return fail(r);
	type = take(&c, 1);
	n = take(&c, 2);
	if (type < 0 || n < 0)
		return fail(type < 0 ? type : n);
	if (type != NAME_TYPE_HOST || n == 0 || n >= XPC_SNI_MAX || c.lim - c.pos < (size_t)n)
		return XPC_SNI_INVALID;
	if (c.cap < c.pos + n)
		return XPC_SNI_TRUNCATED;
	for (long i = 0; i < n; i++)
		if (c.b[c.pos + i] <= 0x20 || c.b[c.pos + i] >= 0x7f)
			return XPC_SNI_INVALID;
	memcpy(out, c.b + c.pos, n);
	out[n] = '\0';
	return XPC_SNI_OK;
}

static enum xpc_sni_result extensions(struct cur c, char *out)
{
	long r;

	if (c.pos == c.lim)
		return XPC_SNI_ABSENT;	/* TLS 1.0 style: no extensions at all */
	r = enter(&c, take(&c, 2));
	if (r < 0)
		return fail(r);
	while (c.pos < c.lim) {
		long type = take(&c, 2), len = take(&c, 2);
		struct cur body;

		if (type < 0 || len < 0)
			return fail(type < 0 ? type : len);
		body = c;
		r = enter(&body, len);
		if (r < 0)
			return fail(r);
		if (type == EXT_SERVER_NAME)
			return host_name(body, out);
		r = skip(&c, len);
		if (r < 0)
			return fail(r);
	}
	return XPC_SNI_ABSENT;
}

enum xpc_sni_result xpc_sni_parse(const uint8_t *buf, size_t len, char out[XPC_SNI_MAX])
{
	struct cur c = { buf, 0, len, (size_t)-1 };
	long r;

	out[0] = '\0';
	if (len >= 1 && buf[0] != TLS_HANDSHAKE)
		return XPC_SNI_NOT_TLS;
	if (len < 6)
		return XPC_SNI_TRUNCATED;
	if (buf[1] != 3 || buf[5] != HS_CLIENT_HELLO)
		return XPC_SNI_NOT_TLS;
	c.pos = 3;
	r = skip(&c, 2 + 1);			/* record length (a ClientHello may span
						 * records), handshake type (checked) */
	r = r < 0 ? r : enter(&c, take(&c, 3));	/* the ClientHello */
	r = r < 0 ? r : skip(&c, 2 + 32);	/* legacy_version, random */
	r = r < 0 ? r : skip_vec(&c, 1);	/* session_id */
	r = r < 0 ? r : skip_vec(&c, 2);	/* cipher_suites */
	r = r < 0 ? r : skip_vec(&c, 1);	/* compression_methods */
	if (r < 0)
		return fail(r);
	return extensions(c, out);
}

const char *xpc_sni_result_str(enum xpc_sni_result r)
{
	static const char *const names[] = { "ok", "absent", "truncated", "not-tls", "invalid" };

	return (unsigned int)r < sizeof(names) / sizeof(names[0]) ? names[r] : "?";
}
