// SPDX-License-Identifier: MIT
/* retention.c - delete old sessions, oldest first (retention.h). */
#define _GNU_SOURCE
#include "userspace/daemon/retention.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/dir_lock.h"

#define SESSIONS_MAX 65536

struct session {
	char name[NAME_MAX + 1];
	time_t mtime;
	uint64_t bytes;
};

static uint64_t tree_bytes;

static int add_size(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)path, (void)flag, (void)f;
	tree_bytes += st->st_size;
	return 0;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)flag, (void)f;
	return remove(path);
}

/* Whether dir is a session no run holds now (its .lock free); fd stays locked on success. */
static int lock_idle(const char *dir)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/" XP_DIR_LOCK_NAME, dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		close(fd);
		return -1;
	}
	return fd;
}

static int by_age(const void *a, const void *b)
{
	const struct session *x = a, *y = b;

	return (x->mtime > y->mtime) - (x->mtime < y->mtime);
}

/* The idle sessions of node_dir, oldest first; total: bytes of all of them. */
static int list_sessions(const char *node_dir, struct session *s, uint64_t *total)
{
	DIR *d = opendir(node_dir);
	struct dirent *de;
	char path[PATH_MAX];
	struct stat st;
	int n = 0, fd;

	*total = 0;
	if (!d)
		return 0;
	while ((de = readdir(d)) && n < SESSIONS_MAX) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", node_dir, de->d_name);
		if (lstat(path, &st) || !S_ISDIR(st.st_mode) || (fd = lock_idle(path)) < 0)
			continue;
		close(fd);
		tree_bytes = 0;
		nftw(path, add_size, 16, FTW_PHYS);
		snprintf(s[n].name, sizeof(s[n].name), "%s", de->d_name);
		s[n].mtime = st.st_mtime;
		s[n].bytes = tree_bytes;
		*total += tree_bytes;
		n++;
	}
	closedir(d);
	qsort(s, n, sizeof(*s), by_age);
	return n;
}

unsigned int xpd_retention_sweep(const char *node_dir, const struct xpd_retention *r)
{
	struct session *s;
	uint64_t total;
	unsigned int deleted = 0;
	time_t now = time(NULL);
	char path[PATH_MAX];
	int n;

	if (!r->max_age_s && !r->max_bytes)
		return 0;
	s = malloc(SESSIONS_MAX * sizeof(*s));
	if (!s)
		return 0;
	n = list_sessions(node_dir, s, &total);
	for (int i = 0; i < n; i++) {
		bool old = r->max_age_s && difftime(now, s[i].mtime) > r->max_age_s;
		bool over = r->max_bytes && total > r->max_bytes;
		int fd;

		if (!old && !over)
			break;
		snprintf(path, sizeof(path), "%s/%s", node_dir, s[i].name);
		/* Locked while it goes: a run starting on it now waits, then recreates it. */
		fd = lock_idle(path);
		if (fd < 0)
			continue;
		if (nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS) == 0) {
			deleted++;
			total -= s[i].bytes;
		}
		close(fd);
	}
	free(s);
	return deleted;
}
