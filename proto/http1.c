/* SPDX-License-Identifier: MIT */
/*
 * http1.c - HTTP/1.1 framing (RFC 9112): head, Content-Length, chunked and
 * read-until-close bodies. Only what is needed to find message boundaries and
 * body bytes; header values other than the whitelisted ones are not kept.
 */
#include "proto/http1.h"

#include <stdlib.h>
#include <string.h>

void pr_http1_init(struct pr_http1 *p, int is_response, const struct pr_msg_sink *sink)
{
	memset(p, 0, sizeof(*p));
	p->is_response = is_response;
	p->sink = sink;
	p->state = XP_H1_HEAD;
}

static int fail(struct pr_http1 *p)
{
	p->state = XP_H1_ERROR;
	return -1;
}

static void end_msg(struct pr_http1 *p, int aborted, uint64_t t_ns)
{
	p->sink->end(p->sink->ctx, p->msg, aborted, t_ns);
	p->state = XP_H1_HEAD;
	p->buf_len = 0;
}

/* Parses the start line; 0 ok, -1 not HTTP. */
static int parse_start(struct pr_http1 *p, const char *line, size_t len)
{
	struct pr_http_head *h = &p->head;
	const char *sp = memchr(line, ' ', len);

	if (p->is_response) {
		if (len < 12 || memcmp(line, "HTTP/1.", 7))
			return -1;
		h->status = atoi(line + 9);
		return h->status >= 100 && h->status <= 999 ? 0 : -1;
	}
	if (!sp || sp == line || (size_t)(sp - line) >= sizeof(h->method))
		return -1;
	pr_head_copy(h->method, sizeof(h->method), line, sp - line);
	const char *path = sp + 1;
	const char *sp2 = memchr(path, ' ', len - (path - line));

	if (!sp2 || len - (sp2 + 1 - line) < 8 || memcmp(sp2 + 1, "HTTP/1.", 7))
		return -1;
	pr_head_copy(h->path, sizeof(h->path), path, sp2 - path);
	return 0;
}

/* Head complete in p->buf[0..len): decode it and choose the body framing. */
static int on_head(struct pr_http1 *p, size_t len, uint64_t t_ns)
{
	struct pr_http_head *h = &p->head;
	const char *s = p->buf, *end = p->buf + len;
	const char *eol = memchr(s, '\n', len);

	*h = (struct pr_http_head){ .content_length = -1 };
	if (!eol || parse_start(p, s, eol - s))
		return -1;
	for (s = eol + 1; s < end; s = eol + 1) {
		eol = memchr(s, '\n', end - s);
		if (!eol)
			break;
		const char *colon = memchr(s, ':', eol - s);

		if (colon)
			pr_head_set(h, s, colon - s, colon + 1, eol - colon - 1);
	}
	if (p->is_response && h->status < 200)
		return 0; /* 100 Continue and friends: not a message of their own */
	p->msg++;
	p->sink->head(p->sink->ctx, p->msg, h, t_ns);
	if (h->chunked) {
		p->state = XP_H1_CHUNK_SIZE;
	} else if (h->content_length > 0) {
		p->state = XP_H1_BODY_LEN;
		p->remaining = (uint64_t)h->content_length;
	} else if (p->is_response && h->content_length < 0 && h->status != 204 &&
		   h->status != 304) {
		p->state = XP_H1_BODY_EOF;
	} else {
		end_msg(p, 0, t_ns);
	}
	return 0;
}

/* Accumulates head bytes; returns bytes consumed or -1. */
static long feed_head(struct pr_http1 *p, const char *d, size_t len, uint64_t t_ns)
{
	size_t from = p->buf_len > 3 ? p->buf_len - 3 : 0;
	size_t take = len;

	if (take > sizeof(p->buf) - p->buf_len)
		take = sizeof(p->buf) - p->buf_len;
	memcpy(p->buf + p->buf_len, d, take);
	p->buf_len += take;
	for (size_t i = from; i + 4 <= p->buf_len; i++) {
		if (memcmp(p->buf + i, "\r\n\r\n", 4))
			continue;
		size_t used = i + 4 - (p->buf_len - take);

		if (on_head(p, i + 2, t_ns))
			return -1;
		p->buf_len = 0;
		return (long)used;
	}
	if (p->buf_len == sizeof(p->buf))
		return -1; /* a head this large is not an LLM API exchange */
	return (long)take;
}

