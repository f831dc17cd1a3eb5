/* SPDX-License-Identifier: MIT */
/*
 * sock_hooks.h - which hooks the socket (ciphertext) tier runs on
 * (bpf/sock.bpf.c), chosen at start-up for the running kernel: the socket
 * tracepoints where it has them (6.4+: only socket I/O runs a program),
 * else the raw syscall tracepoints (every syscall of every process runs
 * one). The choice and its reason are one line, for capture.json and -v.
 */
#ifndef XPERF_USERSPACE_SOCK_HOOKS_H
#define XPERF_USERSPACE_SOCK_HOOKS_H

#include <stdbool.h>
#include <stddef.h>

enum xpc_sock_hooks {
	XPC_SOCK_HOOKS_AUTO = 0,	/* the cheapest this kernel offers */
	XPC_SOCK_HOOKS_SOCKET,		/* sock:sock_{send,recv}_length, inet_sock_set_state... */
	XPC_SOCK_HOOKS_SYSCALLS,	/* raw_syscalls sys_enter/sys_exit: the fallback */
};

/* "auto", "socket", "syscalls"; NULL for another value. */
const char *xpc_sock_hooks_name(enum xpc_sock_hooks h);

/* The mode named s, or -1. */
int xpc_sock_hooks_parse(const char *s);

/*
 * Resolve want (AUTO: the cheapest available) for this kernel; watch_maps:
 * the map watch is needed too (its socket-mode hook is one more
 * tracepoint). Writes the one-line reason into why. Returns the mode, or
 * -EOPNOTSUPP when a forced mode is not available here (why says so).
 */
int xpc_sock_hooks_pick(enum xpc_sock_hooks want, bool watch_maps, char *why, size_t len);

/* true when a tp_btf program can attach to tracepoint `name` here. */
bool xpc_tp_btf_ok(const char *name);

/* true when the running kernel's BTF names the kernel function (kfunc) `name`. */
bool xpc_kfunc_ok(const char *name);

#endif /* XPERF_USERSPACE_SOCK_HOOKS_H */
