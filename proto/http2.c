/* SPDX-License-Identifier: MIT */
/*
 * http2.c - HTTP/2 framing over the HPACK inflater of libnghttp2. A frame is
 * gathered whole (at most 16 MiB, the protocol's limit) before it is handled,
 * so any split of the reads gives the same result.
 */
#include "proto/http2.h"

#include <nghttp2/nghttp2.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"

const char pr_http2_preface[24] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

enum { F_DATA = 0, F_HEADERS = 1, F_RST_STREAM = 3, F_CONTINUATION = 9 };
enum { FL_END_STREAM = 0x1, FL_END_HEADERS = 0x4, FL_PADDED = 0x8, FL_PRIORITY = 0x20 };

int pr_http2_init(struct pr_http2 *p, int is_response, const struct pr_msg_sink *sink)
{
	*p = (struct pr_http2){ .is_response = is_response, .sink = sink,
				.preface_left = is_response ? 0 : sizeof(pr_http2_preface) };
	return nghttp2_hd_inflate_new(&p->hd) ? -1 : 0;
}

void pr_http2_free(struct pr_http2 *p)
{
	if (p->hd)
		nghttp2_hd_inflate_del(p->hd);
	free(p->payload);
	free(p->block);
	*p = (struct pr_http2){ 0 };
}

/* Decodes a complete header block; -1 on an HPACK error. */
static int decode_block(struct pr_http2 *p, uint64_t t_ns)
{
	struct pr_http_head h = { .content_length = -1 };
	const uint8_t *in = p->block;
	size_t left = p->block_len;

	for (;;) {
		nghttp2_nv nv;
		int flags = 0;
		ssize_t used = nghttp2_hd_inflate_hd2(p->hd, &nv, &flags, in, left, 1);

		if (used < 0)
			return -1;
		in += used;
		left -= (size_t)used;
		if (flags & NGHTTP2_HD_INFLATE_EMIT)
			pr_head_set(&h, (const char *)nv.name, nv.namelen, (const char *)nv.value,
				    nv.valuelen);
		if (flags & NGHTTP2_HD_INFLATE_FINAL) {
			nghttp2_hd_inflate_end_headers(p->hd);
			break;
		}
		if (used == 0 && left == 0)
			break;
	}
	/* Informational (1xx) heads and trailers carry no message start. */
	if (!p->is_response || h.status >= 200)
		if (h.status || h.method[0])
			p->sink->head(p->sink->ctx, p->block_stream, &h, t_ns);
	if (p->block_end_stream)
		p->sink->end(p->sink->ctx, p->block_stream, 0, t_ns);
	p->block_len = 0;
	return 0;
}

static int append_block(struct pr_http2 *p, const unsigned char *d, size_t n)
{
	if (p->block_len + n > XP_H2_MAX_FRAME)
		return -1;
	return xp_buf_append((char **)&p->block, &p->block_len, &p->block_cap, d, n);
}

/* Strips padding (and the priority fields of HEADERS); -1 when malformed. */
static int unpad(struct pr_http2 *p, const unsigned char **d, size_t *n)
{
	size_t pad = 0;

	if (p->fflags & FL_PADDED) {
		if (*n < 1)
			return -1;
		pad = (*d)[0];
		(*d)++;
		(*n)--;
	}
	if (p->ftype == F_HEADERS && (p->fflags & FL_PRIORITY)) {
		if (*n < 5)
			return -1;
		*d += 5;
		*n -= 5;
	}
	if (pad > *n)
		return -1;
	*n -= pad;
	return 0;
}

static int on_frame(struct pr_http2 *p, uint64_t t_ns)
{
	const unsigned char *d = p->payload;
	size_t n = p->flen;

	switch (p->ftype) {
	case F_DATA:
		if (unpad(p, &d, &n))
			return -1;
		if (n)
			p->sink->body(p->sink->ctx, p->fstream, (const char *)d, n, t_ns);
		if (p->fflags & FL_END_STREAM)
			p->sink->end(p->sink->ctx, p->fstream, 0, t_ns);
		return 0;
	case F_HEADERS:
		if (unpad(p, &d, &n))
			return -1;
		p->block_len = 0;
		p->block_stream = p->fstream;
		p->block_end_stream = p->fflags & FL_END_STREAM;
		/* fall through */
	case F_CONTINUATION:
		if (p->fstream != p->block_stream || append_block(p, d, n))
			return -1;
		return (p->fflags & FL_END_HEADERS) ? decode_block(p, t_ns) : 0;
	case F_RST_STREAM:
		p->sink->end(p->sink->ctx, p->fstream, 1, t_ns);
		return 0;
	default: /* SETTINGS, PING, WINDOW_UPDATE, GOAWAY, PRIORITY: no message data */
		return 0;
	}
}

/* Reads frame header then payload; bytes consumed or -1. */
static long feed_frame(struct pr_http2 *p, const char *data, size_t len)
{
	size_t take;

	if (p->fh_len < 9) {
		take = 9 - p->fh_len < len ? 9 - p->fh_len : len;
		memcpy(p->fh + p->fh_len, data, take);
		p->fh_len += take;
		if (p->fh_len < 9)
			return (long)take;
		p->flen = (uint32_t)p->fh[0] << 16 | (uint32_t)p->fh[1] << 8 | p->fh[2];
		p->ftype = p->fh[3];
		p->fflags = p->fh[4];
		p->fstream = ((uint32_t)p->fh[5] << 24 | (uint32_t)p->fh[6] << 16 |
			      (uint32_t)p->fh[7] << 8 | p->fh[8]) & 0x7fffffff;
		p->pay_len = 0;
		return xp_grow((void **)&p->payload, &p->payload_cap, 1, 1) ? -1 : (long)take;
	}
	take = p->flen - p->pay_len < len ? p->flen - p->pay_len : len;
	/* Grown as bytes arrive: a header alone may claim 16 MiB, and non-HTTP/2 bytes often do. */
	if (xp_grow((void **)&p->payload, &p->payload_cap, p->pay_len + take, 1))
		return -1;
	memcpy(p->payload + p->pay_len, data, take);
	p->pay_len += take;
	return (long)take;
}

int pr_http2_feed(struct pr_http2 *p, const char *data, size_t len, uint64_t t_ns)
{
	while (len > 0 && !p->failed) {
		if (p->preface_left) {
			size_t off = sizeof(pr_http2_preface) - p->preface_left;
			size_t take = p->preface_left < len ? p->preface_left : len;

			if (memcmp(data, pr_http2_preface + off, take))
				p->failed = 1;
			p->preface_left -= take;
			data += take;
			len -= take;
			continue;
		}
		long used = feed_frame(p, data, len);

		if (used < 0) {
			p->failed = 1;
			break;
		}
		data += used;
		len -= (size_t)used;
		if (p->fh_len == 9 && p->pay_len == p->flen) {
			p->fh_len = 0;
			if (on_frame(p, t_ns))
				p->failed = 1;
		}
	}
	return p->failed ? -1 : 0;
}
