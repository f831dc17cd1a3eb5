// SPDX-License-Identifier: MIT
/* dir_lock.c - one writer per output directory (see dir_lock.h). */
#include "lib/dir_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <unistd.h>

#include "lib/atomic_file.h"

static pid_t read_holder(int fd)
{
	char buf[24];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	long pid;

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	pid = strtol(buf, NULL, 10);
	return pid > 0 && pid <= INT_MAX ? (pid_t)pid : 0;
}

static int write_holder(int fd)
{
	char buf[24];
	int n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());

	if (ftruncate(fd, 0) || pwrite(fd, buf, (size_t)n, 0) != n)
		return -errno;
	return 0;
}

int xp_dir_lock(const char *dir, pid_t *holder)
{
	char path[PATH_MAX];
	int fd, err = xp_mkdir_p(dir);

	*holder = 0;
	if (err)
		return err;
	if (snprintf(path, sizeof(path), "%s/%s", dir, XP_DIR_LOCK_NAME) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		err = -errno;
		if (err == -EWOULDBLOCK)
			*holder = read_holder(fd);
	} else {
		err = write_holder(fd);
	}
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}
