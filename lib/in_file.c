/* SPDX-License-Identifier: MIT */
/* in_file.c - see in_file.h. */
#include "lib/in_file.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* -errno for what fstat found, 0 for a regular file within max. */
static int check_kind(const struct stat *st, size_t max)
{
	if (S_ISDIR(st->st_mode))
		return -EISDIR;
	if (!S_ISREG(st->st_mode))
		return -XP_IN_NOT_REGULAR;
	return (unsigned long long)st->st_size > max ? -EFBIG : 0;
}

/* Read exactly n bytes (a file that grows is cut at its size when opened). */
static int read_all(int fd, char *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, buf + got, n - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EIO; /* shrank while read */
		got += (size_t)r;
	}
	return 0;
}

int xp_in_read(const char *path, size_t max, char **buf, size_t *len)
{
	struct stat st;
	char *b = NULL;
	int err, fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st))
		err = -errno;
	else if (!(err = check_kind(&st, max)) && !(b = malloc((size_t)st.st_size + 1)))
		err = -ENOMEM;
	else if (!err)
		err = read_all(fd, b, (size_t)st.st_size);
	close(fd);
	if (err) {
		free(b);
		return err;
	}
	b[st.st_size] = '\0';
	*buf = b;
	*len = (size_t)st.st_size;
	return 0;
}

const char *xp_in_strerror(int err)
{
	switch (-err) {
	case XP_IN_NOT_REGULAR: return "not a regular file (a FIFO, device or socket)";
	case EISDIR: return "is a directory, a file was expected";
	case EFBIG: return "file too large";
	default: return strerror(err < 0 ? -err : err);
	}
}
