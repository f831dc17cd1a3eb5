/* SPDX-License-Identifier: MIT */
/*
 * procfs.h - the few facts read from /proc, and the pure parsers behind
 * them (tested and fuzzed on their own: /proc content is outside data).
 */
#ifndef XPERF_USERSPACE_PROCFS_H
#define XPERF_USERSPACE_PROCFS_H

#include <stddef.h>
#include <linux/types.h>

#define XP_CONTAINER_ID_LEN 65	/* 64 hex digits + NUL */

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
 * (XP_CONTAINER_ID_LEN bytes) when found, 0 when not.
 */
int xpc_parse_container_id(const char *path, size_t len, char out[XP_CONTAINER_ID_LEN]);

/* Process (tgid) of thread or process pid; -1 if it does not exist. */
int xpc_proc_tgid(int pid);

/* Children of every thread of process tgid, at most max; -1 on error. */
int xpc_proc_children(__u32 tgid, __u32 *out, int max);

#endif /* XPERF_USERSPACE_PROCFS_H */
