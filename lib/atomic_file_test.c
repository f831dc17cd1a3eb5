// SPDX-License-Identifier: MIT
/*
 * atomic_file_test.c - every output path refuses what is not a regular file
 * and leaves it as it was: a character device (a /dev/null and a /dev/full
 * clone, mknod as root), a FIFO, a directory, a symlink (its target keeps
 * content and mode), a dangling symlink (nothing is created at its target);
 * a regular file is replaced by a new 0600 inode, never chmod'ed or
 * truncated; no temp file is left behind, even by a write stopped by SIGTERM;
 * xp_atomic_sweep() removes the temp files of dead writers and no other.
 */
#include "lib/atomic_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/test_check.h"

static char dir[] = "/tmp/xp_atomic_test.XXXXXX";

static const char *at(const char *name)
{
	static char buf[4][512];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

/* Every writer on path: each must refuse, and path must keep mode and type. */
static void check_refused(const char *path, const char *what)
{
	struct stat before, after;
	struct xp_atomic a;
	int fd;

	CHECK(lstat(path, &before) == 0, "%s: lstat", what);
	CHECK(xp_out_check(path) == -XP_OUT_REFUSED, "%s: check", what);
	CHECK(xp_write_file_atomic(path, "x\n", 2) == -XP_OUT_REFUSED, "%s: whole file", what);
	CHECK(xp_atomic_open(&a, path) == -XP_OUT_REFUSED, "%s: streamed atomic", what);
	fd = xp_out_open_stream(path, 0);
	CHECK(fd == -XP_OUT_REFUSED, "%s: stream gave %d", what, fd);
	fd = xp_out_open_stream(path, 1);
	CHECK(fd == -XP_OUT_REFUSED, "%s: append gave %d", what, fd);
	CHECK(lstat(path, &after) == 0 && after.st_mode == before.st_mode &&
		      after.st_ino == before.st_ino && after.st_rdev == before.st_rdev,
	      "%s: changed (mode %o -> %o)", what, before.st_mode, after.st_mode);
	CHECK(strstr(xp_out_strerror(-XP_OUT_REFUSED), "not a regular file"), "message");
}

static void check_devices(void)
{
	/* as root only; a sandbox without CAP_MKNOD skips this part */
	if (mknod(at("null"), S_IFCHR | 0666, makedev(1, 3)) ||
	    mknod(at("full"), S_IFCHR | 0666, makedev(1, 7))) {
		fprintf(stderr, "atomic_file_test: no mknod here, device cases skipped\n");
		return;
	}
	chmod(at("null"), 0666); /* umask */
	check_refused(at("null"), "char device 1,3");
	check_refused(at("full"), "char device 1,7");
}

static void check_symlinks(void)
{
	struct stat st;
	char buf[16] = { 0 };
	int fd = open(at("target"), O_WRONLY | O_CREAT | O_TRUNC, 0644);

	CHECK(fd >= 0 && write(fd, "keep", 4) == 4 && fchmod(fd, 0644) == 0, "target");
	close(fd);
	CHECK(symlink(at("target"), at("link")) == 0, "symlink");
	check_refused(at("link"), "symlink to a file");
	fd = open(at("target"), O_RDONLY);
	CHECK(read(fd, buf, sizeof(buf) - 1) == 4 && !strcmp(buf, "keep"), "target content %s", buf);
	close(fd);
	CHECK(stat(at("target"), &st) == 0 && (st.st_mode & 0777) == 0644, "target mode %o",
	      st.st_mode & 0777);
	CHECK(symlink(at("absent"), at("dangling")) == 0, "dangling");
	check_refused(at("dangling"), "dangling symlink");
	CHECK(access(at("absent"), F_OK) != 0, "created through a dangling symlink");
}

static void check_regular(void)
{
	struct stat old, now;
	int fd = open(at("reg"), O_WRONLY | O_CREAT | O_TRUNC, 0644);

	CHECK(fd >= 0 && write(fd, "old", 3) == 3 && fchmod(fd, 0644) == 0, "reg");
	close(fd);
	CHECK(link(at("reg"), at("reg.hard")) == 0, "hard link");
	stat(at("reg"), &old);
	CHECK(xp_write_file_atomic(at("reg"), "new\n", 4) == 0, "replace");
	CHECK(stat(at("reg"), &now) == 0 && now.st_ino != old.st_ino && (now.st_mode & 0777) == 0600,
	      "new inode 0600 (mode %o)", now.st_mode & 0777);
	CHECK(stat(at("reg.hard"), &old) == 0 && (old.st_mode & 0777) == 0644 && old.st_size == 3,
	      "old inode chmod'ed or truncated");
	fd = xp_out_open_stream(at("reg"), 0);
	CHECK(fd >= 0 && write(fd, "s", 1) == 1, "stream");
	close(fd);
	CHECK(stat(at("reg"), &now) == 0 && now.st_size == 1 && (now.st_mode & 0777) == 0600,
	      "stream size %lld", (long long)now.st_size);
	fd = xp_out_open_stream(at("reg"), 1);
	CHECK(fd >= 0 && write(fd, "t", 1) == 1, "append");
	close(fd);
	CHECK(stat(at("reg"), &now) == 0 && now.st_size == 2, "append size");
	fd = xp_out_open_stream(at("fresh"), 1);
	CHECK(fd >= 0 && stat(at("fresh"), &now) == 0 && (now.st_mode & 0777) == 0600, "fresh 0600");
	close(fd);
	CHECK(xp_write_file_atomic(at("nodir/x"), "x", 1) == -ENOENT, "missing directory");
}

/* A command stopped by SIGTERM mid-write leaves neither the file nor its temp. */
static void check_signal(void)
{
	int status = 0;
	pid_t pid = fork();

	if (pid == 0) {
		struct xp_atomic a;

		xp_out_unlink_on_signals();
		if (xp_atomic_open(&a, at("stopped")) || fputs("part", a.f) < 0 || fflush(a.f))
			_exit(1);
		raise(SIGTERM);
		_exit(2);
	}
	CHECK(waitpid(pid, &status, 0) == pid && WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM,
	      "child status %#x: not ended by SIGTERM", status);
	CHECK(access(at("stopped"), F_OK) != 0, "a stopped write left its file");
}

/* A file at path (mode 0600), for the sweep. */
static void touch(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);

	CHECK(fd >= 0 && write(fd, "x", 1) == 1, "create %s", path);
	if (fd >= 0)
		close(fd);
}

