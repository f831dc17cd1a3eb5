/* SPDX-License-Identifier: MIT */
/* split_feed.c - see split_feed.h. */
#include "proto/split_feed.h"

#include <string.h>

const size_t pr_piece_sizes[] = { 0, 1, 2, 3, 7, 64, 1000 };
const size_t pr_piece_count = sizeof(pr_piece_sizes) / sizeof(pr_piece_sizes[0]);

void pr_feed_split(struct pr_llm_conn *c, const struct pr_chunk *ch, size_t n, size_t piece)
{
	for (size_t i = 0; i < n; i++) {
		size_t len = ch[i].len ? ch[i].len : strlen(ch[i].data);

		for (size_t off = 0; off < len;) {
			size_t k = piece && piece < len - off ? piece : len - off;

			pr_llm_conn_feed(c, ch[i].dir, ch[i].data + off, k, ch[i].t_ns);
			off += k;
		}
	}
}

void pr_take(struct pr_llm_conn *c, void (*on_ex)(void *ctx, struct pr_llm_exchange *ex),
	     void *ctx)
{
	for (struct pr_llm_exchange *ex; (ex = pr_llm_conn_next(c)); pr_llm_exchange_free(ex))
		on_ex(ctx, ex);
}
