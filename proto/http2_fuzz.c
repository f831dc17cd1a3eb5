/* SPDX-License-Identifier: MIT */
/* http2_fuzz.c - fuzzes HTTP/2 framing and HPACK decoding (response direction). */
#include <stddef.h>
#include <stdint.h>

#include "proto/http2.h"

static void on_head(void *ctx, uint32_t m, const struct pr_http_head *h, uint64_t t)
{
	(void)ctx;
	(void)m;
	(void)h;
	(void)t;
}

static void on_body(void *ctx, uint32_t m, const char *d, size_t n, uint64_t t)
{
	(void)ctx;
	(void)m;
	(void)d;
	(void)n;
	(void)t;
}

static void on_end(void *ctx, uint32_t m, int aborted, uint64_t t)
{
	(void)ctx;
	(void)m;
	(void)aborted;
	(void)t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct pr_msg_sink sink = { on_head, on_body, on_end, NULL };
	struct pr_http2 p;

	if (pr_http2_init(&p, 1, &sink))
		return 0;
	/* two feeds: a split in the middle must be handled like any other */
	pr_http2_feed(&p, (const char *)data, size / 2, 1);
	pr_http2_feed(&p, (const char *)data + size / 2, size - size / 2, 2);
	pr_http2_free(&p);
	return 0;
}
