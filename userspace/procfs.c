// SPDX-License-Identifier: MIT
/*
 * procfs.c - /proc readers (status, children, cgroup, maps) and their pure
 * parsers (procfs.h). Readers are
 * used only at attach time; everything per event comes from the kernel,
 * since a short-lived tool call is gone before /proc could be read.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "userspace/procfs.h"

int xpc_parse_status_tgid(const char *buf, size_t len)
{
	static const char key[] = "\nTgid:";
	size_t k = sizeof(key) - 1;
	long v = -1;

	for (size_t i = 0; i + k <= len; i++) {
		if (memcmp(buf + i, key, k))
			continue;
		i += k;
		while (i < len && (buf[i] == ' ' || buf[i] == '\t'))
			i++;
		if (i >= len || !isdigit((unsigned char)buf[i]))
			return -1;
		for (v = 0; i < len && isdigit((unsigned char)buf[i]); i++) {
			v = v * 10 + (buf[i] - '0');
			if (v > 0x7fffffff)
				return -1;
		}
		return (int)v;
	}
	return -1;
}

int xpc_parse_pid_list(const char *buf, size_t len, __u32 *out, int max)
{
	int n = 0;
	size_t i = 0;

	while (i < len) {
		unsigned long v = 0;
		size_t start;

		while (i < len && isspace((unsigned char)buf[i]))
			i++;
		if (i >= len)
			break;
		for (start = i; i < len && isdigit((unsigned char)buf[i]); i++) {
			v = v * 10 + (buf[i] - '0');
			if (v > 0x7fffffff)
				return -1;
		}
		if (i == start || (i < len && !isspace((unsigned char)buf[i])))
			return -1;
		if (n < max)
			out[n++] = v;
	}
	return n;
}

int xpc_parse_container_id(const char *path, size_t len, char out[XPC_CONTAINER_ID_LEN])
{
	size_t run = 0;

	for (size_t i = 0; i <= len; i++) {
		if (i < len && isxdigit((unsigned char)path[i])) {
			run++;
			continue;
		}
		if (run == XPC_CONTAINER_ID_LEN - 1) {
			memcpy(out, path + i - run, run);
			out[run] = '\0';
			return 1;
		}
		run = 0;
	}
	return 0;
}

ssize_t xpc_proc_read(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n, total = 0;

	if (fd < 0)
		return -1;
	while ((size_t)total < size - 1 && (n = read(fd, buf + total, size - 1 - total)) > 0)
		total += n;
	close(fd);
	buf[total] = '\0';
	return total;
}

int xpc_proc_tgid(int pid)
{
	char path[64], buf[4096];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	n = xpc_proc_read(path, buf, sizeof(buf));
	return n < 0 ? -1 : xpc_parse_status_tgid(buf, n);
}

int xpc_proc_children(__u32 tgid, __u32 *out, int max)
{
	char path[96], buf[4096];
	struct dirent *de;
	int n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%u/task", tgid);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d)) && n < max) {
		ssize_t len;
		int got;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%u/task/%.16s/children", tgid, de->d_name);
		len = xpc_proc_read(path, buf, sizeof(buf));
		got = len < 0 ? 0 : xpc_parse_pid_list(buf, len, out + n, max - n);
		if (got > 0)
			n += got;
	}
	closedir(d);
	return n;
}

int xpc_maps_parse_line(const char *line, struct xpc_map_ent *e)
{
	int used = 0;

	memset(e, 0, sizeof(*e));
	if (sscanf(line, "%lx-%lx %4s %lx %x:%x %lu%n", &e->start, &e->end, e->perms, &e->offset,
		   &e->dev_major, &e->dev_minor, &e->inode, &used) != 7 || used <= 0)
		return -1;
	if (e->end < e->start || strlen(e->perms) != 4)
		return -1;
	line += used;
	while (*line == ' ' || *line == '\t')
		line++;
	e->path = *line && *line != '\n' ? line : NULL;
	return 0;
}

int xpc_maps_walk(pid_t pid, xpc_map_cb cb, void *ctx)
{
	char root[64], path[PATH_MAX], *line = NULL;
	struct xpc_map_ent e;
	size_t cap = 0;
	int sum = 0, r = 0;
	FILE *f;

	snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (r >= 0 && getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\n")] = '\0';
		if (xpc_maps_parse_line(line, &e) || !e.path || e.path[0] != '/' ||
		    strstr(e.path, " (deleted)"))
			continue;
		snprintf(path, sizeof(path), "%s%s", root, e.path);
		r = cb(ctx, path, &e);
		sum += r > 0 ? r : 0;
	}
	free(line);
	fclose(f);
	return r < 0 ? r : sum;
}
