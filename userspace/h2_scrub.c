// SPDX-License-Identifier: MIT
/*
 * h2_scrub.c - HTTP/2 header blocks out of captured payloads (h2_scrub.h).
 * Each direction of a connection is a frame walker: 9 header bytes, then the
 * payload the header's length announces, zeroed for the frame types that
 * carry an HPACK block.
 */
#include "userspace/h2_scrub.h"

#include <stdlib.h>
#include <string.h>

#include "proto/http2.h"

#define H2_CONNS 512 /* connections followed at once; the least recently used goes */
#define FRAME_HEADER 9

enum { FRAME_HEADERS = 0x1, FRAME_PUSH_PROMISE = 0x5, FRAME_CONTINUATION = 0x9, FRAME_MAX = 0x9 };

struct h2_dir {
	uint64_t next;		/* stream position of the next byte expected */
	uint32_t left;		/* payload bytes left in the current frame */
	uint8_t fh[FRAME_HEADER], fh_len; /* the frame header being read */
	uint8_t in_payload, block; /* inside a payload; it is an HPACK block */
	uint8_t placed;		/* the frames are followed up to next */
	uint8_t preface;	/* client preface bytes still to skip */
};

struct h2_conn {
	uint32_t tgid;
	uint64_t ssl, used; /* used: 0 for a free slot */
	struct h2_dir d[2];
};

struct xpc_h2_scrub {
	uint64_t clock;
	size_t top; /* slots ever taken: conn[top..] are all free */
	struct h2_conn conn[H2_CONNS];
};

struct xpc_h2_scrub *xpc_h2_scrub_new(void)
{
	return calloc(1, sizeof(struct xpc_h2_scrub));
}

void xpc_h2_scrub_free(struct xpc_h2_scrub *s)
{
	free(s);
}

static struct h2_conn *find(struct xpc_h2_scrub *s, uint32_t tgid, uint64_t ssl)
{
	for (size_t i = 0; i < s->top; i++)
		if (s->conn[i].used && s->conn[i].tgid == tgid && s->conn[i].ssl == ssl)
			return &s->conn[i];
	return NULL;
}

/* A slot for a new connection: a free one, else the least recently used. */
static struct h2_conn *add(struct xpc_h2_scrub *s, uint32_t tgid, uint64_t ssl)
{
	struct h2_conn *c = &s->conn[0];

	for (size_t i = 0; i < H2_CONNS && c->used; i++)
		if (s->conn[i].used < c->used)
			c = &s->conn[i];
	if ((size_t)(c - s->conn) >= s->top)
		s->top = (size_t)(c - s->conn) + 1;
	memset(c, 0, sizeof(*c));
	c->tgid = tgid;
	c->ssl = ssl;
	return c;
}

/* Whether len bytes are whole frames of the types RFC 9113 defines, one at least. */
static int tiles(const unsigned char *buf, size_t len)
{
	size_t i = 0, frames = 0;

	while (i + FRAME_HEADER <= len) {
		if (buf[i + 3] > FRAME_MAX || buf[i + 5] & 0x80) /* reserved bit of the stream id */
			return 0;
		i += FRAME_HEADER + ((size_t)buf[i] << 16 | (size_t)buf[i + 1] << 8 | buf[i + 2]);
		frames++;
	}
	return frames && i == len;
}

/* The client preface, or as much of it as the record holds (4 bytes at least). */
static int starts_preface(const unsigned char *buf, size_t len)
{
	size_t n = len < sizeof(pr_http2_preface) ? len : sizeof(pr_http2_preface);

	return n >= 4 && !memcmp(buf, pr_http2_preface, n);
}

static size_t walk(struct h2_dir *d, unsigned char *buf, size_t len)
{
	size_t zeroed = 0, n;

	for (size_t i = 0; i < len; i += n) {
		n = 1;
		if (d->preface) {
			n = len - i < d->preface ? len - i : d->preface;
			d->preface -= (uint8_t)n;
		} else if (!d->in_payload) {
			d->fh[d->fh_len++] = buf[i];
			if (d->fh_len < FRAME_HEADER)
				continue;
			d->fh_len = 0;
			d->left = (uint32_t)d->fh[0] << 16 | (uint32_t)d->fh[1] << 8 | d->fh[2];
			d->block = d->fh[3] == FRAME_HEADERS || d->fh[3] == FRAME_PUSH_PROMISE ||
				   d->fh[3] == FRAME_CONTINUATION;
			d->in_payload = d->left > 0;
		} else {
			n = len - i < d->left ? len - i : d->left;
			if (d->block) {
				memset(buf + i, 0, n);
				zeroed += n;
			}
			d->left -= (uint32_t)n;
			d->in_payload = d->left > 0;
		}
	}
	return zeroed;
}

enum xpc_h2_verdict xpc_h2_scrub(struct xpc_h2_scrub *s, uint32_t tgid, uint64_t ssl, int dir,
			       uint64_t pos, unsigned char *buf, size_t len, size_t *zeroed)
{
	struct h2_conn *c = find(s, tgid, ssl);
	struct h2_dir *d;

	*zeroed = 0;
	if (c && dir == 0 && pos == 0) /* a new write stream: a new connection (the SSL* reused) */
		c = (c->used = 0, NULL);
	if (!c && dir == 0 && pos == 0 && starts_preface(buf, len)) {
		c = add(s, tgid, ssl);
		c->d[0].preface = sizeof(pr_http2_preface);
		c->d[0].placed = c->d[1].placed = 1; /* both streams from their start */
	} else if (!c && memchr(buf, 0, len) && tiles(buf, len)) {
		c = add(s, tgid, ssl); /* met in the middle: binary, frames from the first byte */
	}
	if (!c)
		return XPC_H2_PLAIN;
	c->used = ++s->clock;
	d = &c->d[dir & 1];
	if (!d->placed || pos != d->next) {
		if (!tiles(buf, len)) {
			d->placed = 0;
			return XPC_H2_WITHHELD;
		}
		*d = (struct h2_dir){ .placed = 1 };
	}
	*zeroed = walk(d, buf, len);
	d->next = pos + len;
	return XPC_H2_SCRUBBED;
}

void xpc_h2_scrub_end(struct xpc_h2_scrub *s, uint32_t tgid, uint64_t ssl)
{
	struct h2_conn *c = find(s, tgid, ssl);

	if (c)
		c->used = 0;
}
