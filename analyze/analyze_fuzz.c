// SPDX-License-Identifier: MIT
/*
 * analyze_fuzz.c - libFuzzer target for the analyzer's input side. Each input
 * goes through the one reader (core/read.c: validated as it is read, the path
 * `xperf analyze` takes), the pipeline and all three reporters. Every
 * accepted turn must still sum to its wall time.
 */
#include <stdio.h>
#include <stdlib.h>

#include "analyze/model.h"

static void render(const struct xa_turn *t)
{
	static FILE *null;
	struct xa_options o;
	uint64_t sum = 0;

	if (!null)
		null = fopen("/dev/null", "w");
	for (int c = 0; c < XP_CAT_COUNT; c++)
		sum += t->cat_ns[c];
	if (sum != t->wall)
		abort();
	xa_options_default(&o);
	o.depth = 4;
	for (int f = 0; f < 3; f++) {
		o.format = (enum xa_format)f;
		xa_render_turn(t, &o, null);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xa_options o;
	struct xa_turn *t = NULL;

	xa_options_default(&o);
	if (!xa_analyze_turn_buffer("<fuzz>", (const char *)data, size, &o, &t, NULL))
		render(t);
	xa_turn_free(t);
	return 0;
}
