/* SPDX-License-Identifier: MIT */
/* atomic_file.c - see atomic_file.h. */
#include "lib/atomic_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* Create flags for a file only this program will have opened. */
#define NEW_FILE (O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC)

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

int xp_out_check(const char *path)
{
	struct stat st;

	if (!*path)
		return -ENOENT;
	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	return S_ISREG(st.st_mode) ? 0 : -XP_OUT_REFUSED;
}

const char *xp_out_strerror(int err)
{
	if (err == -XP_OUT_REFUSED)
		return "exists and is not a regular file (not replaced)";
	return strerror(err < 0 ? -err : err);
}

/* errno of a refused open (a symlink, a directory) as the refusal. */
static int open_error(void)
{
	return errno == ELOOP || errno == EISDIR || errno == ENXIO ? -XP_OUT_REFUSED : -errno;
}

/*
 * Temp files being written, for xp_out_unlink_on_signals(): a slot holds a
 * pointer to an open xp_atomic's tmp name (slots taken and freed atomically:
 * the SDK writes from several threads).
 */
static const char *volatile in_flight[16];

static void track(const char *tmp, int on)
{
	for (size_t i = 0; i < sizeof(in_flight) / sizeof(in_flight[0]); i++) {
		const char *want = on ? NULL : tmp;

		if (__atomic_compare_exchange_n(&in_flight[i], &want, on ? tmp : NULL, 0,
						__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			return;
	}
}

static void unlink_and_die(int sig)
{
	for (size_t i = 0; i < sizeof(in_flight) / sizeof(in_flight[0]); i++)
		if (in_flight[i])
			unlink((const char *)in_flight[i]);
	signal(sig, SIG_DFL);
	raise(sig);
}

void xp_out_unlink_on_signals(void)
{
	static const int fatal[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa = { .sa_handler = unlink_and_die }, old;

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		if (!sigaction(fatal[i], NULL, &old) && old.sa_handler == SIG_DFL)
			sigaction(fatal[i], &sa, NULL);
}

int xp_atomic_open(struct xp_atomic *a, const char *path)
{
	int fd = -1, err = xp_out_check(path);

	a->f = NULL;
	if (err)
		return err;
	if (snprintf(a->path, sizeof(a->path), "%s", path) >= (int)sizeof(a->path))
		return -ENAMETOOLONG;
	/* a temp name left by a killed run of the same pid is skipped, never reused */
	for (unsigned n = 0; fd < 0 && n < 100; n++) {
		if (snprintf(a->tmp, sizeof(a->tmp), "%s.tmp.%d.%u", path, (int)getpid(), n) >=
		    (int)sizeof(a->tmp))
			return -ENAMETOOLONG;
		fd = open(a->tmp, NEW_FILE, 0600);
		if (fd < 0 && errno != EEXIST)
			return -errno;
	}
	if (fd < 0)
		return -EEXIST;
	/* held until the file is renamed or removed: xp_atomic_sweep() tells it is live */
	flock(fd, LOCK_EX | LOCK_NB);
	if (!(a->f = fdopen(fd, "w"))) {
		close(fd);
		unlink(a->tmp);
		return -ENOMEM;
	}
	track(a->tmp, 1);
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
	/* what appeared at the path while writing is refused too */
	if (!err)
		err = xp_out_check(a->path);
	if (!err && rename(a->tmp, a->path))
		err = -errno;
	if (err)
		unlink(a->tmp);
	track(a->tmp, 0);
	a->f = NULL;
	return commit ? err : 0;
}

int xp_write_file_atomic(const char *path, const void *data, size_t len)
{
	struct xp_atomic a;
	int err = xp_atomic_open(&a, path);

	if (err)
		return err;
	errno = 0;
	if (fwrite(data, 1, len, a.f) != len) {
		err = errno ? -errno : -EIO; /* ENOSPC from the buffer's flush: say so */
		xp_atomic_close(&a, 0);
		return err;
	}
	return xp_atomic_close(&a, 1);
}

/* The regular file at path opened for appending (O_NONBLOCK: a FIFO never blocks the open). */
static int open_append(const char *path)
{
	struct stat st;
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK |
				    O_CLOEXEC, 0600);

	if (fd < 0)
		return open_error();
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    fcntl(fd, F_SETFL, O_WRONLY | O_APPEND)) {
		close(fd);
		return -XP_OUT_REFUSED;
	}
	return fd;
}

int xp_out_open_stream(const char *path, int append)
{
	int err = xp_out_check(path), fd = -1;

	if (err)
		return err;
	if (append)
		return open_append(path);
	/* a regular file there is replaced by a new one, never truncated or chmod'ed */
	for (int tries = 0; fd < 0 && tries < 3; tries++) {
		if (unlink(path) && errno != ENOENT)
			return -errno;
		fd = open(path, NEW_FILE, 0600);
		if (fd < 0 && errno != EEXIST)
			return open_error();
		if (fd < 0 && (err = xp_out_check(path)))
			return err;
	}
	return fd < 0 ? -EEXIST : fd;
}

/* The writer's pid in a temp file's name ("NAME.tmp.PID.N"), or 0. */
static pid_t temp_writer(const char *name)
{
	const char *t = NULL, *p;
	char *end;
	long pid;

	for (p = strstr(name, ".tmp."); p; p = strstr(p + 1, ".tmp."))
		t = p + 5;
	if (!t || *t < '1' || *t > '9')
		return 0;
	pid = strtol(t, &end, 10);
	if (*end != '.' || end[1] < '0' || end[1] > '9' || end[1 + strspn(end + 1, "0123456789")])
		return 0;
	return pid > 0 && pid <= INT_MAX ? (pid_t)pid : 0;
}

/* Whether the temp file `name` in dirfd is a dead writer's: its pid gone, its lock free. */
static int temp_is_stale(int dirfd, const char *name)
{
	pid_t pid = temp_writer(name);
	struct stat st, now;
	int fd, stale;

	if (!pid || !kill(pid, 0) || errno != ESRCH)
		return 0; /* alive, or not ours to judge (EPERM: it exists) */
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	/* a writer in another pid namespace has a pid we cannot see: its lock says it lives */
	stale = !fstat(fd, &st) && S_ISREG(st.st_mode) && !flock(fd, LOCK_EX | LOCK_NB) &&
		!fstatat(dirfd, name, &now, AT_SYMLINK_NOFOLLOW) && now.st_ino == st.st_ino &&
		now.st_dev == st.st_dev;
	close(fd);
	return stale;
}

int xp_atomic_sweep(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -errno;
	while ((e = readdir(d)))
		if (temp_is_stale(dirfd(d), e->d_name) && !unlinkat(dirfd(d), e->d_name, 0))
			n++;
	closedir(d);
	return n;
}
