/* SPDX-License-Identifier: MIT */
/*
 * atomic_file.h - write a whole file so that readers see the old content or
 * the new, never a part: temp file in the same directory, fsync, rename.
 * Files are created mode 0600 (traces may hold private data); parent
 * directories are created 0700 when missing.
 */
#ifndef XPERF_LIB_ATOMIC_FILE_H
#define XPERF_LIB_ATOMIC_FILE_H

#include <stddef.h>
#include <stdio.h>

/* 0 on success; -errno on failure (nothing is left behind). */
int xp_write_file_atomic(const char *path, const void *data, size_t len);

/*
 * The same, streamed, for output too large to hold in memory: xp_atomic_open
 * creates the temp file next to path and a->f to write it; xp_atomic_close
 * fsyncs it and renames it over path when commit is non-zero and every write
 * succeeded, else removes it. Both return 0 or -errno (nothing left behind).
 */
struct xp_atomic {
	FILE *f;
	char path[4096], tmp[4096];
};
int xp_atomic_open(struct xp_atomic *a, const char *path);
int xp_atomic_close(struct xp_atomic *a, int commit);
/* mkdir -p with mode 0700 for the directories it creates; 0 or -errno. */
int xp_mkdir_p(const char *dir);

#endif /* XPERF_LIB_ATOMIC_FILE_H */
