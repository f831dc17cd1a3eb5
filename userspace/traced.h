/* SPDX-License-Identifier: MIT */
/*
 * traced.h - adding a process to the traced set from userspace, and taking
 * one out: the `traced` hash and its `traced_flags` byte (bpf/common.bpf.h),
 * in the order the BPF programs rely on (the byte set first and cleared
 * last, and cleared again when the hash refuses tgid: a clear byte means
 * untraced, and the hash is then not asked; the hot programs take a set
 * byte for traced without asking it either: xk_is_traced_tgid).
 */
#ifndef XPERF_USERSPACE_TRACED_H
#define XPERF_USERSPACE_TRACED_H

#include <linux/types.h>

#include "bpf/xperf.h"

/* A new `traced_flags` map sized for this machine's pid_max: its fd, or -errno. */
int xpc_traced_flags_create(void);

/* traced[tgid] = *v, tgid's byte of flags_fd set first (cleared if refused). 0 or -errno. */
int xpc_traced_add(int traced_fd, int flags_fd, __u32 tgid, const struct xk_traced *v);

/* Take tgid out: the hash first, its byte last (as xk_untrace). 0 or -errno (-ENOENT). */
int xpc_traced_remove(int traced_fd, int flags_fd, __u32 tgid);

#endif /* XPERF_USERSPACE_TRACED_H */
