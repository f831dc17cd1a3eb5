// SPDX-License-Identifier: MIT
/*
 * locate_main.c - `xperf-locate FILE...`: what the locator finds in each
 * file, and what it cost (bench/tls/locate.sh runs it). --cache DIR uses
 * the disk cache (default: memory only, so every call analyzes).
 * Exit codes: 0 all files read, 1 a file could not be read, 64 usage.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "userspace/locate/locate.h"

static const char *const status_names[] = { "none", "found", "failed" };

int main(int argc, char **argv)
{
	const char *dir = NULL;
	struct locator *l;
	int i = 1, rc = 0;

	if (argc > 2 && !strcmp(argv[1], "--cache")) {
		dir = argv[2];
		i = 3;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: xperf-locate [--cache DIR] FILE...\n");
		return 64;
	}
	l = locator_new(dir);
	for (; l && i < argc; i++) {
		struct locate_result r;
		int fd = open(argv[i], O_RDONLY | O_CLOEXEC);

		if (fd < 0 || locator_file(l, fd, &r)) {
			fprintf(stderr, "xperf-locate: %s: cannot read\n", argv[i]);
			rc = 1;
		} else {
			printf("%s\t%s\t%s\tSSL_write=0x%" PRIx64 "\tSSL_read=0x%" PRIx64
			       "\t%.3f ms\t%s\t%s\t%s\n",
			       argv[i], status_names[r.status], r.stack[0] ? r.stack : "-",
			       r.write_off, r.read_off, r.ms, r.from_cache ? "cached" : "analyzed",
			       r.key, r.why);
		}
		if (fd >= 0)
			close(fd);
	}
	locator_free(l);
	return l ? rc : 1;
}
