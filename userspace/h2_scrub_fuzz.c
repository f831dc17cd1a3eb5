// SPDX-License-Identifier: MIT
/*
 * h2_scrub_fuzz.c - the HTTP/2 header-block scrubber (h2_scrub.h) on
 * arbitrary records. The input is records: a control byte (bit 0: the
 * direction; bit 1: bytes lost before it; bits 2-3: which of 3 connections,
 * bit 4: the connection ends first), a length byte, the bytes. Always: a
 * scrubbed byte is its input or zero, *zeroed counts the zeros made, and the
 * verdict is one of three. The oracle: for every connection whose first
 * record was the client preface and that lost nothing, an independent
 * frame walker over each whole stream finds every HEADERS, PUSH_PROMISE and
 * CONTINUATION payload byte zero in what was written (nothing withheld
 * there), and every other byte as it came.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto/http2.h"
#include "userspace/h2_scrub.h"

#define CONNS 3
#define MAX_STREAM 8192

struct stream {
	unsigned char in[MAX_STREAM], out[MAX_STREAM];
	size_t len;
	uint64_t pos;
	int broken; /* lost bytes, withheld, ended, too long: no oracle */
};

static struct stream streams[CONNS][2];

/* The oracle's own walk: header-block payload bytes zero, others as they came. */
static void check_stream(const struct stream *st, size_t skip)
{
	size_t i = skip;

	while (i + 9 <= st->len) {
		size_t n = (size_t)st->in[i] << 16 | (size_t)st->in[i + 1] << 8 | st->in[i + 2];
		int block = st->in[i + 3] == 1 || st->in[i + 3] == 5 || st->in[i + 3] == 9;

		for (size_t k = i; k < i + 9 + n && k < st->len; k++)
			if (k >= i + 9 && block ? st->out[k] != 0 : st->out[k] != st->in[k])
				abort();
		i += 9 + n;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct xpc_h2_scrub *s;
	unsigned char buf[256];
	int preface[CONNS] = { 0 }, seen[CONNS] = { 0 };

	if (!s && !(s = xpc_h2_scrub_new()))
		return 0;
	for (int c = 0; c < CONNS; c++) { /* one scrubber for every run: end the last run's */
		xpc_h2_scrub_end(s, 0, c);
		for (int dir = 0; dir < 2; dir++)
			streams[c][dir].len = streams[c][dir].pos = streams[c][dir].broken = 0;
	}
	for (size_t i = 0; i + 2 <= size;) {
		int ctl = data[i], dir = ctl & 1, conn = (ctl >> 2) % CONNS;
		size_t len = data[i + 1], zeroed = 0, made = 0;
		struct stream *st = &streams[conn][dir];
		enum xpc_h2_verdict v;

		i += 2;
		len = len < size - i ? len : size - i;
		if (ctl & 0x10) {
			xpc_h2_scrub_end(s, 0, conn);
			streams[conn][0].broken = streams[conn][1].broken = 1;
		}
		if (ctl & 2) {
			st->pos += 1 + data[i - 1];
			st->broken = 1;
		}
		memcpy(buf, data + i, len);
		v = xpc_h2_scrub(s, 0, conn, dir, st->pos, buf, len, &zeroed);
		for (size_t k = 0; k < len; k++) {
			if (buf[k] != data[i + k] && buf[k])
				abort(); /* a byte changed to something else than zero */
			made += buf[k] != data[i + k];
		}
		if ((v != XPC_H2_PLAIN && v != XPC_H2_SCRUBBED && v != XPC_H2_WITHHELD) ||
		    made > zeroed || (v != XPC_H2_SCRUBBED && zeroed))
			abort();
		if (!dir && !seen[conn] && len >= sizeof(pr_http2_preface) &&
		    !memcmp(buf, pr_http2_preface, sizeof(pr_http2_preface)) && !st->broken)
			preface[conn] = 1;
		seen[conn] = 1;
		if (v != XPC_H2_SCRUBBED || st->len + len > MAX_STREAM)
			st->broken = 1;
		else {
			memcpy(st->in + st->len, data + i, len);
			memcpy(st->out + st->len, buf, len);
			st->len += len;
		}
		st->pos += len;
		i += len;
	}
	for (int c = 0; c < CONNS; c++)
		for (int dir = 0; dir < 2 && preface[c]; dir++)
			if (!streams[c][dir].broken)
				check_stream(&streams[c][dir], dir ? 0 : sizeof(pr_http2_preface));
	return 0;
}
