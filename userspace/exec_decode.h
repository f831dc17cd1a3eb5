/* SPDX-License-Identifier: MIT */
/*
 * exec_decode.h - decode the variable part of an XP_EV_EXEC record
 * (bpf/proc.h): check its lengths, list argv, rebuild cwd. Pure functions
 * over untrusted bytes (fuzzed).
 */
#ifndef XPERF_USERSPACE_EXEC_DECODE_H
#define XPERF_USERSPACE_EXEC_DECODE_H

#include <stddef.h>
#include <linux/types.h>

#include "bpf/xperf.h"
#include "bpf/proc.h"

/* Bytes of struct xk_exec before data[]. */
#define XPC_EXEC_FIXED ((size_t)offsetof(struct xk_exec, data))

/*
 * 0 when the record of `size` bytes is consistent: size == hdr.size, the
 * three lengths add up to the size and the filename is NUL-terminated.
 * -1 otherwise (the other functions then must not be called).
 */
int xpc_exec_check(const struct xk_exec *e, size_t size);

/*
 * Call fn for each argv element, in order; an argument cut by
 * XP_ARGS_MAX is passed with the bytes present. Returns the count.
 */
int xpc_exec_args(const struct xk_exec *e,
		 void (*fn)(void *ctx, const char *arg, size_t len), void *ctx);

/*
 * The cwd as an absolute path ("/" when empty) in out; returns its
 * length, or -1 when out is too small.
 */
int xpc_exec_cwd(const struct xk_exec *e, char *out, size_t outlen);

#endif /* XPERF_USERSPACE_EXEC_DECODE_H */
