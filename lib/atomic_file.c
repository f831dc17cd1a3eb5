/* SPDX-License-Identifier: MIT */
/* atomic_file.c - see atomic_file.h. */
#include "lib/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int xp_mkdir_p(const char *dir)
{
	char buf[PATH_MAX];
	size_t n = strlen(dir);

	if (n == 0 || n >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, dir, n + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0700) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, 0700) && errno != EEXIST)
		return -errno;
	return 0;
}

int xp_atomic_open(struct xp_atomic *a, const char *path)
{
	int fd;

	a->f = NULL;
	if (snprintf(a->path, sizeof(a->path), "%s", path) >= (int)sizeof(a->path) ||
	    snprintf(a->tmp, sizeof(a->tmp), "%s.tmp.%d", path, (int)getpid()) >= (int)sizeof(a->tmp))
		return -ENAMETOOLONG;
	fd = open(a->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (!(a->f = fdopen(fd, "w"))) {
		close(fd);
		unlink(a->tmp);
		return -ENOMEM;
	}
	return 0;
}

int xp_atomic_close(struct xp_atomic *a, int commit)
{
	int err = commit ? 0 : -ECANCELED;

	errno = 0;
	if (!err && (fflush(a->f) || ferror(a->f) || fsync(fileno(a->f))))
		err = errno ? -errno : -EIO;
	if (fclose(a->f) && !err)
		err = -errno;
	if (!err && rename(a->tmp, a->path))
		err = -errno;
	if (err)
		unlink(a->tmp);
	a->f = NULL;
	return commit ? err : 0;
}

int xp_write_file_atomic(const char *path, const void *data, size_t len)
{
	struct xp_atomic a;
	int err = xp_atomic_open(&a, path);

	if (err)
		return err;
	if (fwrite(data, 1, len, a.f) != len) {
		xp_atomic_close(&a, 0);
		return -EIO;
	}
	return xp_atomic_close(&a, 1);
}
