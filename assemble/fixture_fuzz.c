/* SPDX-License-Identifier: MIT */
/*
 * fixture_fuzz.c - fuzzes the JSON-lines event reader and, through it, the
 * whole assembler (events in any order and shape, turn files to a temp dir).
 * The input and the turn files live on tmpfs when there is one: every turn
 * file is fsync'ed, which on a disk held the fuzzer to 18 execs/s.
 */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "assemble/fixture.h"
#include "assemble/session.h"

static char dir[] = "/dev/shm/xperf-fuzz-XXXXXX";

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static void remove_dir(void)
{
	nftw(dir, remove_one, 8, FTW_DEPTH | FTW_PHYS);
}

static int feed(void *ctx, const struct xt_event *ev)
{
	return xt_session_event(ctx, ev);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static char path[64];
	static int ready;
	struct xt_config cfg = { .out_dir = dir, .session_id = "fuzz" };

	if (!ready) {
		if (!mkdtemp(dir) && !mkdtemp(memcpy(dir, "/tmp/xperf-fuzz-XXXXXX", 23)))
			abort();
		atexit(remove_dir);
		snprintf(path, sizeof(path), "%s/in.jsonl", dir);
		ready = 1;
	}
	FILE *f = fopen(path, "w");

	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	cfg.ciphertext = size && (data[0] & 1);
	struct xt_session *s = xt_session_new(&cfg);

	if (!s)
		return 0;
	xt_fixture_read(path, feed, s);
	xt_session_finish(s, 1000000000000ull, size & 1);
	xt_session_free(s);
	return 0;
}
