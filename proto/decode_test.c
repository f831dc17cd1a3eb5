/* SPDX-License-Identifier: MIT */
/*
 * decode_test.c - compressed bodies: a gzip request, and streamed SSE answers
 * in gzip, br and zstd (made by Debian's own command-line compressors from
 * testdata/sse_answer.txt) fed in pieces of every size: every event keeps
 * the time of the read that completed it. Corrupt input and a decompression
 * bomb are cut, not crashed on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/test_check.h"
#include "proto/split_feed.h"

static struct pr_llm_exchange got;
static uint64_t tok[8];
static int n_got;

static void on_ex(void *ctx, struct pr_llm_exchange *ex)
{
	(void)ctx;
	got = *ex;
	for (size_t i = 0; i < ex->call.n_tokens && i < 8; i++)
		tok[i] = ex->call.token_ns[i];
	n_got++;
}

static char *slurp(const char *name, size_t *len)
{
	char path[512];
	const char *dir = getenv("TEST_SRCDIR");

	snprintf(path, sizeof(path), "%s/%s/proto/testdata/%s", dir ? dir : ".",
		 dir ? "xperf" : "", name);
	return test_slurp(path, len);
}

/* The answer's compressed body, in 3 reads (at 100, 200, 300) as chunked HTTP/1.1. */
static void test_stream(const char *coding, const char *file, size_t piece)
{
	static const struct pr_llm_conn_cfg any;
	size_t n;
	char *z = slurp(file, &n), head[256], c1[8192], c2[8192], c3[8192];
	size_t a = n / 3, b = 2 * n / 3;
	int l1, l2, l3;

	CHECK(n > 20);
	snprintf(head, sizeof(head), "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
				     "Content-Encoding: %s\r\nTransfer-Encoding: chunked\r\n\r\n", coding);
	l1 = snprintf(c1, sizeof(c1), "%s%zx\r\n", head, a);
	memcpy(c1 + l1, z, a);
	l1 += (int)a;
	l2 = snprintf(c2, sizeof(c2), "\r\n%zx\r\n", b - a);
	memcpy(c2 + l2, z + a, b - a);
	l2 += (int)(b - a);
	l3 = snprintf(c3, sizeof(c3), "\r\n%zx\r\n", n - b);
	memcpy(c3 + l3, z + b, n - b);
	l3 += (int)(n - b);
	l3 += snprintf(c3 + l3, sizeof(c3) - (size_t)l3, "\r\n0\r\n\r\n");
	const struct pr_chunk ch[] = {
		{ XP_DIR_REQUEST, "POST /v1/messages HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}", 0, 1 },
		{ XP_DIR_RESPONSE, c1, (size_t)l1, 100 },
		{ XP_DIR_RESPONSE, c2, (size_t)l2, 200 },
		{ XP_DIR_RESPONSE, c3, (size_t)l3, 300 },
	};
	struct pr_llm_conn *c = pr_llm_conn_new(&any);

	n_got = 0;
	pr_feed_split(c, ch, 4, piece);
	pr_take(c, on_ex, NULL);
	CHECK(n_got == 1 && !got.truncated && !got.aborted && got.call.stream_done);
	CHECK(got.call.n_tokens == 3 && got.call.output_tokens == 3 && got.resp_bytes == n);
	CHECK(got.coding[XP_DIR_RESPONSE] == pr_coding_parse(coding));
	/* events are timed by the read that completed them, whatever the compression */
	CHECK(tok[0] >= 100 && tok[2] <= 300 && tok[0] <= tok[1] && tok[1] <= tok[2]);
	pr_llm_conn_free(c);
	free(z);
}

/* A gzip request body: model and tools read from it; bytes counted as sent. */
static void test_request(void)
{
	static const struct pr_llm_conn_cfg any;
	size_t n;
	char *z = slurp("request.json.gz", &n), req[8192];
	int l = snprintf(req, sizeof(req), "POST /v1/messages HTTP/1.1\r\nContent-Encoding: gzip\r\n"
					  "Content-Length: %zu\r\n\r\n", n);

	memcpy(req + l, z, n);
	const struct pr_chunk ch[] = {
		{ XP_DIR_REQUEST, req, (size_t)l + n, 1 },
		{ XP_DIR_RESPONSE, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}", 0, 2 },
	};
	for (size_t i = 0; i < pr_piece_count; i++) {
		struct pr_llm_conn *c = pr_llm_conn_new(&any);

		n_got = 0;
		pr_feed_split(c, ch, 2, pr_piece_sizes[i]);
		pr_take(c, on_ex, NULL);
		CHECK(n_got == 1 && !strcmp(got.call.req_model, "mock-sonnet") &&
		      got.req_bytes == n && !got.truncated);
		pr_llm_conn_free(c);
	}
	free(z);
}

static void sink(void *ctx, const char *d, size_t n)
{
	(void)d;
	*(size_t *)ctx += n;
}

/* Garbage is an error; an output past the limit stops the decoder. */
static void test_bad(void)
{
	size_t n, out = 0;
	char *z = slurp("zeros.gz", &n);
	struct pr_decoder *d = pr_decoder_new(XP_CODING_GZIP, 1 << 20);

	CHECK(pr_decoder_feed(d, z, n, sink, &out) == -1 && out <= (1 << 20));
	CHECK(pr_decoder_feed(d, "x", 1, sink, &out) == -1);
	pr_decoder_free(d);
	for (enum pr_coding k = XP_CODING_GZIP; k <= XP_CODING_ZSTD; k++) {
		d = pr_decoder_new(k, 1 << 20);
		CHECK(d && pr_decoder_feed(d, "not compressed at all, not at all", 33, sink, &out) == -1);
		pr_decoder_free(d);
	}
	CHECK(pr_coding_parse("") == XP_CODING_IDENTITY && pr_coding_parse("BR") == XP_CODING_BR);
	CHECK(pr_coding_parse("compress") == XP_CODING_UNKNOWN);
	free(z);
}

int main(void)
{
	for (size_t i = 0; i < pr_piece_count; i++) {
		test_stream("gzip", "sse_answer.txt.gz", pr_piece_sizes[i]);
		test_stream("br", "sse_answer.txt.br", pr_piece_sizes[i]);
		test_stream("zstd", "sse_answer.txt.zst", pr_piece_sizes[i]);
	}
	test_request();
	test_bad();
	return test_failures != 0;
}
