/* SPDX-License-Identifier: MIT */
/*
 * read_fuzz.c - libFuzzer target for the one TurnTrace reader: any bytes give
 * a turn exactly when the validator finds no error (the reader and `xperf
 * validate` never disagree), with the error count bounded; a turn read is
 * written by the one writer and read back unchanged in its counts and times.
 * No crash, leak or sanitizer report.
 */
#include <stdlib.h>
#include <string.h>

#include "core/read.h"
#include "core/write.h"

static void count(const struct sc_verror *e, void *ctx)
{
	(void)e;
	++*(int *)ctx;
}

static int same(const struct tt_turn *a, const struct tt_turn *b)
{
	if (a->nspans != b->nspans || a->nfused != b->nfused || a->nwaste != b->nwaste ||
	    a->start_ns != b->start_ns || a->end_ns != b->end_ns || a->index != b->index ||
	    strcmp(a->session_id, b->session_id))
		return 0;
	for (size_t i = 0; i < a->nspans; i++)
		if (a->spans[i].id != b->spans[i].id || a->spans[i].parent != b->spans[i].parent ||
		    a->spans[i].start_ns != b->spans[i].start_ns ||
		    a->spans[i].end_ns != b->spans[i].end_ns || a->spans[i].st != b->spans[i].st ||
		    a->spans[i].ex.ntokens != b->spans[i].ex.ntokens)
			return 0;
	return 1;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	int seen = 0, nerr = -1;
	struct tt_turn *t = tt_turn_load_buffer("fuzz", (const char *)data, size, count, &seen,
						&nerr);
	int valid = sc_validate_buffer("fuzz", (const char *)data, size, NULL, NULL) == 0;
	struct tt_turn *back = NULL;
	char *text;

	if (nerr != seen || nerr > XP_VALIDATE_MAX_ERRORS + 2 || (t != NULL) != valid ||
	    (t != NULL) != (nerr == 0))
		abort();
	if (!t)
		return 0;
	text = tt_turn_text(t);
	if (text)
		back = tt_turn_load_buffer("back", text, strlen(text), NULL, NULL, &nerr);
	if (text && (!back || !same(t, back)))
		abort();
	tt_turn_free(back);
	free(text);
	tt_turn_free(t);
	return 0;
}