/*
 * The sweep removes the temps of a dead pid, and keeps those of a live pid,
 * a dead pid's temp someone holds the lock of (a writer of another pid
 * namespace), a symlink, other names, and a writer's temp in flight.
 */
static void check_sweep(void)
{
	char name[128];
	pid_t dead = fork(), me = getpid();
	struct xp_atomic a;
	int held, fd;

	if (dead == 0)
		_exit(0);
	CHECK(waitpid(dead, NULL, 0) == dead, "waitpid");
	CHECK(mkdir(at("sweep"), 0700) == 0, "mkdir sweep");
	snprintf(name, sizeof(name), "sweep/turn_001.json.tmp.%d.0", (int)dead);
	touch(at(name));
	snprintf(name, sizeof(name), "sweep/capture.json.tmp.%d.3", (int)dead);
	touch(at(name));
	snprintf(name, sizeof(name), "sweep/turn_002.json.tmp.%d.0", (int)me);
	touch(at(name));
	snprintf(name, sizeof(name), "sweep/turn_003.json.tmp.%d.1", (int)dead);
	touch(at(name));
	held = open(at(name), O_RDONLY);
	CHECK(held >= 0 && !flock(held, LOCK_EX), "lock %s", name);
	snprintf(name, sizeof(name), "sweep/link.json.tmp.%d.0", (int)dead);
	CHECK(symlink(at("sweep/turn_004.json"), at(name)) == 0, "symlink");
	touch(at("sweep/turn_004.json"));
	touch(at("sweep/x.tmp.12ab.0"));
	CHECK(xp_atomic_open(&a, at("sweep/live.json")) == 0, "open a write in flight");
	fd = open(a.tmp, O_RDONLY);
	CHECK(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) && errno == EWOULDBLOCK,
	      "a write in flight does not hold its temp's lock");
	close(fd);

	CHECK(xp_atomic_sweep(at("sweep")) == 2, "not the 2 dead writer's temps swept");
	snprintf(name, sizeof(name), "sweep/turn_001.json.tmp.%d.0", (int)dead);
	CHECK(access(at(name), F_OK) != 0, "%s kept", name);
	snprintf(name, sizeof(name), "sweep/turn_002.json.tmp.%d.0", (int)me);
	CHECK(access(at(name), F_OK) == 0, "a live pid's %s removed", name);
	snprintf(name, sizeof(name), "sweep/turn_003.json.tmp.%d.1", (int)dead);
	CHECK(access(at(name), F_OK) == 0, "a locked %s removed", name);
	CHECK(access(a.tmp, F_OK) == 0, "the write in flight lost its temp");
	CHECK(access(at("sweep/x.tmp.12ab.0"), F_OK) == 0, "another name removed");
	CHECK(xp_atomic_close(&a, 1) == 0, "the write in flight fails");
	CHECK(xp_atomic_sweep(at("nothere")) == -ENOENT, "a missing directory is not -ENOENT");
	close(held);
}

/* No "*.tmp.*" left in the directory. */
static void check_no_temp(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d)))
		CHECK(!strstr(e->d_name, ".tmp."), "temp left: %s", e->d_name);
	if (d)
		closedir(d);
}

int main(void)
{
	char cmd[600];

	if (!mkdtemp(dir))
		return 1;
	check_devices();
	CHECK(mkfifo(at("fifo"), 0600) == 0, "mkfifo");
	check_refused(at("fifo"), "FIFO");
	CHECK(mkdir(at("sub"), 0700) == 0, "mkdir");
	check_refused(at("sub"), "directory");
	check_symlinks();
	check_regular();
	check_signal();
	check_no_temp();
	check_sweep();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		return 1;
	return test_failures != 0;
}
