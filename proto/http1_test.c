/* SPDX-License-Identifier: MIT */
/* http1_test.c - HTTP/1.1 framing across every split of the input. */
#define _GNU_SOURCE
#include <string.h>

#include "lib/test_check.h"
#include "proto/http1.h"
#include "proto/split_feed.h"

struct rec {
	int heads, ends, aborted;
	struct pr_http_head last;
	uint32_t last_msg;
	char body[4096];
	size_t body_len;
	uint64_t first_body_t;
};

static void on_head(void *ctx, uint32_t msg, const struct pr_http_head *h, uint64_t t)
{
	struct rec *r = ctx;

	(void)t;
	r->heads++;
	r->last = *h;
	r->last_msg = msg;
}

static void on_body(void *ctx, uint32_t msg, const char *d, size_t n, uint64_t t)
{
	struct rec *r = ctx;

	(void)msg;
	if (!r->body_len)
		r->first_body_t = t;
	if (r->body_len + n < sizeof(r->body)) {
		memcpy(r->body + r->body_len, d, n);
		r->body_len += n;
	}
}

static void on_end(void *ctx, uint32_t msg, int aborted, uint64_t t)
{
	struct rec *r = ctx;

	(void)msg;
	(void)t;
	r->ends++;
	r->aborted += aborted;
}

/* Feeds `in` in pieces into a fresh parser; returns the feed result. */
static int run(struct rec *r, int is_resp, const char *in, size_t piece, int close_at_end)
{
	static struct pr_http1 p;
	struct pr_msg_sink sink = { on_head, on_body, on_end, r };
	size_t len = strlen(in);
	int rc = 0;

	memset(r, 0, sizeof(*r));
	pr_http1_init(&p, is_resp, &sink);
	for (size_t off = 0; off < len && !rc;) {
		size_t k = piece && piece < len - off ? piece : len - off;

		rc = pr_http1_feed(&p, in + off, k, 100 + off);
		off += k;
	}
	if (close_at_end)
		pr_http1_close(&p, 999);
	return rc;
}

static void test_request(size_t piece)
{
	struct rec r;
	const char *in = "POST /v1/messages?beta=1 HTTP/1.1\r\nHost: api.example.com\r\n"
			 "Authorization: Bearer sk-secret\r\nx-api-key: sk-secret\r\n"
			 "Content-Length: 11\r\nContent-Type: application/json\r\n\r\n{\"a\":\"bc\"}\n"
			 "GET /health HTTP/1.1\r\nHost: x\r\n\r\n";

	CHECK(run(&r, 0, in, piece, 0) == 0);
	CHECK(r.heads == 2 && r.ends == 2 && r.last_msg == 2);
	CHECK(!strcmp(r.last.path, "/health") && !strcmp(r.last.method, "GET"));
	CHECK(r.body_len == 11 && !memcmp(r.body, "{\"a\":\"bc\"}\n", 11));
	/* nothing of the credentials is kept in the head */
	CHECK(!memmem(&r.last, sizeof(r.last), "sk-secret", 9));
}

static void test_chunked(size_t piece)
{
	struct rec r;
	const char *in = "HTTP/1.1 100 Continue\r\n\r\n"
			 "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
			 "Transfer-Encoding: chunked\r\n\r\n"
			 "5;ext=1\r\nhello\r\n1a\r\n abcdefghijklmnopqrstuvwxy\r\n0\r\nX-T: 1\r\n\r\n";

	CHECK(run(&r, 1, in, piece, 0) == 0);
	CHECK(r.heads == 1 && r.ends == 1 && r.aborted == 0);
	CHECK(r.last.status == 200 && r.last.chunked);
	CHECK(!strcmp(r.last.content_type, "text/event-stream"));
	CHECK(r.body_len == 31 && !memcmp(r.body, "hello abcdefghijklmnopqrstuvwxy", 31));
}

/* The first body bytes in the same read as the head reach the sink with that read's time. */
static void test_body_with_head(void)
{
	struct rec r;
	const char *in = "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\ntok1";

	CHECK(run(&r, 1, in, 0, 0) == 0);
	CHECK(r.ends == 1 && r.body_len == 4 && r.first_body_t == 100);
}

static void test_until_close(size_t piece)
{
	struct rec r;

	CHECK(run(&r, 1, "HTTP/1.1 200 OK\r\n\r\nall of it", piece, 1) == 0);
	CHECK(r.ends == 1 && r.aborted == 0 && r.body_len == 9);
	CHECK(run(&r, 1, "HTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 429 Too Many\r\n"
			 "Retry-After: 2\r\nContent-Length: 2\r\n\r\n{}", piece, 0) == 0);
	CHECK(r.heads == 2 && r.ends == 2 && r.last.status == 429);
	CHECK(!strcmp(r.last.retry_after, "2"));
	/* a cut Content-Length body is aborted at close */
	CHECK(run(&r, 1, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", piece, 1) == 0);
	CHECK(r.ends == 1 && r.aborted == 1);
}

static void test_bad(void)
{
	struct rec r;
	static char big[XP_H1_HEAD_MAX + 64];

	CHECK(run(&r, 1, "\x16\x03\x01garbage\r\n\r\n", 0, 0) == -1);
	CHECK(run(&r, 0, "NOTHTTP\r\n\r\n", 0, 0) == -1);
	CHECK(run(&r, 1, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 0, 0) == -1);
	memcpy(big, "GET / HTTP/1.1\r\nX: ", 19);
	memset(big + 19, 'a', sizeof(big) - 20);
	CHECK(run(&r, 0, big, 0, 0) == -1);
}

static void test_skip(void)
{
	struct rec r;
	struct pr_http1 p;
	struct pr_msg_sink sink = { on_head, on_body, on_end, &r };
	const char *head = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc";

	memset(&r, 0, sizeof(r));
	pr_http1_init(&p, 1, &sink);
	CHECK(pr_http1_feed(&p, head, strlen(head), 1) == 0);
	CHECK(pr_http1_skip(&p, 5, 2) == 0);
	CHECK(pr_http1_feed(&p, "xy", 2, 3) == 0);
	CHECK(r.ends == 1 && r.body_len == 5);
	CHECK(pr_http1_skip(&p, 1, 4) == -1); /* not inside a body: framing lost */
}

int main(void)
{
	for (size_t i = 0; i < pr_piece_count; i++) {
		test_request(pr_piece_sizes[i]);
		test_chunked(pr_piece_sizes[i]);
		test_until_close(pr_piece_sizes[i]);
	}
	test_body_with_head();
	test_bad();
	test_skip();
	return test_failures != 0;
}
