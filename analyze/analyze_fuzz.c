// SPDX-License-Identifier: MIT
/*
 * analyze_fuzz.c - libFuzzer target for the analyzer's input side. Each input
 * is a file (in memory, memfd) that goes through the one reader (core/read.c:
 * validated as it is read, the path `xperf analyze` takes), the pipeline and
 * all three reporters. Every accepted turn must still sum to its wall time.
 */
#define _GNU_SOURCE /* memfd_create */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

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
	static char path[32];
	static int fd = -1;
	struct xa_options o;
	struct xa_turn *t = NULL;

	if (fd < 0) {
		fd = memfd_create("turn", 0);
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	xa_options_default(&o);
	if (!xa_analyze_turn_file(path, &o, &t, NULL))
		render(t);
	xa_turn_free(t);
	return 0;
}
