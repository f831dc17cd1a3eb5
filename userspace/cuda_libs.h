/* SPDX-License-Identifier: MIT */
/*
 * cuda_libs.h - find the CUDA libraries a process uses, so the cuda
 * module's uprobes go on the right inodes: the libcudart/libcuda files it
 * maps (through /proc/PID/root, so a container's own copy is found), and,
 * once per root, those in the standard CUDA and driver directories there:
 * libcudart dlopens libcuda.so.1 at its first call, after exec, and a
 * program may dlopen libcudart itself; uprobes are per inode, so a file
 * probed before it is mapped is covered from its first call.
 * Every file is examined once per (dev, inode).
 */
#ifndef XPERF_USERSPACE_CUDA_LIBS_H
#define XPERF_USERSPACE_CUDA_LIBS_H

#include <sys/types.h>

struct cuda_libset;

/* A set of already examined (dev, inode) pairs. NULL on ENOMEM. */
struct cuda_libset *cuda_libset_new(void);
void cuda_libset_free(struct cuda_libset *set);

/*
 * A CUDA library found: the path to attach to (through /proc/PID/root).
 * Returns 0, or a negative errno that stops the scan.
 */
typedef int (*cuda_lib_cb)(void *ctx, const char *path);

/*
 * Call cb for each CUDA library (xp_cuda_lib_of) not seen before that pid
 * maps executable or that lies in a standard directory of its root
 * (/usr/local/cuda/lib64, $XPERF_CUDA_PATH/lib64, the distributions'
 * driver directories). Returns how many were reported, or -errno when
 * /proc/PID cannot be read (ENOENT: no such process); a negative cb result
 * stops the scan and is returned.
 */
int cuda_libs_scan_pid(struct cuda_libset *set, pid_t pid, cuda_lib_cb cb, void *ctx);

#endif /* XPERF_USERSPACE_CUDA_LIBS_H */
