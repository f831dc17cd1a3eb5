/* SPDX-License-Identifier: MIT */
/*
 * llm_conn_fuzz.c - fuzzes the whole plaintext path (HTTP/1.1 or HTTP/2
 * framing, SSE/NDJSON, LLM JSON). Input: records of [1 byte: direction and
 * flags][1 byte: length] + bytes; flag 0x80 reports the bytes as lost instead.
 */
#include <stddef.h>
#include <stdint.h>

#include "proto/llm_conn.h"

/* Takes the finished exchanges and touches what a consumer reads. */
static void take(struct pr_llm_conn *c)
{
	for (struct pr_llm_exchange *ex; (ex = pr_llm_conn_next(c)); pr_llm_exchange_free(ex))
		if (ex->call.n_tokens && ex->call.token_ns[ex->call.n_tokens - 1] == 42)
			ex->truncated = 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct pr_llm_conn_cfg cfg;
	struct pr_llm_conn *c = pr_llm_conn_new(&cfg);
	uint64_t t = 0;

	if (!c)
		return 0;
	while (size >= 2) {
		enum pr_dir dir = data[0] & 1 ? XP_DIR_RESPONSE : XP_DIR_REQUEST;
		size_t n = data[1] < size - 2 ? data[1] : size - 2;

		if (data[0] & 0x80)
			pr_llm_conn_lost(c, dir, n, t++);
		else
			pr_llm_conn_feed(c, dir, (const char *)data + 2, n, t++);
		take(c);
		data += 2 + n;
		size -= 2 + n;
	}
	pr_llm_conn_close(c, t);
	take(c);
	pr_llm_conn_free(c);
	return 0;
}
