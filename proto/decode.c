/* SPDX-License-Identifier: MIT */
/*
 * decode.c - one streaming decoder per compressed body. Each library is
 * driven the same way: feed what arrived, drain the output buffer until the
 * library has nothing more to give for it.
 */
#define _GNU_SOURCE
#include "proto/decode.h"

#include <brotli/decode.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>
#include <zstd.h>

#define XP_DECODE_CHUNK 16384

struct pr_decoder {
	enum pr_coding coding;
	int failed, done;
	size_t out_total, max_out;
	z_stream z;
	BrotliDecoderState *br;
	ZSTD_DStream *zs;
	char buf[XP_DECODE_CHUNK];
};


enum pr_coding pr_coding_parse(const char *v)
{
	size_t n = strcspn(v, " \t,");

	if (!n || (n == 8 && !strncasecmp(v, "identity", 8)))
		return XP_CODING_IDENTITY;
	if ((n == 4 && !strncasecmp(v, "gzip", 4)) || (n == 6 && !strncasecmp(v, "x-gzip", 6)))
		return XP_CODING_GZIP;
	if (n == 7 && !strncasecmp(v, "deflate", 7))
		return XP_CODING_DEFLATE;
	if (n == 2 && !strncasecmp(v, "br", 2))
		return XP_CODING_BR;
	if (n == 4 && !strncasecmp(v, "zstd", 4))
		return XP_CODING_ZSTD;
	return XP_CODING_UNKNOWN;
}

struct pr_decoder *pr_decoder_new(enum pr_coding coding, size_t max_out)
{
	struct pr_decoder *d = calloc(1, sizeof(*d));
	int ok = 0;

	if (!d)
		return NULL;
	d->coding = coding;
	d->max_out = max_out;
	switch (coding) {
	case XP_CODING_GZIP:    /* 16 + 15: a gzip wrapper */
	case XP_CODING_DEFLATE: /* 32 + 15: zlib or gzip, detected */
		ok = inflateInit2(&d->z, coding == XP_CODING_GZIP ? 16 + MAX_WBITS : 32 + MAX_WBITS) ==
		     Z_OK;
		break;
	case XP_CODING_BR:
		ok = (d->br = BrotliDecoderCreateInstance(NULL, NULL, NULL)) != NULL;
		break;
	case XP_CODING_ZSTD:
		ok = (d->zs = ZSTD_createDStream()) != NULL && !ZSTD_isError(ZSTD_initDStream(d->zs));
		break;
	default:
		break;
	}
	if (!ok) {
		pr_decoder_free(d);
		return NULL;
	}
	return d;
}

/* Hands n decoded bytes on; -1 past the output limit. */
static int emit(struct pr_decoder *d, size_t n, pr_decoded_cb out, void *ctx)
{
	if (!n)
		return 0;
	d->out_total += n;
	if (d->out_total > d->max_out)
		return -1;
	out(ctx, d->buf, n);
	return 0;
}

static int feed_zlib(struct pr_decoder *d, const char *in, size_t n, pr_decoded_cb out,
		     void *ctx)
{
	d->z.next_in = (Bytef *)in;
	d->z.avail_in = (uInt)n;
	while (!d->done && (d->z.avail_in || !d->z.avail_out)) {
		d->z.next_out = (Bytef *)d->buf;
		d->z.avail_out = sizeof(d->buf);
		int rc = inflate(&d->z, Z_NO_FLUSH);

		if ((rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) ||
		    emit(d, sizeof(d->buf) - d->z.avail_out, out, ctx))
			return -1;
		d->done = rc == Z_STREAM_END;
		if (rc == Z_BUF_ERROR || (d->z.avail_out && !d->z.avail_in))
			break;
	}
	return 0;
}

static int feed_br(struct pr_decoder *d, const char *in, size_t n, pr_decoded_cb out, void *ctx)
{
	const uint8_t *next_in = (const uint8_t *)in;
	size_t avail_in = n;

	for (;;) {
		uint8_t *next_out = (uint8_t *)d->buf;
		size_t avail_out = sizeof(d->buf);
		BrotliDecoderResult rc = BrotliDecoderDecompressStream(d->br, &avail_in, &next_in,
								       &avail_out, &next_out, NULL);

		if (rc == BROTLI_DECODER_RESULT_ERROR ||
		    emit(d, sizeof(d->buf) - avail_out, out, ctx))
			return -1;
		if (rc != BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT)
			return 0;
	}
}

static int feed_zstd(struct pr_decoder *d, const char *in, size_t n, pr_decoded_cb out,
		     void *ctx)
{
	ZSTD_inBuffer ib = { in, n, 0 };

	for (;;) {
		ZSTD_outBuffer ob = { d->buf, sizeof(d->buf), 0 };
		size_t rc = ZSTD_decompressStream(d->zs, &ob, &ib);

		if (ZSTD_isError(rc) || emit(d, ob.pos, out, ctx))
			return -1;
		if (ib.pos == ib.size && ob.pos < ob.size)
			return 0;
	}
}

int pr_decoder_feed(struct pr_decoder *d, const char *in, size_t n, pr_decoded_cb out, void *ctx)
{
	int rc;

	if (d->failed)
		return -1;
	switch (d->coding) {
	case XP_CODING_GZIP:
	case XP_CODING_DEFLATE:
		rc = feed_zlib(d, in, n, out, ctx);
		break;
	case XP_CODING_BR:
		rc = feed_br(d, in, n, out, ctx);
		break;
	default:
		rc = feed_zstd(d, in, n, out, ctx);
		break;
	}
	d->failed = rc != 0;
	return rc;
}

void pr_decoder_free(struct pr_decoder *d)
{
	if (!d)
		return;
	if (d->coding == XP_CODING_GZIP || d->coding == XP_CODING_DEFLATE)
		inflateEnd(&d->z);
	BrotliDecoderDestroyInstance(d->br);
	ZSTD_freeDStream(d->zs);
	free(d);
}
