/* SPDX-License-Identifier: MIT */
/*
 * decode.h - incremental Content-Encoding decoders for message bodies
 * (gzip and deflate by zlib, br by libbrotli, zstd by libzstd, all from
 * Debian): compressed bytes go in as they arrive, decoded pieces come out
 * at once, so a compressed SSE stream keeps the time of every event.
 */
#ifndef XPERF_PROTO_DECODE_H
#define XPERF_PROTO_DECODE_H

#include <stddef.h>

enum pr_coding { XP_CODING_IDENTITY, XP_CODING_GZIP, XP_CODING_DEFLATE, XP_CODING_BR,
		 XP_CODING_ZSTD, XP_CODING_UNKNOWN };

/* The coding a Content-Encoding value names ("" or "identity": none). */
enum pr_coding pr_coding_parse(const char *content_encoding);

struct pr_decoder;
typedef void (*pr_decoded_cb)(void *ctx, const char *data, size_t len);

/* A decoder for a coding other than identity and unknown; NULL on ENOMEM. */
struct pr_decoder *pr_decoder_new(enum pr_coding coding, size_t max_out);
/*
 * Decodes n bytes, handing every decoded piece to out. 0, or -1 once the
 * input is corrupt or the output passed max_out (a decompression bomb): the
 * decoder then takes nothing more.
 */
int pr_decoder_feed(struct pr_decoder *d, const char *in, size_t n, pr_decoded_cb out, void *ctx);
void pr_decoder_free(struct pr_decoder *d);

#endif /* XPERF_PROTO_DECODE_H */
