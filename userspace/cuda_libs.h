/* SPDX-License-Identifier: MIT */
/*
 * cuda_libs.h - find the CUDA libraries a process maps, so the cuda
 * module's per-process uprobes go on the right files: the libcudart and
 * libcuda files in /proc/PID/maps, read through /proc/PID/root (a
 * container's own copy). Files that are not CUDA libraries are remembered
 * in a set shared by all processes (by the (dev, inode) the maps line and
 * XP_EV_MAP_EXEC both carry), so a later mapping of a known file costs no
 * rescan.
 */
#ifndef XPERF_USERSPACE_CUDA_LIBS_H
#define XPERF_USERSPACE_CUDA_LIBS_H

#include <sys/types.h>

#include "userspace/tls_libs.h"

/*
 * A CUDA library mapping: the path to attach to (through /proc/PID/root)
 * and the file's identity. Called for every mapping of the file (a library
 * is mapped in several pieces). Returns >= 0 (added to the scan's result)
 * or a negative errno that stops the scan.
 */
typedef int (*xpc_cuda_lib_cb)(void *ctx, const char *path, dev_t dev, ino_t ino);

/*
 * Call cb for each mapping of pid whose file is a CUDA library
 * (gp_cuda_lib_of) and add every other mapped file to `plain`. Returns the
 * sum of cb's results, or -errno when /proc/PID cannot be read (ENOENT:
 * no such process) or cb's negative result.
 */
int xpc_cuda_libs_scan_pid(struct xpc_tls_libset *plain, pid_t pid, xpc_cuda_lib_cb cb, void *ctx);

#endif /* XPERF_USERSPACE_CUDA_LIBS_H */