/* Accumulates one CRLF-terminated line (chunk size or trailer); consumed or -1. */
static long feed_line(struct pr_http1 *p, const char *d, size_t len, uint64_t t_ns)
{
	const char *nl = memchr(d, '\n', len);
	size_t take = nl ? (size_t)(nl - d) + 1 : len;

	if (p->buf_len + take > 1024)
		return -1;
	memcpy(p->buf + p->buf_len, d, take);
	p->buf_len += take;
	if (!nl)
		return (long)take;
	p->buf[p->buf_len] = '\0';
	if (p->state == XP_H1_CHUNK_SIZE) {
		char *endp;
		unsigned long long n = strtoull(p->buf, &endp, 16);

		if (endp == p->buf)
			return -1;
		p->buf_len = 0;
		p->remaining = n;
		p->state = n ? XP_H1_CHUNK_DATA : XP_H1_TRAILER;
	} else if (p->state == XP_H1_CHUNK_CRLF) {
		if (p->buf_len > 2)
			return -1;
		p->buf_len = 0;
		p->state = XP_H1_CHUNK_SIZE;
	} else { /* trailer lines until an empty one */
		int empty = p->buf_len <= 2;

		p->buf_len = 0;
		if (empty)
			end_msg(p, 0, t_ns);
	}
	return (long)take;
}

/* Body bytes counted (passed on or lost): the end of a length or chunk. */
static void body_advanced(struct pr_http1 *p, uint64_t t_ns)
{
	if (p->remaining > 0)
		return;
	if (p->state == XP_H1_BODY_LEN)
		end_msg(p, 0, t_ns);
	else
		p->state = XP_H1_CHUNK_CRLF;
}

static size_t feed_body(struct pr_http1 *p, const char *d, size_t len, uint64_t t_ns)
{
	size_t take = len;

	if (p->state != XP_H1_BODY_EOF && take > p->remaining)
		take = (size_t)p->remaining;
	if (take)
		p->sink->body(p->sink->ctx, p->msg, d, take, t_ns);
	if (p->state == XP_H1_BODY_EOF)
		return take;
	p->remaining -= take;
	body_advanced(p, t_ns);
	return take;
}

int pr_http1_feed(struct pr_http1 *p, const char *data, size_t len, uint64_t t_ns)
{
	while (len > 0) {
		long used;

		switch (p->state) {
		case XP_H1_ERROR:
			return -1;
		case XP_H1_HEAD:
			used = feed_head(p, data, len, t_ns);
			break;
		case XP_H1_CHUNK_SIZE:
		case XP_H1_CHUNK_CRLF:
		case XP_H1_TRAILER:
			used = feed_line(p, data, len, t_ns);
			break;
		default:
			used = (long)feed_body(p, data, len, t_ns);
			break;
		}
		if (used < 0)
			return fail(p);
		data += used;
		len -= (size_t)used;
	}
	return p->state == XP_H1_ERROR ? -1 : 0;
}

int pr_http1_skip(struct pr_http1 *p, size_t n, uint64_t t_ns)
{
	if (p->state == XP_H1_BODY_EOF)
		return 0;
	if ((p->state != XP_H1_BODY_LEN && p->state != XP_H1_CHUNK_DATA) || n > p->remaining)
		return fail(p);
	p->remaining -= n;
	body_advanced(p, t_ns);
	return 0;
}

void pr_http1_close(struct pr_http1 *p, uint64_t t_ns)
{
	if (p->state == XP_H1_BODY_EOF)
		end_msg(p, 0, t_ns);
	else if (p->state != XP_H1_HEAD && p->state != XP_H1_ERROR)
		end_msg(p, 1, t_ns);
	p->state = XP_H1_ERROR;
}
