/* SPDX-License-Identifier: MIT */
/*
 * fuzz_history.c - libFuzzer target for the readers of earlier runs: the
 * --baseline summary (cJSON, with error positions) and the JSONL ledger.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rubric/regress.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rb_ref ref;
	struct rb_base_mem mem;
	struct rb_ledger l;
	char err[256];

	if (rb_baseline_parse("b", (const char *)data, size, &ref, &mem, err, sizeof(err)) &&
	    strncmp(err, "b:", 2))
		abort(); /* every error names the file and a position */
	rb_ledger_parse("l", (const char *)data, size, &l);
	if (l.entries < 0 || l.corrupt < 0)
		abort();
	return 0;
}
