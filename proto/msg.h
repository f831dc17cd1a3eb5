/* SPDX-License-Identifier: MIT */
/*
 * msg.h - what the HTTP/1.1 and HTTP/2 parsers hand on: a message head, body
 * bytes (already de-chunked / de-framed) and the end of the message, each with
 * the kernel timestamp of the read or write that carried it. Messages are
 * numbered per connection: the HTTP/2 stream id, or the 1-based position of
 * the message in its direction for HTTP/1.1 (request n pairs with response n).
 * Only the headers xperf needs are kept; authorization headers and API keys
 * are never copied anywhere.
 */
#ifndef XPERF_PROTO_MSG_H
#define XPERF_PROTO_MSG_H

#include <stddef.h>
#include <stdint.h>

struct pr_http_head {
	int status;           /* responses: the status code */
	char method[16];      /* requests */
	char path[256];       /* requests: the path (query included) */
	char authority[256];  /* Host or :authority */
	char content_type[64];
	char retry_after[32];
	char content_encoding[32]; /* gzip, br, zstd, deflate; "" for none */
	char session_id[128];      /* a session-id header the agent sends (msg.c's list) */
	int64_t content_length; /* -1 when absent */
	int chunked;
};

struct pr_msg_sink {
	void (*head)(void *ctx, uint32_t msg, const struct pr_http_head *h, uint64_t t_ns);
	void (*body)(void *ctx, uint32_t msg, const char *data, size_t len, uint64_t t_ns);
	/* aborted: the message ended because the connection closed before its end */
	void (*end)(void *ctx, uint32_t msg, int aborted, uint64_t t_ns);
	void *ctx;
};

/* Copies a header value into dst (NUL-terminated, cut to fit). */
void pr_head_copy(char *dst, size_t cap, const char *src, size_t len);
/*
 * Stores one header of a message head if xperf keeps it (names compared
 * case-insensitively; HTTP/2 pseudo-headers included). Everything else,
 * authorization and cookies in particular, is dropped.
 */
void pr_head_set(struct pr_http_head *h, const char *name, size_t nlen, const char *val,
		 size_t vlen);

#endif /* XPERF_PROTO_MSG_H */
