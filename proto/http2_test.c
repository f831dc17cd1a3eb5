/* SPDX-License-Identifier: MIT */
/*
 * http2_test.c - HTTP/2 exchanges built with libnghttp2's HPACK deflater
 * (the encoder real clients use), replayed across every split: two streams
 * interleaved, CONTINUATION, padding, a stream reset, the first token in the
 * same read as the response HEADERS.
 */
#define _GNU_SOURCE
#include <nghttp2/nghttp2.h>
#include <stdlib.h>
#include <string.h>

#include "lib/test_check.h"
#include "proto/split_feed.h"

static char wire[2][8192];
static size_t wire_len[2];

static void frame(int dir, uint8_t type, uint8_t flags, uint32_t stream, const void *p, size_t n)
{
	unsigned char *w = (unsigned char *)wire[dir] + wire_len[dir];

	w[0] = (unsigned char)(n >> 16);
	w[1] = (unsigned char)(n >> 8);
	w[2] = (unsigned char)n;
	w[3] = type;
	w[4] = flags;
	w[5] = (unsigned char)(stream >> 24);
	w[6] = (unsigned char)(stream >> 16);
	w[7] = (unsigned char)(stream >> 8);
	w[8] = (unsigned char)stream;
	memcpy(w + 9, p, n);
	wire_len[dir] += 9 + n;
}

#define NV(n, v) { (uint8_t *)(n), (uint8_t *)(v), sizeof(n) - 1, sizeof(v) - 1, 0 }

static size_t deflate(nghttp2_hd_deflater *d, unsigned char *out, nghttp2_nv *nv, size_t n)
{
	ssize_t k = nghttp2_hd_deflate_hd(d, out, 1024, nv, n);

	CHECK(k > 0);
	return k > 0 ? (size_t)k : 0;
}

static void build(void)
{
	nghttp2_hd_deflater *dreq, *dresp;
	unsigned char blk[1024];
	nghttp2_nv req[] = { NV(":method", "POST"), NV(":path", "/v1/messages"),
			     NV(":scheme", "https"), NV(":authority", "api.anthropic.com"),
			     NV("authorization", "Bearer sk-secret") };
	nghttp2_nv resp[] = { NV(":status", "200"), NV("content-type", "text/event-stream") };
	const char *body = "{\"model\":\"claude-h2\",\"stream\":true}";
	const char *ev1 = "event: message_start\ndata: {\"message\":{\"usage\":{\"input_tokens\":7}}}"
			  "\n\nevent: content_block_delta\ndata: {}\n\n";
	const char *ev2 = "event: content_block_delta\ndata: {}\n\nevent: message_delta\ndata: "
			  "{\"usage\":{\"output_tokens\":2},\"delta\":{\"stop_reason\":\"end_turn\"}}"
			  "\n\nevent: message_stop\ndata: {}\n\n";
	unsigned char padded[64] = { 3, '{', '}', 0, 0, 0 };
	size_t n;

	nghttp2_hd_deflate_new(&dreq, 4096);
	nghttp2_hd_deflate_new(&dresp, 4096);
	memcpy(wire[0], "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 24);
	wire_len[0] = 24;
	frame(0, 4, 0, 0, "", 0); /* SETTINGS */
	n = deflate(dreq, blk, req, 5);
	frame(0, 1, 0x4, 1, blk, n);
	frame(0, 0, 0x1, 1, body, strlen(body));
	/* stream 3: HEADERS split over CONTINUATION (dynamic table in use), padded DATA */
	n = deflate(dreq, blk, req, 5);
	frame(0, 1, 0, 3, blk, 2);
	frame(0, 9, 0x4, 3, blk + 2, n - 2);
	frame(0, 0, 0x1 | 0x8, 3, padded, 6);
	/* responses; stream 1's first token rides in the read of its HEADERS */
	frame(1, 4, 0, 0, "", 0);
	n = deflate(dresp, blk, resp, 2);
	frame(1, 1, 0x4, 1, blk, n);
	frame(1, 0, 0, 1, ev1, strlen(ev1));
	frame(1, 0, 0x1, 1, ev2, strlen(ev2));
	n = deflate(dresp, blk, resp, 2);
	frame(1, 1, 0x4, 3, blk, n);
	frame(1, 3, 0, 3, "\0\0\0\x08", 4); /* RST_STREAM CANCEL */
	nghttp2_hd_deflate_del(dreq);
	nghttp2_hd_deflate_del(dresp);
}

static struct pr_llm_exchange got[4];
static uint64_t first_tok[4];
static int n_got;

static void on_ex(void *ctx, struct pr_llm_exchange *ex)
{
	(void)ctx;
	if (n_got < 4) {
		got[n_got] = *ex;
		first_tok[n_got] = ex->call.n_tokens ? ex->call.token_ns[0] : 0;
		got[n_got].call.token_ns = NULL;
		n_got++;
	}
}

int main(void)
{
	static const struct pr_llm_conn_cfg cfg;

	build();
	/* the response's first read: SETTINGS + HEADERS + first DATA frame */
	const char *ev1_end = memmem(wire[1], wire_len[1], "data: {}\n\n", 10);
	size_t first_read = (size_t)(ev1_end - wire[1]) + 10;
	for (size_t i = 0; i < pr_piece_count; i++) {
		const struct pr_chunk ch[] = {
			{ XP_DIR_REQUEST, wire[0], wire_len[0], 100 },
			{ XP_DIR_RESPONSE, wire[1], first_read, 200 },
			{ XP_DIR_RESPONSE, wire[1] + first_read, wire_len[1] - first_read, 300 },
		};
		struct pr_llm_conn *c = pr_llm_conn_new(&cfg);

		n_got = 0;
		pr_feed_split(c, ch, 3, pr_piece_sizes[i]);
		pr_take(c, on_ex, NULL);
		CHECK(c->proto == 2);
		pr_llm_conn_free(c);
		CHECK(n_got == 2);
		CHECK(got[0].msg == 1 && got[0].call.status == 200 && got[0].call.stream);
		CHECK(!strcmp(got[0].call.req_model, "claude-h2"));
		CHECK(!strcmp(got[0].host, "api.anthropic.com") && !strcmp(got[0].path, "/v1/messages"));
		CHECK(got[0].call.n_tokens == 2 && first_tok[0] == 200);
		CHECK(got[0].call.input_tokens == 7 && got[0].call.output_tokens == 2);
		CHECK(!got[0].aborted && got[0].resp_end_ns == 300 && got[0].req_bytes == 35);
		CHECK(got[1].msg == 3 && got[1].aborted && got[1].req_bytes == 2);
	}
	/* garbage after the preface fails cleanly */
	struct pr_http2 p;
	static const struct pr_msg_sink sink;

	CHECK(pr_http2_init(&p, 0, &sink) == 0);
	CHECK(pr_http2_feed(&p, "PRI * HTTP/1.1\r\n", 16, 1) == -1);
	pr_http2_free(&p);
	return test_failures != 0;
}
