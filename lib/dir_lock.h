/* SPDX-License-Identifier: MIT */
/*
 * dir_lock.h - one writer per output directory.
 *
 * An exclusive flock(2) on DIR/.lock, held for as long as the returned
 * descriptor stays open. The kernel drops it when the holder exits, however
 * it exits, so no lock goes stale; the holder's pid is written into the
 * file so that a refused writer can name it. The descriptor is O_CLOEXEC:
 * a command the holder starts does not keep the directory locked.
 */
#ifndef XPERF_LIB_DIR_LOCK_H
#define XPERF_LIB_DIR_LOCK_H

#include <sys/types.h>

#define XP_DIR_LOCK_NAME ".lock"

/*
 * Create dir (0700, with parents) and lock it. Returns the descriptor to
 * keep open; -EWOULDBLOCK when another process holds the lock (*holder: its
 * pid, 0 when it has not written it yet); another -errno on failure.
 */
int xp_dir_lock(const char *dir, pid_t *holder);

#endif /* XPERF_LIB_DIR_LOCK_H */
