/* SPDX-License-Identifier: MIT */
/*
 * split_feed.h - test helper: a transcript feeder that replays a
 * connection's reads and writes cut into pieces of any size, so every parser
 * is tested across arbitrary splits. Tests assert with CHECK (check.h).
 */
#ifndef XPERF_PROTO_SPLIT_FEED_H
#define XPERF_PROTO_SPLIT_FEED_H

#include "proto/llm_conn.h"

/* One read or write of the connection: t_ns is the time every piece of it gets. */
struct pr_chunk {
	enum pr_dir dir;
	const char *data;
	size_t len; /* 0: strlen(data) */
	uint64_t t_ns;
};

/* Feeds the chunks in order, each cut into pieces of `piece` bytes (0: whole). */
void pr_feed_split(struct pr_llm_conn *c, const struct pr_chunk *ch, size_t n, size_t piece);
/* Hands every exchange c finished so far to on_ex, in order, then frees it. */
void pr_take(struct pr_llm_conn *c, void (*on_ex)(void *ctx, struct pr_llm_exchange *ex),
	     void *ctx);
/* Piece sizes every test runs: whole, 1 byte, and a few odd sizes. */
extern const size_t pr_piece_sizes[];
extern const size_t pr_piece_count;

#endif /* XPERF_PROTO_SPLIT_FEED_H */
