/* SPDX-License-Identifier: MIT */
/*
 * in_file.h - the one way xperf reads a whole file the user names (a turn
 * file, a baseline, a ledger, a GPU record file, a fixture): it must be a
 * regular file (a FIFO, device, socket or directory is refused at once, the
 * open never blocks), at most `max` bytes, read to its size when opened.
 */
#ifndef XPERF_LIB_IN_FILE_H
#define XPERF_LIB_IN_FILE_H

#include <errno.h>
#include <stddef.h>

/* Returned (negated) for a FIFO, device or socket; a directory gives -EISDIR. */
#define XP_IN_NOT_REGULAR ENODEV

/*
 * A malloc'd, NUL-terminated copy of the file in *buf (length in *len):
 * 0, or -ENOENT, -EISDIR, -XP_IN_NOT_REGULAR, -EFBIG (over max), -errno.
 */
int xp_in_read(const char *path, size_t max, char **buf, size_t *len);

/* A one-line reason for err, for "prog: path: reason". */
const char *xp_in_strerror(int err);

#endif /* XPERF_LIB_IN_FILE_H */
