/* SPDX-License-Identifier: MIT */
/*
 * llm_json_fuzz.c - fuzzes LLM JSON extraction: the first byte picks the API
 * and whether the rest is a request, a whole response or a streamed event.
 */
#include <stddef.h>
#include <stdint.h>

#include "proto/llm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const events[] = { "", "message_start", "content_block_start",
					      "content_block_delta", "message_delta", "error",
					      "response.completed", "response.created" };
	struct pr_llm_call c;

	if (size < 1)
		return 0;
	pr_llm_call_init(&c, (enum pr_llm_api)(1 + data[0] % 5));
	c.keep_text = size & 1; /* the opt-in text capture too */
	const char *body = (const char *)data + 1;

	switch ((data[0] >> 3) % 3) {
	case 0:
		pr_llm_parse_request(&c, body, size - 1);
		break;
	case 1:
		pr_llm_parse_response(&c, body, size - 1);
		break;
	default:
		pr_llm_stream_event(&c, events[(data[0] >> 5) % 8], body, size - 1, 1);
		break;
	}
	pr_llm_call_free(&c);
	return 0;
}
