// SPDX-License-Identifier: MIT
/*
 * h2_scrub_test.c - an HTTP/2 client stream (preface, SETTINGS, HEADERS
 * with a key in a literal, CONTINUATION, DATA) and a server stream
 * (SETTINGS, HEADERS with a cookie, DATA), cut into two records at every
 * point: every header-block byte zeroed, every other byte kept. Bytes lost
 * before a record that does not start at a frame: withheld, placed again at
 * the next that frames tile. HTTP/1 text, and a new connection on a reused
 * SSL*, are left to the HTTP/1 redactor; a connection met mid-stream
 * (attach) is followed from a record of whole frames.
 */
#define _GNU_SOURCE /* memmem */
#include "userspace/h2_scrub.h"

#include <string.h>

#include "lib/test_check.h"

#define SECRET "LEAKMEh2secret"

static const char body[] = "{\"messages\":[{\"content\":\"hi\"}]}";
#define DATA_FRAME (9 + sizeof(body) - 1) /* the client stream's last frame */

static size_t frame(unsigned char *out, unsigned type, unsigned flags, unsigned stream,
		    const void *payload, size_t len)
{
	unsigned char h[9] = { len >> 16, len >> 8, len, type, flags,
			       stream >> 24, stream >> 16, stream >> 8, stream };

	memcpy(out, h, 9);
	memcpy(out + 9, payload, len);
	return 9 + len;
}

/* HPACK literal without indexing, new name: the value in clear (no Huffman). */
static size_t literal(unsigned char *out, const char *name, const char *value)
{
	size_t n = strlen(name), v = strlen(value);

	out[0] = 0x00;
	out[1] = (unsigned char)n;
	memcpy(out + 2, name, n);
	out[2 + n] = (unsigned char)v;
	memcpy(out + 3 + n, value, v);
	return 3 + n + v;
}

/* The client's stream; block[i]: byte i is in a header block. */
static size_t client(unsigned char *s, unsigned char *block)
{
	unsigned char hb[128], settings[6] = { 0, 3, 0, 0, 0, 100 };
	size_t n = 0, k = literal(hb, "x-api-key", SECRET), at;

	memset(block, 0, 1024);
	memcpy(s, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 24);
	n = 24;
	n += frame(s + n, 0x4, 0, 0, settings, sizeof(settings));
	at = n + 9;
	n += frame(s + n, 0x1, 0x0, 1, hb, 10); /* HEADERS: the block's start */
	memset(block + at, 1, 10);
	at = n + 9;
	n += frame(s + n, 0x9, 0x4, 1, hb + 10, k - 10); /* CONTINUATION, END_HEADERS */
	memset(block + at, 1, k - 10);
	n += frame(s + n, 0x0, 0x1, 1, body, sizeof(body) - 1);
	return n;
}

static size_t server(unsigned char *s, unsigned char *block)
{
	unsigned char hb[128];
	size_t n = 0, k = literal(hb, "set-cookie", "s=" SECRET);

	memset(block, 0, 1024);
	n += frame(s + n, 0x4, 0, 0, "", 0);
	memset(block + n + 9, 1, k);
	n += frame(s + n, 0x1, 0x4, 1, hb, k);
	n += frame(s + n, 0x0, 0x1, 1, "event: x\n\n", 10);
	return n;
}

/* The stream in two records cut at `cut`: block bytes zeroed, the rest kept. */
static void check_cut(struct xpc_h2_scrub *s, uint64_t ssl, int dir, const unsigned char *in,
		      const unsigned char *block, size_t len, size_t cut)
{
	unsigned char out[1024];
	size_t z1, z2, want = 0;

	memcpy(out, in, len);
	CHECK(xpc_h2_scrub(s, 7, ssl, dir, 0, out, cut, &z1) == XPC_H2_SCRUBBED, "cut %zu", cut);
	CHECK(xpc_h2_scrub(s, 7, ssl, dir, cut, out + cut, len - cut, &z2) == XPC_H2_SCRUBBED,
	      "cut %zu, second", cut);
	for (size_t i = 0; i < len; i++) {
		want += block[i];
		CHECK(block[i] ? !out[i] : out[i] == in[i], "dir %d cut %zu: byte %zu", dir, cut, i);
	}
	CHECK(z1 + z2 == want, "dir %d cut %zu: %zu zeroed, %zu in blocks", dir, cut, z1 + z2,
	      want);
}

static void check_streams(void)
{
	unsigned char c[1024], cb[1024], sv[1024], sb[1024];
	size_t cn = client(c, cb), sn = server(sv, sb);

	for (size_t cut = 4; cut < cn; cut++) {
		struct xpc_h2_scrub *s = xpc_h2_scrub_new();

		check_cut(s, 0x1000 + cut, 0, c, cb, cn, cut);
		if (cut < sn)
			check_cut(s, 0x1000 + cut, 1, sv, sb, sn, cut);
		xpc_h2_scrub_free(s);
	}
}

static void check_lost_and_plain(void)
{
	struct xpc_h2_scrub *s = xpc_h2_scrub_new();
	unsigned char c[1024], cb[1024], buf[1024];
	char http1[] = "POST /v1/messages?key=" SECRET " HTTP/1.1\r\n";
	size_t cn = client(c, cb), z, first = 24 + 9 + 6; /* preface + SETTINGS */

	memcpy(buf, c, cn);
	CHECK(xpc_h2_scrub(s, 7, 1, 0, 0, buf, first, &z) == XPC_H2_SCRUBBED);
	/* bytes lost: a record in the middle of the HEADERS frame cannot be placed */
	CHECK(xpc_h2_scrub(s, 7, 1, 0, first + 100, buf + first + 3, 20, &z) == XPC_H2_WITHHELD);
	/* the next record of whole frames is placed again (the DATA frame) */
	CHECK(xpc_h2_scrub(s, 7, 1, 0, 5000, buf + cn - DATA_FRAME, DATA_FRAME, &z) ==
	      XPC_H2_SCRUBBED && !z, "DATA after a loss: %zu zeroed", z);
	/* HTTP/1 text on another connection */
	CHECK(xpc_h2_scrub(s, 7, 2, 0, 0, (unsigned char *)http1, strlen(http1), &z) ==
	      XPC_H2_PLAIN);
	/* the SSL* reused for an HTTP/1 connection: a new write stream from 0 */
	CHECK(xpc_h2_scrub(s, 7, 1, 0, 0, (unsigned char *)http1, strlen(http1), &z) ==
	      XPC_H2_PLAIN);
	/* met in the middle: a record of whole frames (the HEADERS and CONTINUATION) */
	memcpy(buf, c, cn);
	CHECK(xpc_h2_scrub(s, 8, 3, 0, 900, buf + first, cn - first - DATA_FRAME, &z) ==
	      XPC_H2_SCRUBBED);
	CHECK(!memmem(buf, cn, SECRET, strlen(SECRET)), "the key left in a frame met mid-stream");
	/* ended: its state goes, the same SSL* is a new connection */
	xpc_h2_scrub_end(s, 8, 3);
	CHECK(xpc_h2_scrub(s, 8, 3, 1, 900, (unsigned char *)http1, strlen(http1), &z) ==
	      XPC_H2_PLAIN);
	xpc_h2_scrub_free(s);
}

int main(void)
{
	check_streams();
	check_lost_and_plain();
	return test_failures != 0;
}
