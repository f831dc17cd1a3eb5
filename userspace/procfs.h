/* SPDX-License-Identifier: MIT */
/*
 * procfs.h - the few facts read from /proc, and the pure parsers behind
 * them (tested and fuzzed on their own: /proc content is outside data).
 */
#ifndef XPERF_USERSPACE_PROCFS_H
#define XPERF_USERSPACE_PROCFS_H

#include <stddef.h>
#include <linux/types.h>
#include <sys/types.h>

#define XPC_CONTAINER_ID_LEN 65	/* 64 hex digits + NUL */

/* Tgid: of /proc/PID/status text; -1 when absent or malformed. */
int xpc_parse_status_tgid(const char *buf, size_t len);

/*
 * Whitespace-separated decimal pids (/proc/PID/task/TID/children) into out
 * (at most max). Returns the count, or -1 on a malformed token.
 */
int xpc_parse_pid_list(const char *buf, size_t len, __u32 *out, int max);

/*
 * The container id in a cgroup path or leaf name: the first run of exactly
 * 64 hex digits ("docker-<id>.scope", "cri-containerd-<id>.scope",
 * "crio-<id>", "libpod-<id>.scope", "/docker/<id>"). 1 and the id in out
 * (XPC_CONTAINER_ID_LEN bytes) when found, 0 when not.
 */
int xpc_parse_container_id(const char *path, size_t len, char out[XPC_CONTAINER_ID_LEN]);

/* Read a small /proc file whole (at most size - 1 bytes, NUL-terminated): its length or -1. */
ssize_t xpc_proc_read(const char *path, char *buf, size_t size);

/* Process (tgid) of thread or process pid; -1 if it does not exist. */
int xpc_proc_tgid(int pid);

/* Children of every thread of process tgid, at most max; -1 on error. */
int xpc_proc_children(__u32 tgid, __u32 *out, int max);

/* One line of /proc/PID/maps. */
struct xpc_map_ent {
	unsigned long start, end, offset;
	unsigned int dev_major, dev_minor;
	unsigned long inode;
	char perms[5];
	const char *path;	/* into the parsed line; NULL for anonymous */
};

/*
 * Parse one /proc/PID/maps line (no newline needed). Returns 0 and fills
 * *e, path pointing into `line`, or -1 when the line is malformed.
 */
int xpc_maps_parse_line(const char *line, struct xpc_map_ent *e);

/*
 * One file mapping of a process: path is the file through /proc/PID/root,
 * e the maps line. Returns >= 0 (added to the walk's result) or a negative
 * errno that stops the walk.
 */
typedef int (*xpc_map_cb)(void *ctx, const char *path, const struct xpc_map_ent *e);

/*
 * Call cb for each mapping of pid backed by a file that still exists
 * (/proc/PID/maps; anonymous, pseudo and deleted ones are skipped), in
 * address order, several times for a file mapped in several pieces.
 * Returns the sum of cb's results, or -errno when /proc/PID/maps cannot
 * be read (ENOENT: no such process), or cb's negative result.
 */
int xpc_maps_walk(pid_t pid, xpc_map_cb cb, void *ctx);

#endif /* XPERF_USERSPACE_PROCFS_H */
