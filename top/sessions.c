// SPDX-License-Identifier: MIT
/*
 * sessions.c - the sessions of a trace directory (DIR/<session>/, and
 * DIR/<node>/<session>/ where a node daemon writes), kept up to date cheaply: a
 * session is re-analysed only when its directory changed (mtime or number of
 * turn files); whether it is still recording comes from /proc/locks (the
 * recorder's flock on DIR/<session>/.lock: read, never taken, so a recorder
 * starting now is not refused), and what its agent does now from /proc: a
 * child process running (a tool), on CPU, or waiting (on the model, I/O).
 */
#define _GNU_SOURCE /* qsort_r */
#include "top/top.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/grow.h"

const char *const top_sort_names[TOP_SORT_COUNT] = { "cost", "turns", "waste", "ttft", "name" };

/* The inodes of files someone holds an flock on (/proc/locks), into a caller's buffer. */
static size_t flocked(unsigned long *ino, size_t max)
{
	FILE *f = fopen("/proc/locks", "r");
	char line[256];
	size_t n = 0;

	while (f && n < max && fgets(line, sizeof(line), f)) {
		char kind[16], dev[32];
		unsigned long i;

		if (sscanf(line, "%*s %15s %*s %*s %*d %31[^:]:%*[^:]:%lu", kind, dev, &i) == 3 &&
		    !strcmp(kind, "FLOCK"))
			ino[n++] = i;
	}
	if (f)
		fclose(f);
	return n;
}

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	int ok = f && fgets(buf, (int)len, f);

	if (f)
		fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok ? 0 : -1;
}

/* What pid does now: its first child's name (a tool), else its scheduler state. */
static void doing(int64_t pid, char *now, size_t len)
{
	char path[96], buf[256], comm[32];

	snprintf(path, sizeof(path), "/proc/%lld/task/%lld/children", (long long)pid,
		 (long long)pid);
	if (!read_line(path, buf, sizeof(buf)) && buf[0]) {
		snprintf(path, sizeof(path), "/proc/%d/comm", atoi(buf));
		if (!read_line(path, comm, sizeof(comm))) {
			snprintf(now, len, "tool %s", comm);
			return;
		}
	}
	snprintf(path, sizeof(path), "/proc/%lld/stat", (long long)pid);
	if (read_line(path, buf, sizeof(buf)) || !strrchr(buf, ')')) {
		snprintf(now, len, "exited");
		return;
	}
	snprintf(now, len, "%s", strrchr(buf, ')')[2] == 'R' ? "on CPU" : "waiting");
}

static struct top_session *find(struct top *t, const char *path)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->s[i].path, path))
			return &t->s[i];
	if (xp_grow((void **)&t->s, &t->cap, t->n + 1, sizeof(*t->s)))
		return NULL;
	memset(&t->s[t->n], 0, sizeof(t->s[0]));
	snprintf(t->s[t->n].path, sizeof(t->s[0].path), "%s", path);
	return &t->s[t->n++];
}

/* Analyse s again when its directory changed since the last time. */
static void refresh(struct top *t, struct top_session *s, const struct stat *st, size_t nfiles)
{
	struct xa_options o;
	struct xa_session *as = NULL;

	if (s->analysed && s->nfiles == nfiles && s->mtime.tv_sec == st->st_mtim.tv_sec &&
	    s->mtime.tv_nsec == st->st_mtim.tv_nsec)
		return;
	xa_options_default(&o);
	o.prices = t->prices;
	if (xa_analyze_session_dir(s->path, &o, &as, NULL) == XA_OK && !xa_session_live(as, &s->live)) {
		s->analysed = 1;
		s->nfiles = nfiles;
		s->mtime = st->st_mtim;
	}
	xa_session_free(as);
}

static void state(struct top_session *s, const unsigned long *locks, size_t nlocks)
{
	char lock[1100];
	struct stat st;

	s->recording = 0;
	snprintf(lock, sizeof(lock), "%s/.lock", s->path);
	for (size_t i = 0; !stat(lock, &st) && i < nlocks; i++)
		s->recording |= locks[i] == (unsigned long)st.st_ino;
	if (s->recording && s->analysed && s->live.pid > 0)
		doing(s->live.pid, s->now, sizeof(s->now));
	else
		snprintf(s->now, sizeof(s->now), "%s", s->recording ? "starting" : "ended");
}

