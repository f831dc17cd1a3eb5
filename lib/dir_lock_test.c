// SPDX-License-Identifier: MIT
/*
 * dir_lock_test.c - a second process is refused while the first holds the
 * directory, and learns its pid; the lock goes when its holder exits; the
 * descriptor does not leak into exec'd commands; the file is 0600.
 */
#include "lib/dir_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/test_check.h"

/* A child that takes the lock, says so on `ready`, and holds it until killed. */
static pid_t holder_child(const char *dir)
{
	int p[2];
	char c;
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		pid_t h;

		close(p[0]);
		if (xp_dir_lock(dir, &h) < 0)
			_exit(1);
		if (write(p[1], "1", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	if (pid < 0 || read(p[0], &c, 1) != 1)
		pid = -1;
	close(p[0]);
	return pid;
}

int main(void)
{
	const char *tmp = getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp";
	char dir[512], path[600];
	struct stat st;
	pid_t child, holder = -1;
	int fd;

	snprintf(dir, sizeof(dir), "%s/dir_lock_test/out", tmp);
	child = holder_child(dir);
	CHECK(child > 0, "the child took the lock");
	fd = xp_dir_lock(dir, &holder);
	CHECK(fd == -EWOULDBLOCK && holder == child, "refused (%d), holder %d, child %d", fd,
	      (int)holder, (int)child);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	fd = xp_dir_lock(dir, &holder);
	CHECK(fd >= 0, "free once the holder is gone: %d", fd);
	CHECK(fd >= 0 && (fcntl(fd, F_GETFD) & FD_CLOEXEC), "close-on-exec");
	snprintf(path, sizeof(path), "%s/%s", dir, XP_DIR_LOCK_NAME);
	CHECK(!stat(path, &st) && (st.st_mode & 0777) == 0600, "lock file mode 0600");
	CHECK(xp_dir_lock(dir, &holder) == -EWOULDBLOCK && holder == getpid(),
	      "a second descriptor of the same process is refused too");
	close(fd);
	return test_failures != 0;
}
