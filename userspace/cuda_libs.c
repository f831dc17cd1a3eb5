// SPDX-License-Identifier: MIT
/*
 * cuda_libs.c - CUDA library discovery for the cuda module (cuda_libs.h).
 *
 * Like the TLS libraries (tls_libs.c), a process is read through
 * /proc/PID/maps and /proc/PID/root, never the host's ldconfig; unlike
 * them, a CUDA library is recognised by its file name (xp_cuda_lib_of):
 * nothing links the CUDA runtime under another name, and libbpf resolves
 * the probed symbols itself, saying so when one is missing.
 */
#define _GNU_SOURCE /* tdestroy */
#include "userspace/cuda_libs.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gpu/cuda_uprobes.h"
#include "userspace/tls_libs.h"

/* Where CUDA runtimes and the driver's libcuda.so.1 are installed. */
static const char *const cuda_dirs[] = {
	"/usr/local/cuda/lib64", "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
	"/usr/lib64",		 "/usr/lib/wsl/lib",
};

struct devino {
	dev_t dev;
	ino_t ino;
};

struct cuda_libset {
	void *seen; /* tsearch tree of struct devino */
};

static int devino_cmp(const void *a, const void *b)
{
	const struct devino *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

struct cuda_libset *cuda_libset_new(void)
{
	return calloc(1, sizeof(struct cuda_libset));
}

void cuda_libset_free(struct cuda_libset *set)
{
	if (!set)
		return;
	tdestroy(set->seen, free);
	free(set);
}

/* 1 when path's (dev, inode) is new (now remembered), 0 if seen or absent, -ENOMEM. */
static int first_time(struct cuda_libset *set, const char *path)
{
	struct devino *k, **found;
	struct stat st;

	if (stat(path, &st))
		return 0;
	k = malloc(sizeof(*k));
	if (!k)
		return -ENOMEM;
	*k = (struct devino){ st.st_dev, st.st_ino };
	found = tsearch(k, &set->seen, devino_cmp);
	if (found && *found == k)
		return 1;
	free(k);
	return found ? 0 : -ENOMEM;
}

/* A regular file named like a CUDA library, reported once. */
static int scan_file(struct cuda_libset *set, const char *path, cuda_lib_cb cb, void *ctx)
{
	int r = xp_cuda_lib_of(path) < 0 ? 0 : first_time(set, path);

	if (r <= 0)
		return r;
	r = cb(ctx, path);
	return r < 0 ? r : 1;
}

static int scan_dir(struct cuda_libset *set, const char *dir, cuda_lib_cb cb, void *ctx)
{
	char path[PATH_MAX];
	DIR *d = opendir(dir);
	struct dirent *de;
	int found = 0, r = 0;

	if (!d)
		return 0;
	while (r >= 0 && (de = readdir(d))) {
		if (xp_cuda_lib_of(de->d_name) < 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		r = scan_file(set, path, cb, ctx);
		found += r > 0;
	}
	closedir(d);
	return r < 0 ? r : found;
}

/* The standard directories of root, once per root inode. */
static int scan_root(struct cuda_libset *set, const char *root, cuda_lib_cb cb, void *ctx)
{
	const char *cuda = getenv("XPERF_CUDA_PATH");
	char dir[PATH_MAX];
	int found = first_time(set, root), r = 0;

	if (found <= 0)
		return found;
	found = 0;
	if (cuda && *cuda) {
		snprintf(dir, sizeof(dir), "%s%s/lib64", root, cuda);
		r = scan_dir(set, dir, cb, ctx);
		found += r > 0 ? r : 0;
	}
	for (size_t i = 0; r >= 0 && i < sizeof(cuda_dirs) / sizeof(cuda_dirs[0]); i++) {
		snprintf(dir, sizeof(dir), "%s%s", root, cuda_dirs[i]);
		r = scan_dir(set, dir, cb, ctx);
		found += r > 0 ? r : 0;
	}
	return r < 0 ? r : found;
}

/* The CUDA libraries among the files a process maps (any mapping: same inode). */
static int scan_maps(struct cuda_libset *set, FILE *maps, const char *root, cuda_lib_cb cb,
		     void *ctx)
{
	char path[PATH_MAX], *line = NULL;
	struct tls_map_ent e;
	size_t cap = 0;
	int found = 0, r = 0;

	while (r >= 0 && getline(&line, &cap, maps) > 0) {
		line[strcspn(line, "\n")] = '\0';
		/* A deleted file ("... (deleted)") fails stat in scan_file. */
		if (tls_maps_parse_line(line, &e) || !e.path || e.path[0] != '/')
			continue;
		snprintf(path, sizeof(path), "%s%s", root, e.path);
		r = scan_file(set, path, cb, ctx);
		found += r > 0;
	}
	free(line);
	return r < 0 ? r : found;
}

int cuda_libs_scan_pid(struct cuda_libset *set, pid_t pid, cuda_lib_cb cb, void *ctx)
{
	char root[64], maps_path[64];
	FILE *maps;
	int found, r;

	snprintf(maps_path, sizeof(maps_path), "/proc/%d/maps", (int)pid);
	maps = fopen(maps_path, "re");
	if (!maps)
		return -errno;
	snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	found = scan_root(set, root, cb, ctx);
	r = found < 0 ? found : scan_maps(set, maps, root, cb, ctx);
	fclose(maps);
	return r < 0 ? r : found + r;
}
