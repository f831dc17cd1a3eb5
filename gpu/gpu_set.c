// SPDX-License-Identifier: MIT
/*
 * gpu_set.c - load every .xpgpu file of a directory into memory, for the
 * turn assembler and the analyzer. Files are read whole (they are appended
 * to, never rewritten); a file that ends inside a frame (producer killed
 * mid-write, or still writing) is counted in `truncated`, not rejected.
 * A process both producers covered (the CUPTI collector injected into a
 * program xperf-bpf's cuda module also probed) has its host calls twice:
 * the CUPTI copy wins (it carries the correlation ids), the uprobe file is
 * left out with a notice.
 */
#include "gpu/gpu_records.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/grow.h"
#include "lib/in_file.h"

/* A record file larger than this is refused (about 16 M records). */
#define XP_GPU_FILE_MAX (1ul << 30)

static void on_header(void *ctx, const struct gp_gpu_header *h)
{
	struct gp_gpu_set *set = ctx;

	set->source = h->source;
	set->files++;
}

/* The set keeps growing; a failed allocation is counted as a drop, never a crash. */
static void on_record(void *ctx, const struct gp_gpu_rec *rec)
{
	struct gp_gpu_set *set = ctx;

	if (xp_grow((void **)&set->recs, &set->cap, set->n + 1, sizeof(*set->recs))) {
		set->dropped++;
		return;
	}
	set->recs[set->n++] = *rec;
}

static void on_dropped(void *ctx, uint64_t count)
{
	struct gp_gpu_set *set = ctx;

	set->dropped += count;
}

static void on_notice(void *ctx, const char *msg)
{
	struct gp_gpu_set *set = ctx;
	if (!xp_grow((void **)&set->notices, &set->cap_notices, set->n_notices + 1,
		     sizeof(*set->notices)) &&
	    (set->notices[set->n_notices] = strdup(msg)))
		set->n_notices++;
}

static int load_file(const char *path, struct gp_gpu_set *set, char *err, size_t errlen)
{
	const struct gp_gpu_visitor v = {on_header, on_record, on_dropped, on_notice, set};
	char why[256];
	char *bytes = NULL;
	size_t len = 0, used;
	int rc = xp_in_read(path, XP_GPU_FILE_MAX, &bytes, &len);

	if (rc) {
		snprintf(err, errlen, "%s: %s", path, xp_in_strerror(rc));
		return -1;
	}
	rc = gp_gpu_parse((const uint8_t *)bytes, len, 0, &used, &v, why, sizeof(why));
	if (rc)
		snprintf(err, errlen, "%s: %s", path, why);
	else if (used < len)
		set->truncated++;
	free(bytes);
	return rc;
}

static int by_start(const void *a, const void *b)
{
	const struct gp_gpu_rec *x = a, *y = b;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return (x->end_ns > y->end_ns) - (x->end_ns < y->end_ns);
}

/* Whether a set holds host calls (launch or sync records). */
static int has_host_calls(const struct gp_gpu_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		if (set->recs[i].kind == XP_GPU_LAUNCH || set->recs[i].kind == XP_GPU_SYNC)
			return 1;
	return 0;
}

/*
 * name is gpu-<pid>.uprobe.xpgpu and gpu-<pid>.xpgpu, CUPTI's, holds host
 * calls: the uprobe records are the same calls (the notice says so).
 */
static int superseded(const char *dir, const char *name, struct gp_gpu_set *set)
{
	struct gp_gpu_set cupti = { 0 };
	char path[4096], err[8], note[96];
	int pid, end = 0, dup;

	if (sscanf(name, "gpu-%d.uprobe.xpgpu%n", &pid, &end) != 1 || name[end] != '\0' || !end)
		return 0;
	snprintf(path, sizeof(path), "%s/gpu-%d.xpgpu", dir, pid);
	dup = load_file(path, &cupti, err, sizeof(err)) == 0 && has_host_calls(&cupti);
	gp_gpu_set_free(&cupti);
	if (dup) {
		snprintf(note, sizeof(note),
			 "uprobe records of pid %d left out: CUPTI recorded the same host calls",
			 pid);
		on_notice(set, note);
	}
	return dup;
}

int gp_gpu_load_dir(const char *dir, struct gp_gpu_set *set, char *err, size_t errlen)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int rc = 0;

	if (!d) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	while (!rc && (e = readdir(d))) {
		size_t n = strlen(e->d_name);
		char path[4096];

		if (n < 6 || strcmp(e->d_name + n - 6, ".xpgpu") || superseded(dir, e->d_name, set))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		rc = load_file(path, set, err, errlen);
	}
	closedir(d);
	if (set->n)
		qsort(set->recs, set->n, sizeof(*set->recs), by_start);
	return rc;
}

int gp_gpu_dir_written_since(const char *dir, time_t since)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct stat st;
	int found = 0;

	while (d && !found && (e = readdir(d))) {
		size_t n = strlen(e->d_name);

		found = n >= 6 && !strcmp(e->d_name + n - 6, ".xpgpu") &&
			!fstatat(dirfd(d), e->d_name, &st, 0) && st.st_mtime >= since;
	}
	if (d)
		closedir(d);
	return found;
}

void gp_gpu_set_free(struct gp_gpu_set *set)
{
	for (size_t i = 0; i < set->n_notices; i++)
		free(set->notices[i]);
	free(set->notices);
	free(set->recs);
	memset(set, 0, sizeof(*set));
}
