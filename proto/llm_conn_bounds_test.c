/* SPDX-License-Identifier: MIT */
/*
 * llm_conn_bounds_test.c - short request writes after lost framing, each
 * ending right before an unmapped page: telling whether they open a request
 * must not read past their last byte (once a SEGV in llm_conn_fuzz, a
 * strncmp of "POST /" over a 2-byte write). Under ASan (test.sh's second
 * pass) strict string checks make any such read a report.
 */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/test_check.h"
#include "proto/llm_conn.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "strict_string_checks=1";
}
#endif
#endif

int main(void)
{
	static const struct pr_llm_conn_cfg any_host;
	static const char *const writes[] = { "\n", "P\n", "POST\n", "GET /\n", "PATCH\n" };
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CHECK(map != MAP_FAILED && !mprotect(map + page, page, PROT_NONE));
	for (size_t i = 0; map != MAP_FAILED && i < sizeof(writes) / sizeof(*writes); i++) {
		size_t n = strlen(writes[i]);
		char *at = memcpy(map + page - n, writes[i], n);
		struct pr_llm_conn *c = pr_llm_conn_new(&any_host);

		pr_llm_conn_lost(c, XP_DIR_REQUEST, 10, 1); /* framing lost */
		pr_llm_conn_feed(c, XP_DIR_REQUEST, at, n, 2);
		CHECK(c->resyncs == 0);
		pr_llm_conn_free(c);
	}
	return test_failures != 0;
}
