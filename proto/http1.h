/* SPDX-License-Identifier: MIT */
/*
 * http1.h - incremental HTTP/1.1 parser for one direction of one connection.
 * Bytes arrive in any split (one byte at a time works); the parser keeps just
 * the unfinished head or chunk-size line between calls. Bodies are passed on
 * de-chunked as they arrive, so a first token in the same read as the
 * response head reaches the sink in that same call. Bytes the capture did not
 * keep (a record cut at its cap) can be skipped inside a body without losing
 * the framing.
 */
#ifndef XPERF_PROTO_HTTP1_H
#define XPERF_PROTO_HTTP1_H

#include "proto/msg.h"

#define XP_H1_HEAD_MAX 16384

enum pr_h1_state {
	XP_H1_HEAD,
	XP_H1_BODY_LEN,
	XP_H1_CHUNK_SIZE,
	XP_H1_CHUNK_DATA,
	XP_H1_CHUNK_CRLF,
	XP_H1_TRAILER,
	XP_H1_BODY_EOF,
	XP_H1_ERROR,
};

struct pr_http1 {
	enum pr_h1_state state;
	int is_response; /* this direction carries responses */
	uint32_t msg;    /* number of the current message (1-based) */
	uint64_t remaining;
	size_t buf_len;
	struct pr_http_head head;
	const struct pr_msg_sink *sink;
	char buf[XP_H1_HEAD_MAX];
};

/* Prepares a parser; sink callbacks get sink->ctx. */
void pr_http1_init(struct pr_http1 *p, int is_response, const struct pr_msg_sink *sink);
/* Feeds bytes read or written at t_ns. 0, or -1 once the stream is not HTTP/1.1. */
int pr_http1_feed(struct pr_http1 *p, const char *data, size_t len, uint64_t t_ns);
/* Accounts for n body bytes the capture lost. 0, or -1 if not inside a body (framing lost). */
int pr_http1_skip(struct pr_http1 *p, size_t n, uint64_t t_ns);
/* The connection closed: ends a read-until-close body, aborts a partial one. */
void pr_http1_close(struct pr_http1 *p, uint64_t t_ns);

#endif /* XPERF_PROTO_HTTP1_H */
