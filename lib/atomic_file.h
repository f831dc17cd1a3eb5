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

/* 0 on success; -errno on failure (nothing is left behind). */
int xp_write_file_atomic(const char *path, const void *data, size_t len);
/* mkdir -p with mode 0700 for the directories it creates; 0 or -errno. */
int xp_mkdir_p(const char *dir);

#endif /* XPERF_LIB_ATOMIC_FILE_H */