/* How many turn files dir holds (0: none, or not a directory). */
static size_t turn_files(const char *dir, struct stat *st)
{
	struct xa_scan sc;

	if (stat(dir, st) || !S_ISDIR(st->st_mode) || xa_scan_dir(dir, &sc))
		return 0;
	return sc.nfiles;
}

/* The session at path (named name, on node), found or added, then brought up to date. */
static void visit(struct top *t, const char *path, const char *node, const char *name,
		  const struct stat *st, size_t nfiles, const unsigned long *locks, size_t nlocks)
{
	struct top_session *s = find(t, path);

	if (!s)
		return;
	snprintf(s->name, sizeof(s->name), "%s", name);
	snprintf(s->node, sizeof(s->node), "%s", node);
	s->seen = 1;
	refresh(t, s, st, nfiles);
	state(s, locks, nlocks);
}

/*
 * Each directory of dir with turn files is a session; one without is a node
 * (DIR/<node>/<session>/, the daemon's layout) when depth allows: its sessions too.
 */
static int walk(struct top *t, const char *dir, const char *node, int depth,
		const unsigned long *locks, size_t nlocks)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		struct stat st;
		char path[1100];
		size_t nfiles;

		if (de->d_name[0] == '.' ||
		    snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= 1024)
			continue;
		nfiles = turn_files(path, &st);
		if (nfiles)
			visit(t, path, node, de->d_name, &st, nfiles, locks, nlocks);
		else if (depth && S_ISDIR(st.st_mode))
			walk(t, path, de->d_name, depth - 1, locks, nlocks);
	}
	closedir(d);
	return 0;
}

int top_scan(struct top *t)
{
	unsigned long locks[512];
	size_t nlocks = flocked(locks, 512), k = 0;

	for (size_t i = 0; i < t->n; i++)
		t->s[i].seen = 0;
	if (walk(t, t->dir, "", 1, locks, nlocks)) {
		snprintf(t->error, sizeof(t->error), "%s: %s", t->dir, strerror(errno));
		return -1;
	}
	t->error[0] = '\0';
	for (size_t i = 0; i < t->n; i++) /* sessions whose directory went away */
		if (t->s[i].seen)
			t->s[k++] = t->s[i];
	t->n = k;
	top_sort(t);
	return 0;
}

static double key(const struct top_session *s, enum top_sort by)
{
	switch (by) {
	case TOP_SORT_COST: return s->live.use.usd;
	case TOP_SORT_TURNS: return s->live.turns;
	case TOP_SORT_WASTE: return s->live.waste_share;
	case TOP_SORT_TTFT: return s->live.ttft_p95_ms;
	default: return 0;
	}
}

/* Biggest first (names: A to Z), recording sessions before ended ones on ties. */
static int cmp(const void *x, const void *y, void *by)
{
	const struct top_session *a = x, *b = y;
	double ka = key(a, *(enum top_sort *)by), kb = key(b, *(enum top_sort *)by);

	if (ka != kb)
		return ka < kb ? 1 : -1;
	if (a->recording != b->recording)
		return b->recording - a->recording;
	return strcmp(a->node, b->node) ? strcmp(a->node, b->node) : strcmp(a->name, b->name);
}

void top_sort(struct top *t)
{
	char sel[sizeof(t->s[0].path)] = "";

	if (t->selected < t->n)
		memcpy(sel, t->s[t->selected].path, sizeof(sel));
	qsort_r(t->s, t->n, sizeof(*t->s), cmp, &t->sort);
	for (size_t i = 0; i < t->n; i++) /* the selection follows its session */
		if (!strcmp(t->s[i].path, sel))
			t->selected = i;
	if (t->selected >= t->n)
		t->selected = t->n ? t->n - 1 : 0;
}

void top_free(struct top *t)
{
	free(t->s);
	t->s = NULL;
	t->n = t->cap = 0;
}
