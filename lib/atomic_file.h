/* SPDX-License-Identifier: MIT */
/*
 * atomic_file.h - the one way xperf writes a file the user names (-o,
 * --raw, --findings-out, turn files, capture.json, ...).
 *
 * Policy, the same for every writer:
 *  - a new file is created with O_EXCL|O_NOFOLLOW, mode 0600 (traces may
 *    hold private data); parent directories are created 0700 when missing;
 *  - what exists at the path is replaced only when it is a regular file,
 *    and only by renaming (or unlinking) the directory entry: a device, a
 *    FIFO, a socket, a directory or a symlink (never followed) is refused
 *    with XP_OUT_REFUSED, and nothing the program did not create is ever
 *    written to or chmod'ed;
 *  - whole files are written to a temp file in the same directory, fsync'ed
 *    and renamed, so readers see the old content or the new, never a part.
 */
#ifndef XPERF_LIB_ATOMIC_FILE_H
#define XPERF_LIB_ATOMIC_FILE_H

#include <errno.h>
#include <stddef.h>
#include <stdio.h>

#include "lib/exit_codes.h"

/* Returned (negated) when the path exists and is not a regular file. */
#define XP_OUT_REFUSED EEXIST

/* 0 when path is absent or a regular file (never followed); -XP_OUT_REFUSED or -errno. */
int xp_out_check(const char *path);

/* A one-line reason for err (-errno or -XP_OUT_REFUSED), for "prog: path: reason". */
const char *xp_out_strerror(int err);

/*
 * The exit status (lib/exit_codes.h) for a write that returned err: 0 ok; 2
 * (invalid input) for a path refused; 1 for a failed write (no such
 * directory, permission, disk full, I/O error).
 */
static inline int xp_out_exit(int err)
{
	return !err ? XP_EXIT_OK : err == -XP_OUT_REFUSED ? XP_EXIT_INVALID : XP_EXIT_FAIL;
}

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

/*
 * A file written as it goes (a --raw dump, a child's output, GPU records), so
 * that a run killed midway keeps what it wrote: a write-only descriptor
 * (O_CLOEXEC) on a file this call created 0600, replacing a regular file, or
 * with `append` on the regular file already there (created when absent).
 * Returns the fd or -XP_OUT_REFUSED / -errno.
 */
int xp_out_open_stream(const char *path, int append);

/*
 * For a command (never a library: it changes signal dispositions): SIGINT,
 * SIGTERM and SIGHUP, where they still have their default action, first
 * remove the temp files of writes in flight, then end the process as before,
 * so a stopped `xperf export -o F` leaves neither F half-written nor F.tmp.*.
 */
void xp_out_unlink_on_signals(void);

/*
 * Remove from dir the temp files that writers killed before their rename
 * left ("NAME.tmp.PID.N", a SIGKILL): only where PID is gone and no process
 * holds the file's lock (every writer holds it from the file's creation, so
 * a live writer of another pid namespace is never taken for dead). Readers
 * never take a temp file for a result; a writer that owns the directory
 * (xperf-bpf's locked session) sweeps it. Returns how many went, or -errno.
 */
int xp_atomic_sweep(const char *dir);

/* mkdir -p with mode 0700 for the directories it creates; 0 or -errno. */
int xp_mkdir_p(const char *dir);

#endif /* XPERF_LIB_ATOMIC_FILE_H */
