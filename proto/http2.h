/* SPDX-License-Identifier: MIT */
/*
 * http2.h - incremental HTTP/2 parser for one direction of one connection
 * (RFC 9113): frame headers, HEADERS + CONTINUATION decoded through
 * libnghttp2's HPACK inflater (one per direction, as HPACK state is), DATA
 * passed on per stream, END_STREAM and RST_STREAM ending a stream. The client
 * connection preface is skipped. Messages are numbered by stream id.
 */
#ifndef XPERF_PROTO_HTTP2_H
#define XPERF_PROTO_HTTP2_H

#include "proto/msg.h"

#define XP_H2_MAX_FRAME (1u << 24)

struct nghttp2_hd_inflater;

struct pr_http2 {
	int is_response;
	int failed;
	size_t preface_left; /* bytes of the client preface still to skip */
	unsigned char fh[9]; /* frame header being read */
	size_t fh_len;
	uint32_t flen, fstream;
	uint8_t ftype, fflags;
	unsigned char *payload; /* frame payload being read */
	size_t pay_len, payload_cap;
	unsigned char *block; /* header block spread over CONTINUATION frames */
	size_t block_len, block_cap;
	uint32_t block_stream;
	int block_end_stream;
	struct nghttp2_hd_inflater *hd;
	const struct pr_msg_sink *sink;
};

/* 0, or -1 when the HPACK inflater cannot be made. */
int pr_http2_init(struct pr_http2 *p, int is_response, const struct pr_msg_sink *sink);
/* Feeds bytes read or written at t_ns. 0, or -1 once the stream is not valid HTTP/2. */
int pr_http2_feed(struct pr_http2 *p, const char *data, size_t len, uint64_t t_ns);
void pr_http2_free(struct pr_http2 *p);

/* The 24-byte client connection preface. */
extern const char pr_http2_preface[24];

#endif /* XPERF_PROTO_HTTP2_H */
